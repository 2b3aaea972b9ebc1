// A small JSON value: parse, build, inspect and serialise. The SDK's own,
// because tool arguments are dynamic (the host has validated them against
// the tool's schema) and a plugin needs no compiler transform for them;
// RATIONALE.md says why not json-as.

/** The kind of a JSON value. */
export enum Kind { Null, Bool, Number, String, Array, Object }

/** A JSON value. Objects keep their keys in order; numbers keep their text. */
export class Value {
  kind: Kind = Kind.Null;
  bool: bool = false;
  /** For numbers: the number's text, exactly as parsed or written. */
  raw: string = "";
  str: string = "";
  items: Value[] = [];
  keys: string[] = [];
  /** The values of `keys`, index for index. */
  values: Value[] = [];

  static null(): Value { return new Value(); }

  static bool(b: bool): Value {
    const v = new Value(); v.kind = Kind.Bool; v.bool = b; return v;
  }

  static number(n: f64): Value {
    const v = new Value(); v.kind = Kind.Number;
    v.raw = Math.trunc(n) == n && Math.abs(n) < 9007199254740992 ? (<i64>n).toString() : n.toString();
    return v;
  }

  static integer(n: i64): Value {
    const v = new Value(); v.kind = Kind.Number; v.raw = n.toString(); return v;
  }

  static string(s: string): Value {
    const v = new Value(); v.kind = Kind.String; v.str = s; return v;
  }

  static array(): Value {
    const v = new Value(); v.kind = Kind.Array; return v;
  }

  static object(): Value {
    const v = new Value(); v.kind = Kind.Object; return v;
  }

  isNull(): bool { return this.kind == Kind.Null; }

  /** The number as f64 (NaN when this is not a number). */
  get num(): f64 {
    return this.kind == Kind.Number ? parseFloat(this.raw) : NaN;
  }

  /** Sets key in an object (replacing its value) and returns the object. */
  set(key: string, v: Value): Value {
    for (let i = 0; i < this.keys.length; i++) {
      if (this.keys[i] == key) { this.values[i] = v; return this; }
    }
    this.keys.push(key); this.values.push(v);
    return this;
  }

  setString(key: string, s: string): Value { return this.set(key, Value.string(s)); }
  setNumber(key: string, n: f64): Value { return this.set(key, Value.number(n)); }
  setInteger(key: string, n: i64): Value { return this.set(key, Value.integer(n)); }
  setBool(key: string, b: bool): Value { return this.set(key, Value.bool(b)); }

  /** Appends to an array and returns the array. */
  push(v: Value): Value { this.items.push(v); return this; }

  /** An object's member, or null when absent (or this is not an object). */
  get(key: string): Value | null {
    for (let i = this.keys.length - 1; i >= 0; i--) {
      if (this.keys[i] == key) return this.values[i];
    }
    return null;
  }

  has(key: string): bool { return this.get(key) !== null; }

  /** A string member, or def when it is absent or not a string. */
  getString(key: string, def: string = ""): string {
    const v = this.get(key);
    return v !== null && v.kind == Kind.String ? v.str : def;
  }

  /** A number member, or def when it is absent or not a number. */
  getNumber(key: string, def: f64 = 0): f64 {
    const v = this.get(key);
    return v !== null && v.kind == Kind.Number ? v.num : def;
  }

  /** An integer member (truncated), or def when absent or not a number. */
  getInteger(key: string, def: i64 = 0): i64 {
    const v = this.get(key);
    if (v === null || v.kind != Kind.Number) return def;
    const n = v.num;
    return isFinite(n) ? <i64>n : def;
  }

  /** A boolean member, or def when it is absent or not a boolean. */
  getBool(key: string, def: bool = false): bool {
    const v = this.get(key);
    return v !== null && v.kind == Kind.Bool ? v.bool : def;
  }

  /** Compact JSON text. */
  toString(): string {
    const b = new Array<string>();
    write(b, this);
    return b.join("");
  }
}

function write(b: string[], v: Value): void {
  switch (v.kind) {
    case Kind.Null: b.push("null"); break;
    case Kind.Bool: b.push(v.bool ? "true" : "false"); break;
    case Kind.Number: b.push(v.raw.length > 0 && v.raw != "NaN" && v.raw != "Infinity" && v.raw != "-Infinity" ? v.raw : "null"); break;
    case Kind.String: b.push(quote(v.str)); break;
    case Kind.Array: {
      b.push("[");
      for (let i = 0; i < v.items.length; i++) {
        if (i > 0) b.push(",");
        write(b, v.items[i]);
      }
      b.push("]");
      break;
    }
    default: {
      b.push("{");
      for (let i = 0; i < v.keys.length; i++) {
        if (i > 0) b.push(",");
        b.push(quote(v.keys[i]));
        b.push(":");
        write(b, v.values[i]);
      }
      b.push("}");
    }
  }
}

const HEX = "0123456789abcdef";

/** s as a JSON string literal. */
export function quote(s: string): string {
  let plain = true;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c == 0x22 || c == 0x5c || (c >= 0xd800 && c < 0xe000)) { plain = false; break; }
  }
  if (plain) return "\"" + s + "\"";
  const b = new Array<string>();
  b.push("\"");
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    let esc: string | null = null;
    if (c == 0x22) esc = "\\\"";
    else if (c == 0x5c) esc = "\\\\";
    else if (c == 0x0a) esc = "\\n";
    else if (c == 0x0d) esc = "\\r";
    else if (c == 0x09) esc = "\\t";
    else if (c < 0x20) esc = "\\u00" + HEX.charAt(c >> 4) + HEX.charAt(c & 15);
    else if (c >= 0xd800 && c < 0xdc00 && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d < 0xe000) { i++; continue; } // a valid pair
      esc = "\\ufffd";
    } else if (c >= 0xd800 && c < 0xe000) esc = "\\ufffd"; // a lone surrogate
    if (esc !== null) {
      if (i > start) b.push(s.substring(start, i));
      b.push(esc);
      start = i + 1;
    }
  }
  if (start < s.length) b.push(s.substring(start));
  b.push("\"");
  return b.join("");
}

/** The most deeply nested arrays and objects a parse accepts. */
export const MAX_DEPTH = 512;

/** The outcome of parse: a value, or what is wrong and where. */
export class Parsed {
  value: Value | null = null;
  error: string = "";
  get ok(): bool { return this.value !== null; }
}

/** Parses JSON text; trailing data other than white space is an error. */
export function parse(text: string): Parsed {
  const p = new Parser(text);
  const out = new Parsed();
  p.ws();
  const v = p.value(0);
  if (v !== null) {
    p.ws();
    if (p.pos < text.length) p.fail("data after the JSON value");
  }
  if (p.err.length > 0 || v === null) {
    out.error = "JSON at offset " + p.errPos.toString() + ": " + (p.err.length > 0 ? p.err : "invalid");
    return out;
  }
  out.value = v;
  return out;
}

/** Parses UTF-8 JSON bytes. */
export function parseBytes(data: ArrayBuffer): Parsed {
  return parse(String.UTF8.decode(data));
}

class Parser {
  pos: i32 = 0;
  err: string = "";
  errPos: i32 = 0;
  constructor(public s: string) {}

  fail(msg: string): void {
    if (this.err.length == 0) { this.err = msg; this.errPos = this.pos; }
  }

  ws(): void {
    const s = this.s;
    while (this.pos < s.length) {
      const c = s.charCodeAt(this.pos);
      if (c != 0x20 && c != 0x0a && c != 0x0d && c != 0x09) break;
      this.pos++;
    }
  }

  lit(word: string): bool {
    if (this.s.substr(this.pos, word.length) == word) { this.pos += word.length; return true; }
    this.fail("invalid literal");
    return false;
  }

  value(depth: i32): Value | null {
    if (this.pos >= this.s.length) { this.fail("unexpected end of input"); return null; }
    const c = this.s.charCodeAt(this.pos);
    if (c == 0x7b || c == 0x5b) {
      if (depth >= MAX_DEPTH) { this.fail("nested more than " + MAX_DEPTH.toString() + " deep"); return null; }
      return c == 0x7b ? this.object(depth + 1) : this.array(depth + 1);
    }
    if (c == 0x22) {
      const s = this.string();
      return s === null ? null : Value.string(s);
    }
    if (c == 0x74) return this.lit("true") ? Value.bool(true) : null;
    if (c == 0x66) return this.lit("false") ? Value.bool(false) : null;
    if (c == 0x6e) return this.lit("null") ? Value.null() : null;
    if (c == 0x2d || (c >= 0x30 && c <= 0x39)) return this.number();
    this.fail("unexpected character");
    return null;
  }

  digits(): i32 {
    const s = this.s;
    const start = this.pos;
    while (this.pos < s.length) {
      const c = s.charCodeAt(this.pos);
      if (c < 0x30 || c > 0x39) break;
      this.pos++;
    }
    return this.pos - start;
  }

  number(): Value | null {
    const s = this.s;
    const start = this.pos;
    if (s.charCodeAt(this.pos) == 0x2d) this.pos++;
    if (this.pos < s.length && s.charCodeAt(this.pos) == 0x30) {
      this.pos++;
    } else if (this.digits() == 0) {
      this.fail("invalid number"); return null;
    }
    if (this.pos < s.length && s.charCodeAt(this.pos) == 0x2e) {
      this.pos++;
      if (this.digits() == 0) { this.fail("invalid number"); return null; }
    }
    if (this.pos < s.length && (s.charCodeAt(this.pos) | 0x20) == 0x65) {
      this.pos++;
      if (this.pos < s.length && (s.charCodeAt(this.pos) == 0x2b || s.charCodeAt(this.pos) == 0x2d)) this.pos++;
      if (this.digits() == 0) { this.fail("invalid number"); return null; }
    }
    const v = new Value();
    v.kind = Kind.Number;
    v.raw = s.substring(start, this.pos);
    return v;
  }

  hex4(): i32 {
    if (this.pos + 4 > this.s.length) return -1;
    let n = 0;
    for (let i = 0; i < 4; i++) {
      const c = this.s.charCodeAt(this.pos + i);
      let d: i32;
      if (c >= 0x30 && c <= 0x39) d = c - 0x30;
      else if ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66) d = (c | 0x20) - 0x61 + 10;
      else return -1;
      n = n * 16 + d;
    }
    this.pos += 4;
    return n;
  }

  string(): string | null {
    const s = this.s;
    this.pos++; // the opening quote
    let start = this.pos;
    let parts: string[] | null = null;
    while (true) {
      if (this.pos >= s.length) { this.fail("unterminated string"); return null; }
      const c = s.charCodeAt(this.pos);
      if (c == 0x22) break;
      if (c < 0x20) { this.fail("control character in a string"); return null; }
      if (c != 0x5c) { this.pos++; continue; }
      if (parts === null) parts = new Array<string>();
      parts.push(s.substring(start, this.pos));
      this.pos++;
      if (this.pos >= s.length) { this.fail("unterminated string"); return null; }
      const e = s.charCodeAt(this.pos);
      this.pos++;
      if (e == 0x22) parts.push("\"");
      else if (e == 0x5c) parts.push("\\");
      else if (e == 0x2f) parts.push("/");
      else if (e == 0x62) parts.push("\b");
      else if (e == 0x66) parts.push("\f");
      else if (e == 0x6e) parts.push("\n");
      else if (e == 0x72) parts.push("\r");
      else if (e == 0x74) parts.push("\t");
      else if (e == 0x75) {
        const u = this.hex4();
        if (u < 0) { this.fail("invalid \\u escape"); return null; }
        parts.push(String.fromCharCode(u));
      } else { this.pos--; this.fail("invalid escape"); return null; }
      start = this.pos;
    }
    const last = s.substring(start, this.pos);
    this.pos++; // the closing quote
    if (parts === null) return last;
    parts.push(last);
    return parts.join("");
  }

  array(depth: i32): Value | null {
    this.pos++;
    const v = Value.array();
    this.ws();
    if (this.pos < this.s.length && this.s.charCodeAt(this.pos) == 0x5d) { this.pos++; return v; }
    while (true) {
      this.ws();
      const item = this.value(depth);
      if (item === null) return null;
      v.items.push(item);
      this.ws();
      if (this.pos >= this.s.length) { this.fail("unterminated array"); return null; }
      const c = this.s.charCodeAt(this.pos++);
      if (c == 0x5d) return v;
      if (c != 0x2c) { this.pos--; this.fail("expected , or ] in an array"); return null; }
    }
  }

  object(depth: i32): Value | null {
    this.pos++;
    const v = Value.object();
    this.ws();
    if (this.pos < this.s.length && this.s.charCodeAt(this.pos) == 0x7d) { this.pos++; return v; }
    while (true) {
      this.ws();
      if (this.pos >= this.s.length || this.s.charCodeAt(this.pos) != 0x22) { this.fail("expected a string key"); return null; }
      const k = this.string();
      if (k === null) return null;
      this.ws();
      if (this.pos >= this.s.length || this.s.charCodeAt(this.pos) != 0x3a) { this.fail("expected : after a key"); return null; }
      this.pos++;
      this.ws();
      const item = this.value(depth);
      if (item === null) return null;
      v.keys.push(k);
      v.values.push(item);
      this.ws();
      if (this.pos >= this.s.length) { this.fail("unterminated object"); return null; }
      const c = this.s.charCodeAt(this.pos++);
      if (c == 0x7d) return v;
      if (c != 0x2c) { this.pos--; this.fail("expected , or } in an object"); return null; }
    }
  }
}
