// Times pi-coding-agent's SessionManager on one session file, as a resume
// does: open (read, parse every line, index) and build the context of
// the current branch. Prints {"mbPerSecond","msPerOpen","bytes"}.
// host/session's BenchmarkDecodeBesidePi runs it beside Decode + View on
// the same file: node session_bench.mjs FILE [SECONDS]
import { statSync } from "node:fs";
import { SessionManager } from "@mariozechner/pi-coding-agent";

const [file, seconds = "3"] = process.argv.slice(2);
const bytes = statSync(file).size;
const run = () => SessionManager.open(file).buildSessionContext().messages.length;
for (let i = 0; i < 5; i++) run(); // warm up the JIT
let n = 0;
const start = process.hrtime.bigint();
const until = start + BigInt(Math.round(Number(seconds) * 1e9));
while (process.hrtime.bigint() < until) {
  run();
  n++;
}
const ns = Number(process.hrtime.bigint() - start);
console.log(JSON.stringify({ mbPerSecond: (bytes * n) / (ns / 1e3), msPerOpen: ns / n / 1e6, bytes, opens: n }));
