// The Extism kernel functions a wasmagent plugin imports (docs/abi.md),
// and wasmagent's emit_update. Nothing else is imported: no WASI.

// @ts-ignore: decorator
@external("extism:host/env", "input_length")
declare function input_length(): u64;
// @ts-ignore: decorator
@external("extism:host/env", "input_load_u8")
declare function input_load_u8(offset: u64): u8;
// @ts-ignore: decorator
@external("extism:host/env", "input_load_u64")
declare function input_load_u64(offset: u64): u64;
// @ts-ignore: decorator
@external("extism:host/env", "alloc")
declare function alloc(length: u64): u64;
// @ts-ignore: decorator
@external("extism:host/env", "free")
declare function free(offset: u64): void;
// @ts-ignore: decorator
@external("extism:host/env", "length")
declare function length(offset: u64): u64;
// @ts-ignore: decorator
@external("extism:host/env", "load_u8")
declare function load_u8(offset: u64): u8;
// @ts-ignore: decorator
@external("extism:host/env", "load_u64")
declare function load_u64(offset: u64): u64;
// @ts-ignore: decorator
@external("extism:host/env", "store_u8")
declare function store_u8(offset: u64, value: u8): void;
// @ts-ignore: decorator
@external("extism:host/env", "store_u64")
declare function store_u64(offset: u64, value: u64): void;
// @ts-ignore: decorator
@external("extism:host/env", "output_set")
declare function output_set(offset: u64, length: u64): void;
// @ts-ignore: decorator
@external("extism:host/env", "error_set")
declare function error_set(offset: u64): void;
// @ts-ignore: decorator
@external("extism:host/env", "config_get")
declare function config_get(offset: u64): u64;
// @ts-ignore: decorator
@external("extism:host/env", "http_request")
declare function http_request(request: u64, body: u64): u64;
// @ts-ignore: decorator
@external("extism:host/env", "http_status_code")
declare function http_status_code(): i32;
// @ts-ignore: decorator
@external("extism:host/env", "http_headers")
declare function http_headers(): u64;
// @ts-ignore: decorator
@external("extism:host/env", "log_trace")
declare function log_trace(offset: u64): void;
// @ts-ignore: decorator
@external("extism:host/env", "log_debug")
declare function log_debug(offset: u64): void;
// @ts-ignore: decorator
@external("extism:host/env", "log_info")
declare function log_info(offset: u64): void;
// @ts-ignore: decorator
@external("extism:host/env", "log_warn")
declare function log_warn(offset: u64): void;
// @ts-ignore: decorator
@external("extism:host/env", "log_error")
declare function log_error(offset: u64): void;
// @ts-ignore: decorator
@external("extism:host/user", "emit_update")
declare function emit_update(offset: u64): void;

/** Copies `len` bytes of host memory at `offset` into a new buffer. */
function readBlock(offset: u64, len: u64, fromInput: bool): ArrayBuffer {
  const buf = new ArrayBuffer(<i32>len);
  const base = changetype<usize>(buf);
  let i: u64 = 0;
  for (; i + 8 <= len; i += 8) {
    store<u64>(base + <usize>i, fromInput ? input_load_u64(i) : load_u64(offset + i));
  }
  for (; i < len; i++) {
    store<u8>(base + <usize>i, fromInput ? input_load_u8(i) : load_u8(offset + i));
  }
  return buf;
}

// The bulk path (docs/abi.md, "Bulk transfer"): a host that knows it calls
// wasmagent_bulk_input_v1 before the export and wasmagent_bulk_output_v1
// after it, and moves the input and the output with one copy each; a host
// that does not calls neither, and the plugin uses the Extism input and
// output. The buffers live in these globals (the collector does not move
// memory), so their addresses stay valid between the calls.
let bulkOn = false;
let bulkIn: ArrayBuffer | null = null;
let bulkOut: ArrayBuffer | null = null;

/** @internal The host's bulk input: len bytes it writes the input into. */
export function bulkInput(len: u32): u32 {
  bulkOn = true;
  const buf = new ArrayBuffer(<i32>len);
  bulkIn = buf;
  return len == 0 ? 0 : <u32>changetype<usize>(buf);
}

/** @internal The output for the host's bulk read: address << 32 | length. */
export function bulkOutput(): u64 {
  const out = bulkOut;
  bulkOut = null;
  if (out === null || out.byteLength == 0) return 0; // the Extism output, empty
  return (<u64>changetype<usize>(out) << 32) | <u64>out.byteLength;
}

/** The call's input. */
export function input(): ArrayBuffer {
  if (bulkOn) {
    const b = bulkIn;
    bulkIn = null;
    return b === null ? new ArrayBuffer(0) : b;
  }
  return readBlock(0, input_length(), true);
}

/** Copies bytes into a new block of host memory and returns its offset. */
export function allocBytes(data: ArrayBuffer): u64 {
  const len = <u64>data.byteLength;
  const offset = alloc(len);
  const base = changetype<usize>(data);
  let i: u64 = 0;
  for (; i + 8 <= len; i += 8) store_u64(offset + i, load<u64>(base + <usize>i));
  for (; i < len; i++) store_u8(offset + i, load<u8>(base + <usize>i));
  return offset;
}

/** A string's UTF-8 bytes in a new block of host memory. */
export function allocString(s: string): u64 {
  return allocBytes(String.UTF8.encode(s));
}

/** Reads a block of host memory as bytes and frees it. */
export function takeBytes(offset: u64): ArrayBuffer {
  const buf = readBlock(offset, length(offset), false);
  free(offset);
  return buf;
}

/** Sets the call's output. */
export function setOutput(data: ArrayBuffer): void {
  if (bulkOn) {
    bulkOut = data;
    return;
  }
  output_set(allocBytes(data), <u64>data.byteLength);
}

/** Sets the call's error message. */
export function setError(msg: string): void {
  error_set(allocString(msg));
}

/** A configuration value, or null when it is not set. */
export function configGet(key: string): string | null {
  const k = allocString(key);
  const v = config_get(k);
  const value: string | null = v == 0 ? null : String.UTF8.decode(takeBytes(v));
  free(k);
  return value;
}

/** Writes a message to the host's log at an Extism level (0 trace … 4 error). */
export function log(level: i32, msg: string): void {
  const m = allocString(msg);
  switch (level) {
    case 0: log_trace(m); break;
    case 1: log_debug(m); break;
    case 2: log_info(m); break;
    case 3: log_warn(m); break;
    default: log_error(m);
  }
}

/** Sends a partial result (JSON) to the host. */
export function emitUpdate(json: string): void {
  const m = allocString(json);
  emit_update(m); // the host frees the block
}

/** The raw response of an HTTP request through the host. */
export class RawResponse {
  status: i32 = 0;
  headers: string | null = null; // a JSON object, or null
  body: ArrayBuffer = new ArrayBuffer(0);
}

/** Sends an HTTP request (its Extism JSON description and body). */
export function httpRequest(request: string, body: ArrayBuffer | null): RawResponse {
  const req = allocString(request);
  const b: u64 = body === null ? 0 : allocBytes(body);
  const res = http_request(req, b); // the host frees req and b
  const r = new RawResponse();
  r.status = http_status_code();
  if (res != 0) r.body = takeBytes(res);
  const h = http_headers();
  if (h != 0) r.headers = String.UTF8.decode(takeBytes(h));
  return r;
}
