// Loads a session file with pi-coding-agent's SessionManager and prints
// what pi sees: id, name and the messages of the current branch.
// pi-coding-agent's own SessionManager, from the file its index re-exports it
// from: the index loads the whole coding agent (about 2 s of CPU a
// process, most of a test's cost), this file only what the class needs.
import { SessionManager } from "./node_modules/@mariozechner/pi-coding-agent/dist/core/session-manager.js";

const sm = SessionManager.open(process.argv[2]);
const ctx = sm.buildSessionContext();
console.log(JSON.stringify({ id: sm.getSessionId(), name: sm.getSessionName() ?? "", thinkingLevel: ctx.thinkingLevel, messages: ctx.messages }));
