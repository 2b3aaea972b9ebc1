// The exports' work: read the host's JSON, run what was registered, write
// JSON back (docs/abi.md, "Exports").
import * as kernel from "./kernel";
import { Value, Kind, quote, parse, parseBytes } from "./json";
import { Content } from "./result";
import { Call, ToolCall, BeforeInput, AfterInput, registry, needsJSON } from "./plugin";

/** The ABI version this SDK speaks. */
export const ABI_VERSION = 1;

/** @internal The export being served, for abort's message. */
export let currentExport = "";

/** The outcome of one export: its JSON output, or an error message. */
class Outcome {
  out: string = "";
  err: string = "";
}

function failed(msg: string): Outcome {
  const o = new Outcome(); o.err = msg; return o;
}

function ok(out: string): Outcome {
  const o = new Outcome(); o.out = out; return o;
}

/** @internal Runs one export: reads the input, sets the output or the error. */
export function serve(name: string): i32 {
  currentExport = name;
  const o = handle(name, kernel.input());
  if (o.err.length > 0) {
    kernel.setError(o.err);
    return 1;
  }
  kernel.setOutput(String.UTF8.encode(o.out));
  return 0;
}

function handle(name: string, input: ArrayBuffer): Outcome {
  if (name == "describe") return describe();
  const p = parseBytes(input);
  const v = p.value;
  if (v === null || v.kind != Kind.Object) {
    return failed("sdk: " + name + ": the host's input is not valid: " + (v === null ? p.error : "not a JSON object"));
  }
  if (name == "execute") return execute(v);
  if (name == "prepare_arguments") return prepare(v);
  if (name == "before_tool_call") return before(v);
  if (name == "after_tool_call") return after(v);
  return failed("sdk: no export \"" + name + "\"");
}

/** The description as JSON, or every mistake of the registrations. */
function description(): Outcome {
  const errs = registry.errors.slice();
  if (registry.name.length == 0) errs.push("sdk: the plugin has no name: call setInfo in the plugin's top-level code");
  if (registry.tools.length == 0 && registry.before === null && registry.after === null) {
    errs.push("sdk: the plugin registers no tool and no hook");
  }
  let s = "{\"abi\":" + ABI_VERSION.toString() + ",\"name\":" + quote(registry.name);
  if (registry.version.length > 0) s += ",\"version\":" + quote(registry.version);
  if (registry.tools.length > 0) {
    const tools = new Array<string>();
    for (let i = 0; i < registry.tools.length; i++) {
      const t = registry.tools[i];
      let ts = "{\"name\":" + quote(t.name);
      if (t.label.length > 0) ts += ",\"label\":" + quote(t.label);
      ts += ",\"description\":" + quote(t.description);
      if (t.parameters.length > 0) {
        const p = parse(t.parameters);
        const v = p.value;
        if (v === null) errs.push("registerTool \"" + t.name + "\": parameters is not valid JSON: " + p.error);
        else ts += ",\"parameters\":" + v.toString();
      }
      if (t.executionMode.length > 0) ts += ",\"executionMode\":" + quote(t.executionMode);
      if (t.prepare !== null) ts += ",\"prepareArguments\":true";
      const a = t.annotations.toJSON();
      if (a.length > 0) ts += ",\"annotations\":" + a;
      tools.push(ts + "}");
    }
    s += ",\"tools\":[" + tools.join(",") + "]";
  }
  if (errs.length > 0) return failed(errs.join("\n"));
  const hooks = new Array<string>();
  if (registry.before !== null) hooks.push("\"beforeToolCall\"");
  if (registry.after !== null) hooks.push("\"afterToolCall\"");
  if (hooks.length > 0) s += ",\"hooks\":[" + hooks.join(",") + "]";
  if (registry.gate) s += ",\"gate\":true";
  const needs = needsJSON();
  if (needs.length > 0) s += ",\"needs\":" + needs;
  return ok(s + "}");
}

function describe(): Outcome {
  const d = description();
  if (d.err.length > 0) return d;
  const check = registry.checkConfig;
  if (check !== null) {
    const msg = check(new Call());
    if (msg.length > 0) return failed("configuration: " + msg);
  }
  return d;
}

function objectOr(v: Value | null): Value {
  return v !== null && v.kind == Kind.Object ? v : Value.object();
}

function callOf(id: string, name: string): Call {
  const c = new Call(); c.id = id; c.name = name; return c;
}

function execute(in_: Value): Outcome {
  const name = in_.getString("name");
  const t = registry.tool(name);
  if (t === null) return failed("sdk: the plugin has no tool " + quote(name));
  const c = callOf(in_.getString("toolCallId"), name);
  const res = t.run(c, objectOr(in_.get("args")));
  if (c.failure.length > 0) return failed(c.failure);
  return ok(res.toJSON());
}

function prepare(in_: Value): Outcome {
  const name = in_.getString("name");
  const t = registry.tool(name);
  if (t === null) return failed("sdk: the plugin has no tool " + quote(name));
  const args = in_.get("args");
  const fn = t.prepare;
  if (fn === null) return ok(args === null ? "null" : args.toString());
  const c = callOf("", name);
  const out = fn(c, args === null ? Value.null() : args);
  if (c.failure.length > 0) return failed(c.failure);
  return ok(out.toString());
}

function toolCallOf(v: Value | null): ToolCall {
  const tc = new ToolCall();
  if (v === null) return tc;
  tc.id = v.getString("id");
  tc.name = v.getString("name");
  tc.arguments = objectOr(v.get("arguments"));
  return tc;
}

function before(in_: Value): Outcome {
  const h = registry.before;
  if (h === null) return failed("sdk: the plugin is not a beforeToolCall hook");
  const bi = new BeforeInput();
  bi.toolCall = toolCallOf(in_.get("toolCall"));
  bi.args = objectOr(in_.get("args"));
  const c = callOf(bi.toolCall.id, bi.toolCall.name);
  const out = h(c, bi);
  if (c.failure.length > 0) return failed(c.failure);
  const args = out.arguments;
  if (args !== null && args.kind != Kind.Object) {
    return failed("sdk: before_tool_call: the rewritten arguments must be a JSON object, not " + args.toString().slice(0, 40));
  }
  return ok(out.toJSON());
}

function after(in_: Value): Outcome {
  const h = registry.after;
  if (h === null) return failed("sdk: the plugin is not an afterToolCall hook");
  const ai = new AfterInput();
  ai.toolCall = toolCallOf(in_.get("toolCall"));
  ai.args = objectOr(in_.get("args"));
  ai.isError = in_.getBool("isError");
  const r = in_.get("result");
  if (r !== null) {
    const content = r.get("content");
    if (content !== null) {
      for (let i = 0; i < content.items.length; i++) ai.content.push(Content.from(content.items[i]));
    }
    const d = r.get("details");
    if (d !== null && !d.isNull()) ai.details = d;
  }
  const c = callOf(ai.toolCall.id, ai.toolCall.name);
  const out = h(c, ai);
  if (c.failure.length > 0) return failed(c.failure);
  return ok(out.toJSON());
}
