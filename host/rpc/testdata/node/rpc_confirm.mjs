// Drives `wasmagent rpc` with pi-coding-agent's own RpcClient through a
// policy hook that asks before every "sleep" call (host/rpc/node_test.go,
// TestPiRpcClientConfirm): the question arrives as pi's
// extension_ui_request "confirm"; the first is confirmed, the second
// cancelled. Prints "ok" and exits 0, or prints what differed and exits 1.
// pi-coding-agent's own RpcClient, from the file its index re-exports it
// from: the index loads the whole coding agent (about 2 s of CPU a
// process, most of a test's cost), this file only what the class needs.
import { RpcClient } from "./node_modules/@mariozechner/pi-coding-agent/dist/modes/rpc/rpc-client.js";

const [shim, config] = process.argv.slice(2);
const client = new RpcClient({ cliPath: shim, args: ["--config", config] });

function check(cond, what, got) {
  if (!cond) throw new Error(`${what}: got ${JSON.stringify(got)}`);
}

// answerNext answers the next confirm request with fields. RpcClient has
// no call for extension_ui_response, so the line goes straight to the
// agent's stdin, as any client of pi's RPC mode writes it.
function answerNext(fields) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error("no extension_ui_request confirm within 20 s"));
    }, 20000);
    const off = client.onEvent((e) => {
      if (e.type === "extension_ui_request" && e.method === "confirm") {
        off();
        clearTimeout(timer);
        client.process.stdin.write(JSON.stringify({ type: "extension_ui_response", id: e.id, ...fields }) + "\n");
        resolve(e);
      }
    });
  });
}

async function run(prompt, answer) {
  const asked = answerNext(answer);
  const idle = client.waitForIdle(30000);
  await client.prompt(prompt);
  const req = await asked;
  await idle;
  const results = (await client.getMessages()).filter((m) => m.role === "toolResult");
  return { req, result: results[results.length - 1] };
}

try {
  await client.start();
  const yes = await run("first", { confirmed: true });
  check(typeof yes.req.id === "string" && yes.req.id.length > 0, "request id", yes.req);
  check(/Sleep now\?/.test(yes.req.title) && /^sleep /.test(yes.req.message) && yes.req.timeout > 0, "request", yes.req);
  check(yes.result.isError === false, "confirmed call", yes.result);
  const no = await run("second", { cancelled: true });
  check(no.req.id !== yes.req.id, "a new id", no.req);
  check(no.result.isError === true && /cancelled by the client/.test(no.result.content[0].text), "cancelled call", no.result);
  check((await client.getLastAssistantText()) === "declined", "last text", await client.getLastAssistantText());
  console.log("ok");
  await client.stop();
  process.exit(0);
} catch (e) {
  console.log(String(e?.stack ?? e));
  await client.stop();
  process.exit(1);
}
