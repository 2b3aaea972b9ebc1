// Runs generated scenarios (host/pidiff_scenario_test.go) on pi-agent-core
// 0.73.1 with pi-ai's faux provider, in one process: one scenario as JSON per
// line on stdin; for each, every event as JSON.stringify gives it, one per
// line, then the line "---". TestMatchesPiGenerated runs the same scenarios
// on our loop and compares. The format is described in docs/loop.md 17.
import { createInterface } from "node:readline";
import { Agent, runAgentLoop, runAgentLoopContinue } from "@mariozechner/pi-agent-core";
import { registerFauxProvider, fauxAssistantMessage, streamSimple, createAssistantMessageEventStream } from "@mariozechner/pi-ai";

// One faux provider per token size a scenario may ask for.
const fauxes = new Map([1, 4, 16].map((n) => [n, registerFauxProvider({ tokenSize: { min: n, max: n } })]));
const user = (text) => ({ role: "user", content: [{ type: "text", text }], timestamp: 1 });
const llmRoles = ["user", "assistant", "toolResult"];
// A text starting "@note " is a custom message of role "note"; one
// starting "@image " a user message with an image after the text; one
// starting "@assistant " an assistant message, "@result " a result of h1;
// one starting "@json " the message given as JSON.
const zeroUsage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
const image = { type: "image", data: "aGk=", mimeType: "image/png" };
function message(text) {
  if (text.startsWith("@json ")) return JSON.parse(text.slice(6));
  if (text.startsWith("@note ")) return { role: "note", text: text.slice(6), timestamp: 1 };
  if (text.startsWith("@assistant ")) return { role: "assistant", content: [{ type: "text", text: text.slice(11) }], api: "faux", provider: "faux", model: "faux-1", usage: zeroUsage, stopReason: "stop", timestamp: 1 };
  if (text.startsWith("@result ")) return { role: "toolResult", toolCallId: "h1", toolName: "echo", content: [{ type: "text", text: text.slice(8) }], isError: false, timestamp: 1 };
  if (text.startsWith("@image ")) return { role: "user", content: [{ type: "text", text: text.slice(7) }, image], timestamp: 1 };
  return user(text);
}
const convertToLlm = (sc) => {
  let calls = 0;
  return (ms) => {
    if (++calls === sc.convertFail) throw new Error("convert failed");
    return ms.flatMap((m) => (m.role === "note" && sc.convertNotes ? [user("[note] " + m.text)] : llmRoles.includes(m.role) ? [m] : []));
  };
};

// describe names an event as host/hosttest.Describe does.
function describe(e) {
  if (e.type.startsWith("tool_execution_")) return `${e.type} ${e.toolCallId}`;
  if (e.type === "message_start" || e.type === "message_end") {
    return `${e.type} ${e.message.role}${e.message.role === "toolResult" ? " " + e.message.toolCallId : ""}`;
  }
  if (e.type === "message_update") return `${e.type} ${e.assistantMessageEvent.type}`;
  return e.type;
}

// The scenario's model turns as faux responses; a "throw" turn is a
// response function that throws.
function responses(sc) {
  return sc.turns.filter((t) => !t.raw).map((t) => {
    if (t.throw) return () => { throw new Error(t.throw); };
    const message = (content) => fauxAssistantMessage(content, { stopReason: t.stopReason, errorMessage: t.errorMessage, responseId: t.responseId });
    if (t.digest) return (context, options) => message([...(t.content ?? []), { type: "text", text: digest(context, options) }]);
    return message(t.content ?? []);
  });
}

// roles names a list of messages (piRoles in Go).
const roles = (ms) => ms.map((m) => m.role + (m.role === "toolResult" ? " " + m.toolCallId : "")).join(",");
// seenBy describes what a hook was told besides the arguments (piSeenBy).
// signal is the one the hook was given: aborted or not.
const seenBy = ({ assistantMessage, context }, signal) =>
  `ctx=${roles(context.messages)} system=${context.systemPrompt} tools=${(context.tools ?? []).map((t) => t.name).join(",")} msg=${assistantMessage.stopReason}/${assistantMessage.content.length} aborted=${signal?.aborted ?? "none"}`;
// streamFn streams the scenario's raw turns event by event (piRawEvent in
// Go) and leaves the others to the faux provider. A raw turn's result is
// its first done or error event's message, else the turn's own.
function rawStreamFn(sc) {
  let n = 0;
  return (model, context, options) => {
    const t = sc.turns[n++];
    if (!t?.raw) return streamSimple(model, context, options);
    const fill = (m) => m && { ...m, api: model.api, provider: model.provider, model: model.id, usage: zeroUsage, timestamp: Date.now() };
    const stream = createAssistantMessageEventStream();
    for (const e of t.raw) stream.push({ ...e, ...(e.partial ? { partial: fill(e.partial) } : {}), ...(e.message ? { message: fill(e.message) } : {}), ...(e.error ? { error: fill(e.error) } : {}) });
    const end = t.raw.find((e) => (e.type === "done" && e.message) || (e.type === "error" && e.error));
    stream.end(fill(end ? end.message ?? end.error : { role: "assistant", content: t.content ?? [], stopReason: t.stopReason, ...(t.errorMessage ? { errorMessage: t.errorMessage } : {}) }));
    return stream;
  };
}

const texts = (content) => (typeof content === "string" ? content : content.map((b) => (b.type === "text" ? b.text : `[${b.type}]`)).join("|"));

const validationLines = /^(Validation failed for tool "[^"]*":\n)[\s\S]*(\n\nReceived arguments:\n[\s\S]*)$/;

// digest describes the request the model received (piDigest in Go).
function digest(context, options) {
  const messages = context.messages.map((m) => {
    if (m.role === "user") return "u:" + texts(m.content);
    // The per-error lines of validation messages are the validator's words (docs/loop.md 15.4).
    // isError as providers read it (a given result may have none).
    if (m.role === "toolResult") return `r:${m.toolCallId}:${m.toolName}:${!!m.isError}:${texts(m.content).replace(validationLines, "$1  - …$2")}`;
    const blocks = m.content.map((b) => (b.type === "toolCall" ? `call ${b.id} ${b.name} ${JSON.stringify(b.arguments)}` : b.type === "text" ? "text " + b.text : "thinking " + b.thinking));
    return `a:${m.stopReason}:${m.errorMessage ?? ""}:${blocks.join("|")}`;
  });
  return `seen: system=${context.systemPrompt} reasoning=${options?.reasoning ?? ""} tools=${(context.tools ?? []).map((t) => t.name).join(",")} messages=${messages.join(" / ")}`;
}

// prepareArguments of a tool with "prepare": aborts the run on "abort",
// renames "file" to "path", fails on "x" (Tool.Prepare in Go).
function prepareArguments(args, abort) {
  if (args && typeof args === "object" && "abort" in args) abort();
  if (args && typeof args === "object" && "x" in args) throw new Error("cannot prepare x");
  return args && typeof args === "object" && "file" in args ? { path: args.file } : args;
}

// history is an earlier exchange with echo (piHistory in Go).
const history = (sc) => (sc.history ? [
  user("earlier"),
  { role: "assistant", content: [{ type: "toolCall", id: "h1", name: "echo", arguments: {} }], api: "faux", provider: "faux", model: "faux-1",
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    stopReason: "toolUse", timestamp: 1 },
  { role: "toolResult", toolCallId: "h1", toolName: "echo", content: [{ type: "text", text: "earlier result" }], isError: false, timestamp: 1 },
] : []);

async function run(sc) {
  const lines = [];
  const waiters = [];
  const seen = new Map();
  let abort = () => {};
  const steerQ = [];
  const followQ = [];
  const drain = (q, mode) => (mode === "all" ? q.splice(0) : q.splice(0, 1));
  let agent;
  // A busy Agent's prompt or continue fails; its error is recorded after
  // the event it was called at.
  const busy = (p) => p.catch((err) => lines.push(JSON.stringify({ type: "harness_error", message: err.message })));
  // listener2 is the second listener that the actions subscribe and
  // unsubscribe (a Set: subscribing it twice keeps one).
  let unsubscribe2 = () => {};
  const listener2 = (e) => { lines.push(JSON.stringify({ type: "harness_listener", event: describe(e) })); };
  const actions = {
    clearSteering: () => agent.clearSteeringQueue(),
    clearFollowUp: () => agent.clearFollowUpQueue(),
    clearAll: () => agent.clearAllQueues(),
    reset: () => agent.reset(),
    steeringMode: (text) => { agent.steeringMode = text; },
    followUpMode: (text) => { agent.followUpMode = text; },
    systemPrompt: (text) => { agent.state.systemPrompt = text; },
    thinking: (text) => { agent.state.thinkingLevel = text; },
    dropTool: () => { agent.state.tools = agent.state.tools.slice(0, -1); },
    appendMessage: (text) => { agent.state.messages = [...agent.state.messages, message(text)]; },
    subscribe: () => { unsubscribe2 = agent.subscribe(listener2); },
    unsubscribe: () => unsubscribe2(),
  };
  const enqueue = (q) => {
    const m = message(q.text ?? "");
    if (q.kind === "prompt" || q.kind === "continue") {
      if (agent) busy(q.kind === "prompt" ? agent.prompt(m) : agent.continue());
      return;
    }
    if (actions[q.kind]) {
      if (agent) actions[q.kind](q.text ?? "");
      return;
    }
    if (q.kind === "steer") agent ? agent.steer(m) : steerQ.push(m);
    else agent ? agent.followUp(m) : followQ.push(m);
  };

  // Actions due at an event run before it is recorded, so that a tool
  // waiting for that event sees them done (as in the Go harness).
  const emit = async (e, signal) => {
    const d = describe(e);
    const n = (seen.get(d) ?? 0) + 1;
    seen.set(d, n);
    for (const q of sc.queue ?? []) if (q.on === d && q.nth === n) enqueue(q);
    if (sc.abortAt && sc.abortAt.on === d && sc.abortAt.nth === n) abort();
    lines.push(JSON.stringify(e));
    // Not at an update: pi delivers it inside onUpdate, we after it, when
    // the tool may have aborted since (docs/loop.md 17.2).
    if (sc.state) recordState(false, e.type === "tool_execution_update" ? undefined : signal);
    for (const w of waiters.splice(0)) w(e);
    if (sc.failAt && sc.failAt.on === d && sc.failAt.nth === n) throw new Error("listener failed");
  };
  // ended waits for the end of call id, at most 20 s (as the Go harness):
  // a scenario that cannot finish fails with a message, not a hang.
  const ended = (id) => new Promise((resolve, reject) => {
    if (lines.some((l) => l.includes(`"tool_execution_end","toolCallId":${JSON.stringify(id)}`))) return resolve();
    const timer = setTimeout(() => reject(new Error("timed out waiting for " + id)), 20000);
    const check = (e) => {
      if (e.type !== "tool_execution_end" || e.toolCallId !== id) return waiters.push(check);
      clearTimeout(timer);
      resolve();
    };
    waiters.push(check);
  });

  const tools = (sc.tools ?? []).map((t) => ({
    name: t.name,
    label: t.name,
    description: "test tool " + t.name,
    parameters: t.parameters ?? { type: "object" },
    ...(t.sequential ? { executionMode: "sequential" } : {}),
    ...(t.prepare ? { prepareArguments: (args) => prepareArguments(args, () => abort()) } : {}),
    execute: async (id, args, signal, onUpdate) => {
      const b = sc.calls?.[id] ?? {};
      for (const w of b.wait ?? []) await ended(w);
      for (const u of b.updates ?? []) onUpdate(u);
      if (b.abort) {
        abort();
        if (!signal.aborted) await new Promise((r) => signal.addEventListener("abort", r));
        throw new Error("context canceled"); // what a Go tool returns: ctx.Err()
      }
      if (b.throw !== undefined) throw new Error(b.throw);
      const r = { content: b.empty ? [] : [{ type: "text", text: b.text ?? JSON.stringify(args) }] };
      if (b.image) r.content.push(image);
      if (b.details !== undefined) r.details = b.details;
      if (b.terminate !== undefined) r.terminate = b.terminate;
      Object.assign(r, b.extra ?? {});
      return r;
    },
  }));
  const hooks = {};
  if (sc.convertNotes || sc.convertFail) hooks.convertToLlm = convertToLlm(sc);
  if (sc.keepLast || sc.transformFail) {
    let transforms = 0;
    hooks.transformContext = async (ms) => {
      if (++transforms === sc.transformFail) throw new Error("transform failed");
      return sc.keepLast ? ms.slice(-sc.keepLast) : ms;
    };
  }
  if (sc.beforeHook) {
    hooks.beforeToolCall = async ({ toolCall, args, ...rest }, signal) => {
      const h = sc.calls?.[toolCall.id]?.before;
      if (!h) return undefined;
      if (h.abort) abort();
      if (h.throw !== undefined) throw new Error(h.throw);
      const reason = h.echo ? `args ${JSON.stringify(args)} ${seenBy(rest, signal)}` : h.reason;
      return { block: h.block ?? false, ...(reason !== undefined ? { reason } : {}) };
    };
  }
  if (sc.afterHook) {
    hooks.afterToolCall = async ({ toolCall, args, result, isError, ...rest }, signal) => {
      const h = sc.calls?.[toolCall.id]?.after;
      if (!h) return undefined;
      if (h.abort) abort();
      if (h.throw !== undefined) throw new Error(h.throw);
      const r = {};
      if (h.echo) r.content = [{ type: "text", text: `saw ${JSON.stringify(args)} ${isError} ${texts(result.content)} ${JSON.stringify(result.details ?? null)} ${seenBy(rest, signal)} result=${JSON.stringify(result)}` }];
      if (h.content !== undefined) r.content = h.content.map((text) => ({ type: "text", text }));
      if (h.details !== undefined) r.details = h.details;
      if (h.isError !== undefined) r.isError = h.isError;
      if (h.terminate !== undefined) r.terminate = h.terminate;
      return r;
    };
  }

  // The Agent's state, as piStateLine in Go.
  // After a call of the API (full), the whole transcript too.
  // signal: the listener's (after an event), else none.
  const recordState = (full, signal) => {
    if (!agent) return;
    const s = agent.state;
    lines.push(JSON.stringify({
      type: "harness_state", ...(signal ? { aborted: signal.aborted } : {}), streaming: s.isStreaming, current: s.streamingMessage?.role ?? null, pending: [...s.pendingToolCalls],
      error: s.errorMessage ?? null, messages: roles(s.messages),
      queued: agent.hasQueuedMessages(), system: s.systemPrompt, thinking: s.thinkingLevel, tools: s.tools.map((t) => t.name).join(","),
      ...(full ? { transcript: s.messages } : {}),
    }));
  };
  const faux = fauxes.get(sc.chunkTokens);
  if (!faux) throw new Error(`chunkTokens ${sc.chunkTokens}: want 1, 4 or 16`);
  const model = faux.getModel();
  faux.setResponses(responses(sc));
  const record = async (f) => {
    try {
      await f();
    } catch (err) {
      lines.push(JSON.stringify({ type: "harness_error", message: err instanceof Error ? err.message : String(err) }));
    }
  };
  if (sc.agent) {
    agent = new Agent({
      initialState: { systemPrompt: "You are a test.", ...(sc.noModel ? {} : { model }), tools, messages: history(sc), ...(sc.thinkingLevel ? { thinkingLevel: sc.thinkingLevel } : {}) },
      ...hooks,
      ...(sc.toolExecution ? { toolExecution: sc.toolExecution } : {}),
      ...(sc.steeringMode ? { steeringMode: sc.steeringMode } : {}),
      ...(sc.followUpMode ? { followUpMode: sc.followUpMode } : {}),
      // Without a model, pi-ai finds no provider for the placeholder one.
      ...(sc.noModel ? {} : { streamFn: rawStreamFn(sc) }),
    });
    abort = () => agent.abort();
    agent.subscribe((e, signal) => emit(e, signal));
    for (const q of sc.queue ?? []) if (q.on === "") enqueue(q);
    if (sc.abortAt?.on === "") abort();
    const call = async (f) => {
      await record(f);
      if (sc.state) recordState(true);
    };
    // promptText: the one prompt as prompt(text) (or prompt(text, images)).
    const first = message(sc.prompts[0] ?? "");
    if (sc.promptText) await call(() => agent.prompt(first.content[0].text, first.content.slice(1)));
    else await call(() => agent.prompt(sc.prompts.map(message)));
    if (sc.continue) await call(() => agent.continue());
    if (sc.then) await call(() => agent.prompt(sc.then.map(message)));
  } else {
    const controller = new AbortController();
    abort = () => controller.abort();
    for (const q of sc.queue ?? []) if (q.on === "") enqueue(q);
    if (sc.abortAt?.on === "") abort();
    let turns = 0;
    const config = {
      model,
      convertToLlm: convertToLlm(sc),
      ...(sc.thinkingLevel ? { reasoning: sc.thinkingLevel } : {}),
      ...hooks,
      ...(sc.toolExecution ? { toolExecution: sc.toolExecution } : {}),
      getSteeringMessages: async () => drain(steerQ, sc.steeringMode),
      getFollowUpMessages: async () => drain(followQ, sc.followUpMode),
      ...(sc.stopAfterTurn ? { shouldStopAfterTurn: () => ++turns === sc.stopAfterTurn } : {}),
    };
    const context = { systemPrompt: "You are a test.", messages: history(sc), tools };
    if (sc.continue) {
      context.messages = [...context.messages, ...sc.prompts.map(message)];
      await record(() => runAgentLoopContinue(context, config, emit, controller.signal, rawStreamFn(sc)));
    } else {
      await record(() => runAgentLoop(sc.prompts.map(message), context, config, emit, controller.signal, rawStreamFn(sc)));
    }
  }
  return lines;
}

const out = (s) => new Promise((resolve) => (process.stdout.write(s) ? resolve() : process.stdout.once("drain", resolve)));
for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  if (!line.trim()) continue;
  let lines;
  try {
    lines = await run(JSON.parse(line));
  } catch (err) {
    lines = [JSON.stringify({ type: "harness_error", message: "diff.mjs: " + (err?.stack ?? String(err)) })];
  }
  await out(lines.join("\n") + (lines.length ? "\n" : "") + "---\n");
}
