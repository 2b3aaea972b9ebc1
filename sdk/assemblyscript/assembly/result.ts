// Results, content blocks and hook outputs (docs/abi.md, "Result").
import { Value, quote } from "./json";

/** One block of a result: text, or an image (base64 data and MIME type). */
export class Content {
  type: string = "text";
  text: string = "";
  data: string = "";
  mimeType: string = "";

  static text(s: string): Content {
    const c = new Content(); c.text = s; return c;
  }

  /** An image block of raw bytes, base64-encoded here. */
  static image(bytes: Uint8Array, mimeType: string): Content {
    return Content.imageBase64(base64(bytes), mimeType);
  }

  /** An image block of data already in base64. */
  static imageBase64(data: string, mimeType: string): Content {
    const c = new Content(); c.type = "image"; c.data = data; c.mimeType = mimeType; return c;
  }

  toJSON(): string {
    if (this.type == "image") {
      return "{\"type\":\"image\",\"data\":" + quote(this.data) + ",\"mimeType\":" + quote(this.mimeType) + "}";
    }
    return "{\"type\":" + quote(this.type) + ",\"text\":" + quote(this.text) + "}";
  }

  /** A content block from its JSON value (as the host sends it to hooks). */
  static from(v: Value): Content {
    const c = new Content();
    c.type = v.getString("type");
    c.text = v.getString("text");
    c.data = v.getString("data");
    c.mimeType = v.getString("mimeType");
    return c;
  }
}

export function contentJSON(blocks: Content[]): string {
  const parts = new Array<string>(blocks.length);
  for (let i = 0; i < blocks.length; i++) parts[i] = blocks[i].toJSON();
  return "[" + parts.join(",") + "]";
}

/** The result of a tool call, and the payload of a progress update. */
export class Result {
  content: Content[] = [];
  /** For the host and its UI, not the model; null for none. */
  details: Value | null = null;
  isError: bool = false;
  /** true asks to end the run after this batch (see terminated). */
  terminate: bool = false;
  /** Whether terminate is said at all: false is then sent as a value. */
  terminateSet: bool = false;

  /** A result of one text block. */
  static text(s: string): Result {
    const r = new Result(); r.content.push(Content.text(s)); return r;
  }

  /** An error result: the model sees the text as the tool's error. */
  static error(s: string): Result {
    const r = Result.text(s); r.isError = true; return r;
  }

  /** Appends a content block and returns the result. */
  add(c: Content): Result { this.content.push(c); return this; }

  /** Sets the details and returns the result. */
  withDetails(d: Value): Result { this.details = d; return this; }

  /** Asks to end the run after this batch (when every result says so). */
  terminated(): Result { return this.setTerminate(true); }

  /**
   * Says terminate either way: true as terminated does, false sent as a
   * value (kept in the result, as in pi) rather than left absent.
   */
  setTerminate(b: bool): Result { this.terminate = b; this.terminateSet = true; return this; }

  toJSON(): string {
    let s = "{\"content\":" + contentJSON(this.content);
    const d = this.details;
    if (d !== null && !d.isNull()) s += ",\"details\":" + d.toString();
    if (this.isError) s += ",\"isError\":true";
    if (this.terminate) s += ",\"terminate\":true";
    else if (this.terminateSet) s += ",\"terminate\":false";
    return s + "}";
  }
}

/**
 * What a beforeToolCall hook decides: allow (the default), block, ask the
 * user, or rewrite the arguments. Block wins over ask, and ask over a
 * rewrite: a hook may ask and rewrite at once (the rewrite applies once
 * the call is approved).
 */
export class BeforeOutput {
  block: bool = false;
  reason: string = "";
  /** A question for the user (or the host's on_ask); "" asks nothing. */
  ask: string = "";
  /**
   * The arguments to run the call with instead, a JSON object; null keeps
   * them. The host validates them again; a gate may not rewrite.
   */
  arguments: Value | null = null;

  static allow(): BeforeOutput { return new BeforeOutput(); }

  static block(reason: string): BeforeOutput {
    const o = new BeforeOutput(); o.block = true; o.reason = reason; return o;
  }

  /** Asks the user to approve the call; it goes on only if approved. */
  static ask(question: string): BeforeOutput { return new BeforeOutput().withAsk(question); }

  /** Runs the call with args (a JSON object) instead of its arguments. */
  static rewrite(args: Value): BeforeOutput { return new BeforeOutput().withArguments(args); }

  /** Adds a question (to a rewrite, say) and returns the output. */
  withAsk(question: string): BeforeOutput { this.ask = question; return this; }

  /** Adds a rewrite of the arguments and returns the output. */
  withArguments(args: Value): BeforeOutput { this.arguments = args; return this; }

  toJSON(): string {
    const parts = new Array<string>();
    if (this.block) {
      parts.push("\"block\":true");
      if (this.reason.length > 0) parts.push("\"reason\":" + quote(this.reason));
    }
    const a = this.arguments;
    if (a !== null) parts.push("\"arguments\":" + a.toString());
    if (this.ask.length > 0) parts.push("\"ask\":" + quote(this.ask));
    return "{" + parts.join(",") + "}";
  }
}

/** What an afterToolCall hook replaces; null (the default) keeps a field. */
export class AfterOutput {
  content: Content[] | null = null;
  details: Value | null = null;
  /** 0 keeps isError, 1 sets it false, 2 true (see setIsError). */
  isError: i32 = 0;
  terminate: i32 = 0;

  /** Keeps the result as it is. */
  static keep(): AfterOutput { return new AfterOutput(); }

  setContent(c: Content[]): AfterOutput { this.content = c; return this; }
  setDetails(d: Value): AfterOutput { this.details = d; return this; }
  setIsError(b: bool): AfterOutput { this.isError = b ? 2 : 1; return this; }
  setTerminate(b: bool): AfterOutput { this.terminate = b ? 2 : 1; return this; }

  toJSON(): string {
    const parts = new Array<string>();
    const c = this.content;
    if (c !== null) parts.push("\"content\":" + contentJSON(c));
    const d = this.details;
    if (d !== null) parts.push("\"details\":" + d.toString());
    if (this.isError != 0) parts.push("\"isError\":" + (this.isError == 2 ? "true" : "false"));
    if (this.terminate != 0) parts.push("\"terminate\":" + (this.terminate == 2 ? "true" : "false"));
    return "{" + parts.join(",") + "}";
  }
}

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** Standard base64 with padding. */
export function base64(b: Uint8Array): string {
  const out = new Array<string>();
  let i = 0;
  for (; i + 3 <= b.length; i += 3) {
    const n = (<u32>b[i] << 16) | (<u32>b[i + 1] << 8) | <u32>b[i + 2];
    out.push(B64.charAt(n >> 18) + B64.charAt((n >> 12) & 63) + B64.charAt((n >> 6) & 63) + B64.charAt(n & 63));
  }
  const rest = b.length - i;
  if (rest == 1) {
    const n = <u32>b[i] << 16;
    out.push(B64.charAt(n >> 18) + B64.charAt((n >> 12) & 63) + "==");
  } else if (rest == 2) {
    const n = (<u32>b[i] << 16) | (<u32>b[i + 1] << 8);
    out.push(B64.charAt(n >> 18) + B64.charAt((n >> 12) & 63) + B64.charAt((n >> 6) & 63) + "=");
  }
  return out.join("");
}
