// Runs one tool call through pi-agent-core 0.73.1's loop per line of
// stdin, {"hook":"before"|"after","answer":"<JSON text>"}, with a hook
// that returns JSON.parse(answer); prints for each what came of it: the
// tool_execution_end's result and isError, the result message's
// content, details and isError, and the number of model calls (a
// terminating result makes one). host/wasmtool's TestHookAnswersMatchPi
// reads the same answers as a plugin's and compares.
import { createInterface } from "node:readline";
import { runAgentLoop } from "@mariozechner/pi-agent-core";
import { registerFauxProvider, fauxAssistantMessage } from "@mariozechner/pi-ai";

const faux = registerFauxProvider({ tokenSize: { min: 16, max: 16 } });
const model = faux.getModel();
const tool = {
  name: "echo",
  label: "echo",
  description: "test tool echo",
  parameters: { type: "object" },
  execute: async () => ({ content: [{ type: "text", text: "echoed" }], details: { n: 1 }, meta: "kept" }),
};

for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  if (!line.trim()) continue;
  const c = JSON.parse(line);
  const answer = JSON.parse(c.answer);
  let calls = 0;
  faux.setResponses([
    () => (calls++, fauxAssistantMessage([{ type: "toolCall", id: "c1", name: "echo", arguments: {} }], { stopReason: "toolUse" })),
    () => (calls++, fauxAssistantMessage([{ type: "text", text: "done" }])),
  ]);
  const out = { calls: 0 };
  const config = { model, convertToLlm: (ms) => ms };
  if (c.hook === "before") config.beforeToolCall = async () => answer;
  else config.afterToolCall = async () => answer;
  const emit = async (e) => {
    if (e.type === "tool_execution_end") out.end = { result: e.result, isError: e.isError };
    if (e.type === "message_end" && e.message.role === "toolResult") {
      const { content, details, isError } = e.message;
      out.message = { content, details, isError };
    }
  };
  try {
    await runAgentLoop([{ role: "user", content: [{ type: "text", text: "go" }], timestamp: 1 }],
      { systemPrompt: "", messages: [], tools: [tool] }, config, emit, new AbortController().signal);
  } catch (err) {
    out.error = String(err);
  }
  out.calls = calls;
  process.stdout.write(JSON.stringify(out) + "\n");
}
