// Reads JSON strings (one a line) on stdin and writes, for each, pi-ai's
// parseStreamingJson of it as JSON (a line), for partialjson_test.go.
// argv[2]: the node_modules directory holding @mariozechner/pi-ai.
import { createInterface } from "node:readline";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const mod = await import(pathToFileURL(join(process.argv[2], "@mariozechner/pi-ai/dist/utils/json-parse.js")).href);
const out = [];
for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  if (line === "") continue;
  out.push(JSON.stringify(mod.parseStreamingJson(JSON.parse(line)) ?? null));
}
process.stdout.write(out.join("\n") + "\n");
