// Drives `wasmagent rpc` with pi-coding-agent's own RpcClient against the
// scripted model of host/rpc/node_test.go. Prints "ok" and exits 0, or
// prints what differed and exits 1.
// pi-coding-agent's own RpcClient, from the file its index re-exports it
// from: the index loads the whole coding agent (about 2 s of CPU a
// process, most of a test's cost), this file only what the class needs.
import { RpcClient } from "./node_modules/@mariozechner/pi-coding-agent/dist/modes/rpc/rpc-client.js";

const [shim, config] = process.argv.slice(2);
const client = new RpcClient({ cliPath: shim, args: ["--config", config] });

function check(cond, what, got) {
  if (!cond) throw new Error(`${what}: got ${JSON.stringify(got)}`);
}

function waitFor(type) {
  return new Promise((resolve) => {
    const off = client.onEvent((e) => {
      if (e.type === type) {
        off();
        resolve(e);
      }
    });
  });
}

try {
  await client.start();
  const state = await client.getState();
  check(state.isStreaming === false && state.model?.id === "scripted-1", "initial state", state);
  const models = await client.getAvailableModels();
  check(models.length === 1 && models[0].provider === "scripted", "models", models);

  // Prompt; steer while the tool runs; queue a follow-up.
  const events = [];
  const off = client.onEvent((e) => events.push(e));
  const toolStarted = waitFor("tool_execution_start");
  const idle = client.waitForIdle(30000);
  await client.prompt("first");
  await toolStarted;
  await client.steer("steer now");
  await client.followUp("later");
  const busy = await client.getState();
  check(busy.isStreaming === true && busy.pendingMessageCount === 2, "state while working", busy);
  await idle;
  off();
  const roles = (await client.getMessages()).map((m) => m.role).join(",");
  check(roles === "user,assistant,toolResult,user,assistant,user,assistant", "roles", roles);
  check(events.some((e) => e.type === "queue_update"), "queue_update events", events.map((e) => e.type));
  check((await client.getLastAssistantText()) === "followed", "last text", await client.getLastAssistantText());

  // Abort while a long tool runs.
  const started = waitFor("tool_execution_start");
  const ended = client.waitForIdle(30000);
  await client.prompt("long one");
  await started;
  const t0 = Date.now();
  await client.abort();
  await ended;
  check(Date.now() - t0 < 4000, "abort took", Date.now() - t0);
  const after = await client.getState();
  check(after.isStreaming === false, "state after abort", after);

  await client.setSessionName("driven by RpcClient");
  const named = await client.getState();
  check(named.sessionName === "driven by RpcClient" && named.sessionFile, "named state", named);
  const stats = await client.getSessionStats();
  check(stats.userMessages === 4 && stats.toolCalls === 2, "stats", stats);
  let refused = false;
  try {
    await client.compact();
  } catch (e) {
    refused = /not supported/.test(e.message);
  }
  check(refused, "compact refused", refused);
  console.log("ok");
  await client.stop();
  process.exit(0);
} catch (e) {
  console.log(String(e?.stack ?? e));
  await client.stop();
  process.exit(1);
}
