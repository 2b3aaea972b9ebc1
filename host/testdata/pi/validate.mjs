// Runs pi-ai 0.73.1's validateToolArguments (what pi-agent-core's loop
// validates a tool call's arguments with) on generated cases
// (host/pivalidate_test.go): one {"schema", "args"} JSON object per line
// on stdin; for each, one line: {"ok": the validated arguments} or
// {"error": the thrown message}. TestValidationMatchesPi compares our
// Schema.ValidateArguments with it.
import { createInterface } from "node:readline";
import { validateToolArguments } from "@mariozechner/pi-ai";

const out = (s) => new Promise((resolve) => (process.stdout.write(s) ? resolve() : process.stdout.once("drain", resolve)));
for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  if (!line.trim()) continue;
  const { schema, args } = JSON.parse(line);
  let answer;
  try {
    answer = { ok: validateToolArguments({ name: "t", parameters: schema }, { type: "toolCall", id: "c1", name: "t", arguments: args }) };
  } catch (err) {
    answer = { error: err instanceof Error ? err.message : String(err) };
  }
  await out(JSON.stringify(answer) + "\n");
}
