// Writes host/session/testdata/pi-written.jsonl with pi-coding-agent's own
// SessionManager: a tool call and its result, a branch, a name and a
// thinking level. Run by `make pi-session-fixture`.
// pi-coding-agent's own SessionManager, from the file its index re-exports it
// from: the index loads the whole coding agent (about 2 s of CPU a
// process, most of a test's cost), this file only what the class needs.
import { SessionManager } from "./node_modules/@mariozechner/pi-coding-agent/dist/core/session-manager.js";
import { mkdtempSync, renameSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";

const out = process.argv[2];
const dir = mkdtempSync(join(tmpdir(), "pi-fixture-"));
const sm = SessionManager.create("/home/user/project", dir);
const usage = { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0.001 } };
const t = 1764770400000;
sm.appendThinkingLevelChange("low");
const first = sm.appendMessage({ role: "user", content: "What is in notes.txt?", timestamp: t });
sm.appendMessage({
  role: "assistant", api: "openai-completions", provider: "openai", model: "gpt-4o", usage, stopReason: "toolUse", timestamp: t + 1,
  content: [{ type: "thinking", thinking: "Read it." }, { type: "toolCall", id: "call_1", name: "read", arguments: { path: "notes.txt" } }],
});
sm.appendMessage({ role: "toolResult", toolCallId: "call_1", toolName: "read", content: [{ type: "text", text: "buy milk" }], isError: false, timestamp: t + 2 });
sm.appendMessage({ role: "assistant", api: "openai-completions", provider: "openai", model: "gpt-4o", usage, stopReason: "stop", timestamp: t + 3, content: [{ type: "text", text: "It says: buy milk." }] });
// A branch: back to the first prompt's answer point, another question.
sm.branch(first);
sm.appendMessage({ role: "user", content: [{ type: "text", text: "Never mind: say hi." }], timestamp: t + 4 });
sm.appendMessage({ role: "assistant", api: "openai-completions", provider: "openai", model: "gpt-4o", usage, stopReason: "stop", timestamp: t + 5, content: [{ type: "text", text: "hi" }] });
sm.appendSessionInfo("written by pi");
renameSync(sm.getSessionFile(), out);
console.log(readdirSync(dir).length === 0 ? "wrote " + out : "left files in " + dir);
