// Runs the scenarios of host/golden_test.go on pi-agent-core 0.73.1 with
// pi-ai's faux provider and writes one <scenario>.jsonl per scenario: every
// event as JSON.stringify gives it. host/pi_test.go compares them with ours.
import { writeFileSync } from "node:fs";
import { Agent, runAgentLoop, runAgentLoopContinue } from "@mariozechner/pi-agent-core";
import { registerFauxProvider, fauxAssistantMessage, fauxText, fauxThinking, fauxToolCall, streamSimple } from "@mariozechner/pi-ai";

const faux = registerFauxProvider({ tokenSize: { min: 4, max: 4 } });
const model = faux.getModel();
const user = (text) => ({ role: "user", content: [{ type: "text", text }], timestamp: 1 });
const say = (text) => fauxAssistantMessage(text);
const calls = (...cs) => fauxAssistantMessage(cs.map(([id, name, args]) => fauxToolCall(name, args, { id })), { stopReason: "toolUse" });
const convertToLlm = (ms) => ms.filter((m) => ["user", "assistant", "toolResult"].includes(m.role));

function tool(name, execute, extra = {}) {
  return { name, label: name, description: "test tool " + name, parameters: extra.parameters ?? { type: "object" }, execute, ...extra };
}
const echo = (name, extra) => tool(name, async (_id, params) => ({ content: [{ type: "text", text: JSON.stringify(params) }] }), extra);

class Recorder {
  lines = [];
  waiters = [];
  emit = async (e) => {
    this.lines.push(JSON.stringify(e));
    for (const w of this.waiters.splice(0)) w(e);
  };
  ended(id) {
    return new Promise((resolve) => {
      if (this.lines.some((l) => l.includes(`"tool_execution_end","toolCallId":"${id}"`))) return resolve();
      const check = (e) => (e.type === "tool_execution_end" && e.toolCallId === id ? resolve() : this.waiters.push(check));
      this.waiters.push(check);
    });
  }
  write(name) {
    writeFileSync(new URL(name + ".jsonl", import.meta.url), this.lines.join("\n") + "\n");
  }
}

async function loop(name, { turns, tools = [], prompts = [user("go")], config = {} }, rec = new Recorder()) {
  faux.setResponses(turns);
  const context = { systemPrompt: "You are a test.", messages: [], tools: typeof tools === "function" ? tools(rec) : tools };
  await runAgentLoop(prompts, context, { model, convertToLlm, ...config }, rec.emit, undefined, streamSimple);
  rec.write(name);
}

async function agentRun(name, { turns, tools = [], options = {}, before, prompt = "go" }) {
  faux.setResponses(turns);
  const rec = new Recorder();
  const agent = new Agent({ initialState: { systemPrompt: "You are a test.", model, tools: tools(() => agent, rec) }, ...options });
  agent.subscribe((e) => rec.emit(e));
  before?.(agent);
  await agent.prompt(user(prompt));
  rec.write(name);
}

const countSchema = { type: "object", properties: { count: { type: "integer" }, flag: { type: "boolean" }, label: { type: "string" } }, required: ["count"] };
const wait = (rec) => [tool("wait", async (id, params, _s, onUpdate) => {
  if (params.after) await rec.ended(params.after);
  onUpdate({ waited: params.after ?? "" });
  return { content: [{ type: "text", text: "done " + id }], details: { after: params.after ?? "" } };
}, { parameters: { type: "object", properties: { after: { type: "string" } } } })];
const terminating = (name, terminate, explicit = false) => tool(name, async () => ({ content: [{ type: "text", text: name }], ...(terminate || explicit ? { terminate } : {}) }));

await loop("plain_text", { turns: [fauxAssistantMessage([fauxThinking("The user greets me."), fauxText("Hello there, how can I help you today?")])], prompts: [user("hi")] });
await loop("one_tool", { turns: [calls(["c1", "echo", { text: "ping" }]), say("pong")], tools: [echo("echo")], prompts: [user("echo ping")] });
await loop("parallel_out_of_order", { turns: [calls(["c1", "wait", { after: "c3" }], ["c2", "wait", {}], ["c3", "wait", { after: "c2" }]), say("all done")], tools: wait });
await loop("sequential_mode", { turns: [calls(["c1", "echo", { n: 1 }], ["c2", "echo", { n: 2 }]), say("ok")], tools: [echo("echo")], config: { toolExecution: "sequential" } });
await loop("per_tool_sequential", { turns: [calls(["c1", "echo", { n: 1 }], ["c2", "write", { n: 2 }], ["c3", "echo", { n: 3 }]), say("ok")], tools: [echo("echo"), echo("write", { executionMode: "sequential" })] });
await loop("tool_not_found", { turns: [calls(["c1", "nope", {}], ["c2", "echo", {}]), say("ok")], tools: [echo("echo")] });
await loop("validation_and_coercion", {
  turns: [calls(["c1", "count", { count: "3", flag: "true", label: 7 }], ["c2", "count", { flag: 1 }], ["c3", "count", { count: "abc" }]), say("ok")],
  tools: [echo("count", { parameters: countSchema })],
});
// Coercion is JavaScript's: Number() for numbers, String() for strings.
const jsSchema = { type: "object", properties: { n: { type: "number" }, i: { type: "integer" }, s: { type: "string" }, b: { type: "boolean" }, z: { type: "null" } } };
await loop("coercion_js", {
  turns: [calls(
    ["c1", "js", { n: "0x10", i: "0b11", s: 1e-7 }],
    ["c2", "js", { s: 0.000001, n: " 12 ", i: "0o7" }],
    ["c3", "js", { i: "1e3", n: "1_000", s: 1e21 }],
    ["c4", "js", { i: "\u00a012\u2028", n: "0x1p4", s: 123456789012345680000 }],
    ["c5", "js", { b: 1, i: "0x1F", n: "Infinity", s: 1.5e300, z: 0 }],
    ["c6", "js", { z: "", s: 0.1, n: "-.5e1", i: "12.0", b: "true" }],
  ), say("ok")],
  tools: [echo("js", { parameters: jsSchema })],
});
await loop("prepare_arguments", {
  turns: [calls(["c1", "read", { file: "old.txt" }], ["c2", "read", { path: "new.txt" }], ["c3", "read", { other: 1 }]), say("ok")],
  tools: [echo("read", {
    parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"], additionalProperties: false },
    prepareArguments: (args) => (args.file ? { path: args.file } : args),
  })],
});
await loop("before_hook_block", {
  turns: [calls(["c1", "echo", {}], ["c2", "danger", { why: "reason" }], ["c3", "danger", {}]), say("ok")],
  tools: [echo("echo"), echo("danger")],
  config: { beforeToolCall: async ({ toolCall, args }) => toolCall.name !== "danger" ? undefined : args.why ? { block: true, reason: "danger is not allowed here" } : { block: true } },
});
await loop("execute_error", {
  turns: [calls(["c1", "fail", {}], ["c2", "crash", {}]), say("ok")],
  // A Go panic in a tool is reported as "tool NAME panicked: VALUE".
  tools: [tool("fail", async () => { throw new Error("disk full"); }), tool("crash", async () => { throw new Error("tool crash panicked: index out of range"); })],
});
await loop("after_hook_override", {
  turns: [calls(["c1", "echo", { secret: "hunter2" }], ["c2", "echo", { plain: 1 }]), say("ok")],
  tools: [echo("echo")],
  // The Go test chains two hooks; this one hook returns what the chain does.
  config: { afterToolCall: async ({ toolCall }) => toolCall.id === "c1" ? { content: [{ type: "text", text: "[redacted] (checked)" }], isError: true, details: { redacted: 1 } } : {} },
});
await loop("after_hook_failure", {
  turns: [calls(["c1", "echo", {}], ["c2", "echo", { boom: true }]), say("ok")],
  tools: [echo("echo")],
  config: { afterToolCall: async ({ toolCall }) => { if (toolCall.id === "c2") throw new Error("audit log unavailable"); } },
});
await loop("terminate_all", { turns: [calls(["c1", "stop", {}], ["c2", "stop", {}]), say("never requested")], tools: [terminating("stop", true)] });
await loop("terminate_mixed", { turns: [calls(["c1", "stop", {}], ["c2", "go", {}]), say("continued")], tools: [terminating("stop", true), terminating("go", false)] });
// terminate:false is kept (not dropped as absent), from a tool and from an
// after-hook's merge.
await loop("terminate_false", {
  turns: [calls(["c1", "keep", {}], ["c2", "stop", {}]), say("continued")],
  tools: [terminating("keep", false, true), terminating("stop", true)],
  config: { afterToolCall: async ({ toolCall }) => (toolCall.id === "c2" ? { terminate: false } : undefined) },
});
// A slow subscriber delays delivery, never the tool: c1 (100 ms, one update
// at 10 ms) and c2 (250 ms) run in parallel while the listener sleeps 200 ms
// on c1's update, so c1 ends at 210 ms, before c2 at 250.
{
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const rec = new Recorder();
  const work = tool("work", async (id, params, _s, onUpdate) => {
    if (params.updateAt) {
      await sleep(params.updateAt);
      onUpdate({ at: params.updateAt });
    }
    await sleep(params.ms - (params.updateAt ?? 0));
    return { content: [{ type: "text", text: "done " + id }] };
  }, { parameters: { type: "object", properties: { ms: { type: "integer" }, updateAt: { type: "integer" } } } });
  faux.setResponses([calls(["c1", "work", { ms: 100, updateAt: 10 }], ["c2", "work", { ms: 250 }]), say("ok")]);
  const slow = async (e) => {
    if (e.type === "tool_execution_update" && e.toolCallId === "c1") await sleep(200);
    return rec.emit(e);
  };
  await runAgentLoop([user("go")], { systemPrompt: "You are a test.", messages: [], tools: [work] }, { model, convertToLlm }, slow, undefined, streamSimple);
  rec.write("slow_subscriber");
}
await loop("should_stop_after_turn", {
  turns: [calls(["c1", "echo", {}]), say("never requested")], tools: [echo("echo")],
  config: { shouldStopAfterTurn: () => true, getFollowUpMessages: async () => [user("ignored")] },
});
await loop("error_stop_reason", { turns: [fauxAssistantMessage([fauxToolCall("echo", {}, { id: "c1" })], { stopReason: "error", errorMessage: "upstream overloaded" })], tools: [echo("echo")] });

const steer = (agent) => [tool("steer", async () => { agent().steer(user("steer one")); agent().steer(user("steer two")); return { content: [{ type: "text", text: "queued" }] }; })];
await agentRun("steering_one_at_a_time", { turns: [calls(["c1", "steer", {}]), say("first"), say("second")], tools: steer });
await agentRun("steering_all", { turns: [calls(["c1", "steer", {}]), say("both")], tools: steer, options: { steeringMode: "all" } });
await agentRun("follow_up", { turns: [say("answer"), say("follow-up answer")], tools: () => [], before: (a) => a.followUp(user("and then?")), prompt: "question" });
await agentRun("abort_during_tools", {
  turns: [calls(["c1", "block", {}], ["c2", "echo", {}]), say("never streamed")],
  tools: (agent, rec) => [
    tool("block", async (_id, _p, signal) => {
      await rec.ended("c2");
      agent().abort();
      if (!signal.aborted) await new Promise((r) => signal.addEventListener("abort", r));
      throw new Error("context canceled"); // what a Go tool returns: ctx.Err()
    }),
    echo("echo"),
  ],
});
{
  faux.setResponses([say("continued")]);
  const rec = new Recorder();
  await runAgentLoopContinue({ systemPrompt: "", messages: [user("retry me")], tools: [] }, { model, convertToLlm }, rec.emit, undefined, streamSimple);
  rec.write("continue");
}
