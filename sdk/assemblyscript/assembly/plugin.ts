// Registration and the context of a call: what a plugin's top-level code
// registers, and what its tool and hook functions get.
import * as kernel from "./kernel";
import { Value, quote, parse } from "./json";
import { Content, Result, BeforeOutput, AfterOutput } from "./result";

/** Log levels, as Extism numbers them. */
export enum LogLevel { Trace = 0, Debug = 1, Info = 2, Warn = 3, Error = 4 }

/** The execution modes of a tool. */
export const PARALLEL = "parallel";
export const SEQUENTIAL = "sequential";

/** An outbound HTTP request; the host sends it only to granted hosts. */
export class HTTPRequest {
  method: string = "GET";
  headers: Map<string, string> = new Map<string, string>();
  body: ArrayBuffer | null = null;
  constructor(public url: string) {}

  withMethod(m: string): HTTPRequest { this.method = m; return this; }
  withHeader(name: string, value: string): HTTPRequest { this.headers.set(name, value); return this; }
  withBody(b: ArrayBuffer): HTTPRequest { this.body = b; return this; }
  withText(s: string): HTTPRequest { this.body = String.UTF8.encode(s); return this; }
}

/** The response: status, the URL after redirects, lower-case headers, body. */
export class HTTPResponse {
  status: i32 = 0;
  url: string = "";
  headers: Map<string, string> = new Map<string, string>();
  body: ArrayBuffer = new ArrayBuffer(0);

  /** The body as UTF-8 text. */
  text(): string { return String.UTF8.decode(this.body); }
}

/** A call as the model sent it (hooks see it). */
export class ToolCall {
  id: string = "";
  name: string = "";
  /** The arguments as the model sent them. */
  arguments: Value = Value.object();
}

/** The input of a beforeToolCall hook. */
export class BeforeInput {
  toolCall: ToolCall = new ToolCall();
  /** The prepared, validated arguments. */
  args: Value = Value.object();
}

/** The input of an afterToolCall hook: the call and its result. */
export class AfterInput {
  toolCall: ToolCall = new ToolCall();
  args: Value = Value.object();
  content: Content[] = [];
  details: Value | null = null;
  isError: bool = false;
}

/** The context of one export call: the tool call it serves and the host. */
export class Call {
  /** The tool call's id ("" in describe). */
  id: string = "";
  /** The tool's name. */
  name: string = "";
  /** The error set with fail; "" when none. */
  failure: string = "";

  /** A configuration value granted in agent.toml, or null. */
  config(key: string): string | null { return kernel.configGet(key); }

  /** Writes a message to the host's log. */
  log(level: LogLevel, msg: string): void { kernel.log(<i32>level, msg); }

  /** Sends a partial result: the host emits it as a tool_execution_update. */
  update(partial: Result): void { kernel.emitUpdate(partial.toJSON()); }

  /**
   * Ends the call with an error: the export fails and the host makes an
   * error result of msg. Returns an empty result to return from the tool.
   */
  fail(msg: string): Result {
    this.failure = msg.length > 0 ? msg : "failed";
    return new Result();
  }

  /**
   * Sends an HTTP request through the host. A request the grants refuse,
   * or a response over its cap, ends the call with the host's error.
   */
  http(req: HTTPRequest): HTTPResponse {
    let h = "{";
    const names = req.headers.keys();
    for (let i = 0; i < names.length; i++) {
      if (i > 0) h += ",";
      h += quote(names[i]) + ":" + quote(req.headers.get(names[i]));
    }
    h += "}";
    const desc = "{\"method\":" + quote(req.method.toUpperCase()) + ",\"url\":" + quote(req.url) + ",\"headers\":" + h + "}";
    const raw = kernel.httpRequest(desc, req.body);
    const res = new HTTPResponse();
    res.status = raw.status;
    res.body = raw.body;
    res.url = req.url;
    const hs = raw.headers;
    if (hs !== null) {
      const p = parse(hs);
      const v = p.value;
      if (v !== null) {
        for (let i = 0; i < v.keys.length; i++) {
          const val = v.values[i].str;
          if (v.keys[i] == ":url") res.url = val;
          else res.headers.set(v.keys[i], val);
        }
      }
    }
    return res;
  }
}

/**
 * What a tool says of itself, for clients that show or gate calls (an MCP
 * client's tool annotations): hints, never trusted for security (the
 * grants bound a tool). Each is 0 (the default: claims nothing), 1 (false)
 * or 2 (true); set them with Tool's readOnly, destructive, idempotent and
 * openWorld.
 */
export class Annotations {
  /** The tool changes nothing outside itself. */
  readOnly: i32 = 0;
  /** It may delete or overwrite (meaningful when not read-only). */
  destructive: i32 = 0;
  /** Calling it again with the same arguments has no further effect. */
  idempotent: i32 = 0;
  /** It reaches things outside the host (the network). */
  openWorld: i32 = 0;

  /** The annotations as a JSON object, or "" when nothing is claimed. */
  toJSON(): string {
    const parts = new Array<string>();
    hint(parts, "readOnlyHint", this.readOnly);
    hint(parts, "destructiveHint", this.destructive);
    hint(parts, "idempotentHint", this.idempotent);
    hint(parts, "openWorldHint", this.openWorld);
    return parts.length == 0 ? "" : "{" + parts.join(",") + "}";
  }
}

function hint(parts: string[], name: string, v: i32): void {
  if (v != 0) parts.push(quote(name) + ":" + (v == 2 ? "true" : "false"));
}

/** A tool: its name, description, JSON Schema and function. */
export class Tool {
  label: string = "";
  executionMode: string = "";
  /** Hints for clients; nothing is claimed unless set. */
  annotations: Annotations = new Annotations();
  prepare: ((c: Call, args: Value) => Value) | null = null;

  /**
   * parameters is the JSON Schema of the arguments object, as JSON text
   * ("" for any object). run gets arguments the host has prepared and
   * validated against it.
   */
  constructor(
    public name: string,
    public description: string,
    public parameters: string,
    public run: (c: Call, args: Value) => Result,
  ) {}

  withLabel(label: string): Tool { this.label = label; return this; }

  /** Makes every batch of calls this tool is part of run one at a time. */
  sequential(): Tool { this.executionMode = SEQUENTIAL; return this; }

  /**
   * Rewrites the raw arguments before the host validates them (to accept
   * an older shape, say); c.fail in it refuses the call.
   */
  withPrepare(fn: (c: Call, args: Value) => Value): Tool { this.prepare = fn; return this; }

  /** Claims the tool changes nothing outside itself (readOnlyHint). */
  readOnly(b: bool = true): Tool { this.annotations.readOnly = b ? 2 : 1; return this; }

  /** Claims the tool may delete or overwrite (destructiveHint). */
  destructive(b: bool = true): Tool { this.annotations.destructive = b ? 2 : 1; return this; }

  /** Claims a repeated call with the same arguments does nothing more (idempotentHint). */
  idempotent(b: bool = true): Tool { this.annotations.idempotent = b ? 2 : 1; return this; }

  /** Claims the tool reaches outside the host, the network (openWorldHint). */
  openWorld(b: bool = true): Tool { this.annotations.openWorld = b ? 2 : 1; return this; }
}

class Need {
  constructor(public kind: string, public key: string, public write: bool, public optional: bool, public why: string) {}
}

/** @internal What the plugin's top-level code registered. */
export class Registry {
  name: string = "";
  version: string = "";
  tools: Tool[] = [];
  needs: Need[] = [];
  errors: string[] = [];
  before: ((c: Call, in_: BeforeInput) => BeforeOutput) | null = null;
  /** The beforeToolCall hook is a gate (registerGate). */
  gate: bool = false;
  after: ((c: Call, in_: AfterInput) => AfterOutput) | null = null;
  checkConfig: ((c: Call) => string) | null = null;

  tool(name: string): Tool | null {
    for (let i = 0; i < this.tools.length; i++) if (this.tools[i].name == name) return this.tools[i];
    return null;
  }
}

/** @internal */
export const registry = new Registry();

/** Names the plugin in its description. */
export function setInfo(name: string, version: string = ""): void {
  registry.name = name;
  registry.version = version;
}

/**
 * Adds a tool. A mistake (an empty or duplicate name, a schema that is
 * not JSON) makes describe fail saying what is wrong, so the host refuses
 * the plugin at load time.
 */
export function registerTool(t: Tool): void {
  if (t.name.length == 0) { registry.errors.push("registerTool: a tool has no name"); return; }
  if (registry.tool(t.name) !== null) { registry.errors.push("registerTool \"" + t.name + "\": registered twice"); return; }
  // The schema is checked by describe: instances that only execute do
  // not parse it.
  registry.tools.push(t);
}

/** Makes the plugin a beforeToolCall hook. */
export function registerBeforeToolCall(h: (c: Call, in_: BeforeInput) => BeforeOutput): void {
  registry.before = h;
  registry.gate = false;
}

/**
 * Makes the plugin a beforeToolCall hook that is a gate: the host runs it
 * after every hook that may rewrite, on the final arguments, and it may
 * block or ask but not rewrite (a rewrite from a gate blocks the call).
 */
export function registerGate(h: (c: Call, in_: BeforeInput) => BeforeOutput): void {
  registry.before = h;
  registry.gate = true;
}

/** Makes the plugin an afterToolCall hook. */
export function registerAfterToolCall(h: (c: Call, in_: AfterInput) => AfterOutput): void { registry.after = h; }

/**
 * Runs when the host loads the plugin (in describe) and may refuse the
 * configuration it was given: return "" to accept, or what is wrong.
 */
export function setCheckConfig(fn: (c: Call) => string): void { registry.checkConfig = fn; }

/** Asks for a directory at an absolute guest path (writable if write). */
export function needPath(guest: string, write: bool, why: string, optional: bool = false): void {
  registry.needs.push(new Need("paths", guest, write, optional, why));
}

/** Asks for outbound HTTP to a host ("name", "*.name", either with ":port"). */
export function needHost(host: string, why: string, optional: bool = false): void {
  registry.needs.push(new Need("hosts", host, false, optional, why));
}

/** Asks for a configuration value. */
export function needConfig(key: string, why: string, optional: bool = false): void {
  registry.needs.push(new Need("config", key, false, optional, why));
}

/** @internal The needs as a JSON object, or "" for none. */
export function needsJSON(): string {
  if (registry.needs.length == 0) return "";
  const kinds = ["paths", "hosts", "config"];
  const keyName = ["guest", "host", "key"];
  const groups = new Array<string>();
  for (let k = 0; k < kinds.length; k++) {
    const items = new Array<string>();
    for (let i = 0; i < registry.needs.length; i++) {
      const n = registry.needs[i];
      if (n.kind != kinds[k]) continue;
      let s = "{" + quote(keyName[k]) + ":" + quote(n.key);
      if (n.write) s += ",\"write\":true";
      if (n.optional) s += ",\"optional\":true";
      if (n.why.length > 0) s += ",\"why\":" + quote(n.why);
      items.push(s + "}");
    }
    if (items.length > 0) groups.push(quote(kinds[k]) + ":[" + items.join(",") + "]");
  }
  return "{" + groups.join(",") + "}";
}
