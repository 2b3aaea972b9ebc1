// A test harness for wasmagent plugins: runs a tool or a hook in the real
// host, the wasmagent binary, exactly as an agent would (arguments
// prepared, coerced and validated against the tool's schema; a fresh,
// isolated instance per call; nothing granted but what you pass).
//
//   import { Host, findWasmagent } from "@wasmagent/sdk/harness";
//   const host = new Host("build/plugin.wasm", { config: { greeting: "hi" } });
//   const r = await host.execute("greet", { name: "Ada" });
//   r.content[0].text // "hi, Ada"
//
// The binary is $WASMAGENT, or wasmagent on PATH (go install
// ./cmd/wasmagent in a wasmagent checkout).
import { execFile } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

/** The wasmagent binary: $WASMAGENT, or wasmagent on PATH, or null. */
export function findWasmagent() {
  if (process.env.WASMAGENT) return process.env.WASMAGENT;
  for (const dir of (process.env.PATH || "").split(delimiter)) {
    if (!dir) continue;
    for (const name of process.platform === "win32" ? ["wasmagent.exe"] : ["wasmagent"]) {
      const p = join(dir, name);
      try {
        accessSync(p, constants.X_OK);
        return p;
      } catch {}
    }
  }
  return null;
}

/** Why tests cannot run here, or false: for node:test's skip option. */
export function skipReason() {
  return findWasmagent()
    ? false
    : "no wasmagent binary: set WASMAGENT to its path or put it on PATH (in the wasmagent checkout: go install ./cmd/wasmagent)";
}

/** An error the host reported: a tool's error result, a refused call, a failed load. */
export class HostError extends Error {
  constructor(message, { code, stderr } = {}) {
    super(message);
    this.name = "HostError";
    this.code = code;
    this.stderr = stderr;
  }
}

function run(bin, args) {
  return new Promise((resolve) => {
    execFile(bin, args, { maxBuffer: 64 << 20, encoding: "utf8" }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === "number" ? err.code : -1) : 0, stdout, stderr, spawnError: err && typeof err.code !== "number" ? err : null });
    });
  });
}

// The host's message without its "error after 1ms: " prefix and timing lines.
function message(stderr) {
  const lines = stderr.split("\n").filter((l) => l && !l.startsWith("update: ") && !/^\(\S+\)$/.test(l));
  return lines.join("\n").replace(/^error after \S+: /, "");
}

/** A plugin file and what it is granted, run in the real host. */
export class Host {
  /**
   * @param {string} wasm the plugin's .wasm file
   * @param {{config?: Record<string,string>, dirs?: string[], hosts?: string[], timeout?: string, memoryMiB?: number, bin?: string}} [grants]
   *   config values; dirs as "HOST:GUEST" or "HOST:GUEST:rw"; hosts as in agent.toml;
 *   timeout as "5s"; memoryMiB
   */
  constructor(wasm, grants = {}) {
    this.wasm = wasm;
    this.grants = grants;
    this.bin = grants.bin || findWasmagent();
  }

  #flags() {
    const f = [];
    for (const [k, v] of Object.entries(this.grants.config || {})) f.push("--set", `${k}=${v}`);
    if (this.grants.timeout) f.push("--timeout", this.grants.timeout);
    if (this.grants.memoryMiB) f.push("--memory-mib", String(this.grants.memoryMiB));
    for (const d of this.grants.dirs || []) f.push("--dir", d);
    for (const h of this.grants.hosts || []) f.push("--host", h);
    return f;
  }

  async #run(args) {
    if (!this.bin) throw new HostError(skipReason());
    const r = await run(this.bin, args);
    if (r.spawnError) throw new HostError(`running ${this.bin}: ${r.spawnError.message}`);
    if (r.code !== 0) throw new HostError(message(r.stderr), { code: r.code, stderr: r.stderr });
    return r;
  }

  /** The plugin's description, checked by the host as at load time. */
  async describe() {
    const r = await this.#run(["plugin", "inspect", this.wasm]);
    const at = r.stdout.indexOf("\ndescribe ");
    if (at < 0) throw new HostError(`wasmagent plugin inspect printed no description:\n${r.stdout}`);
    return JSON.parse(r.stdout.slice(at + "\ndescribe ".length));
  }

  /**
   * Calls a tool as the loop does: prepare_arguments, coercion and
   * validation against its schema, execute. Resolves to the result
   * ({content, details, terminate}) with the partial results the tool sent
   * as `updates`; rejects with a HostError carrying the text of an error
   * result or what the host refused.
   */
  async execute(tool, args = {}) {
    const r = await this.#run(["plugin", "call", ...this.#flags(), this.wasm, tool, JSON.stringify(args)]);
    const result = JSON.parse(r.stdout);
    result.updates = r.stderr
      .split("\n")
      .filter((l) => l.startsWith("update: "))
      .map((l) => JSON.parse(l.slice("update: ".length)));
    return result;
  }

  /**
   * Asks the plugin's beforeToolCall hook about a call: resolves to {} (allow)
   * or what it said: {block, reason}, {ask}, {arguments} (a rewrite), or ask
   * and arguments together. The host does not ask anyone here.
   */
  async beforeToolCall(tool, args = {}) {
    const call = { toolCall: { id: "call_1", name: tool, arguments: args }, args };
    const r = await this.#run(["plugin", "call", "--hook", "before", ...this.#flags(), this.wasm, JSON.stringify(call)]);
    return JSON.parse(r.stdout);
  }

  /**
   * Shows the plugin's afterToolCall hook a call and its result
   * ({content, details}); resolves to what the hook replaces.
   */
  async afterToolCall(tool, args, result, isError = false) {
    const call = { toolCall: { id: "call_1", name: tool, arguments: args }, args, result, isError };
    const r = await this.#run(["plugin", "call", "--hook", "after", ...this.#flags(), this.wasm, JSON.stringify(call)]);
    return JSON.parse(r.stdout);
  }
}
