// Loads session files with pi-coding-agent's SessionManager, one path a
// line on stdin, and prints for each one JSON line: what pi sees (the
// messages of the current branch, its thinking level, the session's
// name), the file as pi left it (it rewrites a file of an older
// version) and the file as pi writes all of it back. host/session's TestSessionMatchesPiGenerated loads the same
// files with wasmagent and compares.
import { createInterface } from "node:readline";
import { readFileSync } from "node:fs";
// pi-coding-agent's own SessionManager, from the file its index re-exports it
// from: the index loads the whole coding agent (about 2 s of CPU a
// process, most of a test's cost), this file only what the class needs.
import { SessionManager } from "./node_modules/@mariozechner/pi-coding-agent/dist/core/session-manager.js";

for await (const path of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  if (!path) continue;
  let out;
  try {
    const sm = SessionManager.open(path);
    const ctx = sm.buildSessionContext();
    out = { name: sm.getSessionName() ?? "", thinkingLevel: ctx.thinkingLevel, messages: ctx.messages, file: readFileSync(path, "utf8") };
    // Every entry written back, as pi writes a file it rewrites (its
    // own _rewriteFile, which an upgrade calls): JSON.stringify's bytes.
    sm._rewriteFile();
    out.rewritten = readFileSync(path, "utf8");
  } catch (err) {
    out = { error: String(err?.stack ?? err) };
  }
  process.stdout.write(JSON.stringify(out) + "\n");
}
