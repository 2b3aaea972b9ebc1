// asprobe exercises every part of sdk/assemblyscript, for the SDK's Go
// tests (sdk/assemblyscript/sdk_test.go), which run it in the real host.
import {
  setInfo, registerTool, registerBeforeToolCall, registerGate, registerAfterToolCall, setCheckConfig,
  needPath, needHost, needConfig, LogLevel, HTTPRequest,
  Tool, Call, Value, Kind, Result, Content, BeforeInput, BeforeOutput, AfterInput, AfterOutput, parse, quote,
} from "@wasmagent/sdk/assembly";
export * from "@wasmagent/sdk/assembly/exports";

setInfo("asprobe", "1.2.3");
needPath("/data", true, "writes results", true);
needHost("*.example.com", "fetches things", true);
needConfig("greeting", "what to say", true);
needConfig("gate", "makes the beforeToolCall hook the gate policy", true);
needConfig("hints", "adds the tool hinted, with these annotations", true);
setCheckConfig(checkConfig);

const TEXT = `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`;
const ANY = "";
registerTool(new Tool("echo", "Echoes text; details are the arguments.", TEXT, echo).withLabel("Echo").readOnly().idempotent().openWorld(false));
registerTool(new Tool("config", "Reads a configuration value.", `{"type":"object","properties":{"key":{"type":"string"}},"required":["key"]}`, config));
registerTool(new Tool("updates", "Sends n partial results.", `{"type":"object","properties":{"n":{"type":"integer"}}}`, updates).sequential());
registerTool(new Tool("image", "Returns a text and an image block.", ANY, image));
registerTool(new Tool("fail", "Fails with msg.", `{"type":"object","properties":{"msg":{"type":"string"}}}`, fail));
registerTool(new Tool("iserror", "Returns an error result.", ANY, iserror));
registerTool(new Tool("terminate", "Asks to end the run; with {value}, says terminate as that value.", ANY, terminate).destructive(false));
registerTool(new Tool("abort", "Throws.", ANY, abort));
registerTool(new Tool("http", "GETs url through the host.", `{"type":"object","properties":{"url":{"type":"string"},"method":{"type":"string"},"body":{"type":"string"}},"required":["url"]}`, http).openWorld());
registerTool(new Tool("log", "Logs at every level.", ANY, log));
registerTool(new Tool("json", "Parses text as JSON and writes it back.", TEXT, json));
registerTool(new Tool("prepared", "Takes {text}; accepts the old shape {txt}.", `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"],"additionalProperties":false}`, echo).withPrepare(prepare));
// With the configuration value "hints", four characters (t, f, or
// anything else for unset) for readOnly, destructive, idempotent and
// openWorld, a tool "hinted" has those annotations.
const hints = new Call().config("hints");
if (hints !== null) registerTool(hinted(new Tool("hinted", "Echoes text.", TEXT, echo), hints!));

// With the configuration value "gate", the beforeToolCall hook is the gate
// policy instead of the hook that rewrites and asks.
if (new Call().config("gate") !== null) registerGate(policy);
else registerBeforeToolCall(before);
registerAfterToolCall(after);

function hinted(t: Tool, hints: string): Tool {
  for (let i = 0; i < 4 && i < hints.length; i++) {
    const ch = hints.charAt(i);
    if (ch != "t" && ch != "f") continue;
    const b = ch == "t";
    if (i == 0) t.readOnly(b);
    else if (i == 1) t.destructive(b);
    else if (i == 2) t.idempotent(b);
    else t.openWorld(b);
  }
  return t;
}

function checkConfig(c: Call): string {
  return c.config("reject") !== null ? "reject is set" : "";
}

function echo(c: Call, args: Value): Result {
  return Result.text(args.getString("text")).withDetails(args);
}

function config(c: Call, args: Value): Result {
  const v = c.config(args.getString("key"));
  return Result.text(v !== null ? v : "(unset)");
}

function updates(c: Call, args: Value): Result {
  const n = args.getInteger("n", 2);
  for (let i: i64 = 1; i <= n; i++) {
    c.update(Result.text("step " + i.toString()).withDetails(Value.object().setInteger("step", i)));
  }
  return Result.text("done");
}

function image(c: Call, args: Value): Result {
  const png = new Uint8Array(5);
  png[0] = 0x89; png[1] = 0x50; png[2] = 0x4e; png[3] = 0x47; png[4] = 0xff;
  return Result.text("an image:").add(Content.image(png, "image/png"));
}

function fail(c: Call, args: Value): Result {
  return c.fail(args.getString("msg", "it failed"));
}

function iserror(c: Call, args: Value): Result {
  return Result.error("an error result");
}

function terminate(c: Call, args: Value): Result {
  const r = Result.text("the end");
  return args.has("value") ? r.setTerminate(args.getBool("value")) : r.terminated();
}

function abort(c: Call, args: Value): Result {
  throw new Error("kaboom");
}

function http(c: Call, args: Value): Result {
  const req = new HTTPRequest(args.getString("url")).withMethod(args.getString("method", "GET")).withHeader("x-probe", "1");
  if (args.has("body")) req.withText(args.getString("body"));
  const res = c.http(req);
  const h = Value.object();
  const names = res.headers.keys();
  for (let i = 0; i < names.length; i++) h.setString(names[i], res.headers.get(names[i]));
  const d = Value.object().setInteger("status", res.status).setString("url", res.url).set("headers", h);
  return Result.text(res.text()).withDetails(d);
}

function log(c: Call, args: Value): Result {
  c.log(LogLevel.Trace, "trace line");
  c.log(LogLevel.Debug, "debug line");
  c.log(LogLevel.Info, "info line");
  c.log(LogLevel.Warn, "warn line");
  c.log(LogLevel.Error, "error line");
  return Result.text("logged");
}

function json(c: Call, args: Value): Result {
  const p = parse(args.getString("text"));
  const v = p.value;
  if (v === null) return c.fail(p.error);
  return Result.text(v.toString());
}

function prepare(c: Call, args: Value): Value {
  if (args.kind != Kind.Object) { c.fail("arguments are not an object"); return args; }
  if (args.has("bad")) { c.fail("bad arguments"); return args; }
  if (args.has("txt") && !args.has("text")) {
    const out = Value.object().set("text", args.get("txt")!);
    return out;
  }
  return args;
}

function before(c: Call, in_: BeforeInput): BeforeOutput {
  if (in_.args.getBool("block")) return BeforeOutput.block("blocked " + in_.toolCall.name + " (" + in_.toolCall.id + ")");
  if (in_.args.getBool("hookfail")) { c.fail("the hook failed"); return BeforeOutput.allow(); }
  // {"ask": question} asks; {"rewrite": args} rewrites; both do both.
  const rewrite = in_.args.get("rewrite");
  if (in_.args.has("ask") && rewrite === null) return BeforeOutput.ask(in_.args.getString("ask"));
  if (rewrite === null) return BeforeOutput.allow();
  const out = BeforeOutput.rewrite(rewrite);
  if (in_.args.has("ask")) out.withAsk(in_.args.getString("ask"));
  return out;
}

// The gate: blocks {"text": "forbidden"}, asks about {"text": "ask"}, and
// tries to rewrite {"text": "rewrite"} (which a gate may not).
function policy(c: Call, in_: BeforeInput): BeforeOutput {
  const text = in_.args.getString("text");
  if (text == "forbidden") return BeforeOutput.block("the gate forbids " + quote(text));
  if (text == "ask") return BeforeOutput.ask("the gate asks");
  if (text == "rewrite") return BeforeOutput.rewrite(Value.object().setString("text", "rewritten by the gate"));
  return BeforeOutput.allow();
}

function after(c: Call, in_: AfterInput): AfterOutput {
  if (!in_.args.getBool("rewrite")) return AfterOutput.keep();
  let seen = "";
  for (let i = 0; i < in_.content.length; i++) seen += in_.content[i].type + ":" + in_.content[i].text + in_.content[i].mimeType + ";";
  const d = Value.object().setString("seen", seen).setBool("wasError", in_.isError);
  const det = in_.details;
  if (det !== null) d.set("details", det);
  return AfterOutput.keep().setContent([Content.text("rewritten")]).setDetails(d).setIsError(false).setTerminate(true);
}
