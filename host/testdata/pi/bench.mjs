import { runAgentLoop } from "@mariozechner/pi-agent-core";
import { registerFauxProvider, fauxAssistantMessage, fauxToolCall, streamSimple } from "@mariozechner/pi-ai";
const faux = registerFauxProvider({ tokenSize: { min: 4, max: 4 } });
const model = faux.getModel();
const noop = { name: "noop", label: "noop", description: "", parameters: { type: "object", properties: { i: { type: "integer" } } }, execute: async () => ({ content: [{ type: "text", text: "ok" }] }) };
const turns = () => { const t = []; for (let i = 0; i < 20; i++) t.push(fauxAssistantMessage([1,2,3].map((n) => fauxToolCall("noop", { i: n }, { id: `t${i}${n}` })), { stopReason: "toolUse" })); t.push(fauxAssistantMessage("done")); return t; };
const convertToLlm = (ms) => ms;
async function once() { faux.setResponses(turns()); let n = 0; await runAgentLoop([{ role: "user", content: "go", timestamp: 1 }], { systemPrompt: "", messages: [], tools: [noop] }, { model, convertToLlm }, async () => { n++; }, undefined, streamSimple); return n; }
for (let i = 0; i < 50; i++) await once();
for (let r = 0; r < 3; r++) { const N = 300; let ev = 0; const t0 = process.hrtime.bigint(); for (let i = 0; i < N; i++) ev += await once(); const s = Number(process.hrtime.bigint() - t0) / 1e9; console.log(`pi: ${(s / N * 1e6 / 21).toFixed(1)} µs/turn, ${(ev / s).toFixed(0)} events/s`); }
