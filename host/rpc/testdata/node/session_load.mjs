// Loads a session file with pi-coding-agent's SessionManager and prints
// what pi sees: id, name and the messages of the current branch.
import { SessionManager } from "@mariozechner/pi-coding-agent";

const sm = SessionManager.open(process.argv[2]);
const ctx = sm.buildSessionContext();
console.log(JSON.stringify({ id: sm.getSessionId(), name: sm.getSessionName() ?? "", thinkingLevel: ctx.thinkingLevel, messages: ctx.messages }));
