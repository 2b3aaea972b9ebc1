// Drives `wasmagent rpc` with pi-coding-agent's own RpcClient through a
// large streamed answer (host/rpc/node_test.go, TestPiRpcClientBigAnswer):
// within the [events] byte budget, what pi's client reads of
// message_update (message, partial, text deltas) and message_end still
// makes up the whole answer. Prints "ok" and a count, or what differed
// and exits 1.
// pi-coding-agent's own RpcClient, from the file its index re-exports it
// from: the index loads the whole coding agent (about 2 s of CPU a
// process, most of a test's cost), this file only what the class needs.
import { RpcClient } from "./node_modules/@mariozechner/pi-coding-agent/dist/modes/rpc/rpc-client.js";

const [shim, config, size] = process.argv.slice(2);
const client = new RpcClient({ cliPath: shim, args: ["--config", config, "--no-session"] });

function check(cond, what, got) {
  if (!cond) throw new Error(`${what}: got ${JSON.stringify(got).slice(0, 200)}`);
}

const textOf = (m) => (m?.content?.[0]?.text ?? "");

try {
  await client.start();
  let updates = 0;
  let bytes = 0;
  let deltas = "";
  let prev = "";
  client.onEvent((e) => {
    if (e.type !== "message_update") return;
    updates++;
    bytes += JSON.stringify(e).length + 1;
    const text = textOf(e.message);
    check(text.length >= prev.length && text.startsWith(prev), "an update's message grows from the last", text.length);
    check(textOf(e.assistantMessageEvent.partial) === text, "partial and message agree", text.length);
    prev = text;
    if (e.assistantMessageEvent.type === "text_delta") deltas += e.assistantMessageEvent.delta;
  });
  const events = await client.promptAndWait("go", undefined, 60000);
  const end = events.filter((e) => e.type === "message_end" && e.message.role === "assistant").pop();
  const final = textOf(end?.message);
  check(final.length === Number(size), "message_end's text length", final.length);
  check(prev === "" || final.startsWith(prev), "the last update is a state of the final message", prev.length);
  check(deltas === final, "the text deltas concatenate to the answer", deltas.length);
  check((await client.getLastAssistantText()) === final, "getLastAssistantText", "");
  console.log(`ok ${updates} updates, ${bytes} bytes`);
  await client.stop();
  process.exit(0);
} catch (e) {
  console.log(String(e?.stack ?? e));
  await client.stop();
  process.exit(1);
}
