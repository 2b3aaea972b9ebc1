// A scenario run by the official TypeScript SDK client against wasmagent's
// MCP server, for host/mcp's Node tests. Usage:
//   node client.mjs stdio COMMAND ARGS...    (spawns the server)
//   node client.mjs http URL                 (MCP_TOKEN: the bearer token)
// It prints one JSON object: what the client saw.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [mode, target, ...rest] = process.argv.slice(2);
const transport = mode === "stdio"
  ? new StdioClientTransport({ command: target, args: rest, stderr: "inherit" })
  : new StreamableHTTPClientTransport(new URL(target), {
      requestInit: { headers: { Authorization: `Bearer ${process.env.MCP_TOKEN ?? ""}` } },
    });
// Progress as the transport received it, in order. The SDK's onprogress
// may miss the last ones: it runs notification handlers a microtask late
// and forgets a request's progress handler as soon as its response is
// read, so progress read in the same chunk as the response is dropped.
const wireProgress = [];
transport.onmessage = (m) => {
  if (m.method === "notifications/progress") wireProgress.push(m.params.message);
};
const client = new Client({ name: "wasmagent-node-test", version: "1.0.0" });
await client.connect(transport);

const text = (r) => r.content.filter((c) => c.type === "text").map((c) => c.text).join("");
const out = {};

const { tools } = await client.listTools();
out.tools = Object.fromEntries(tools.map((t) => [t.name, { annotations: t.annotations ?? null, schema: t.inputSchema }]));

// A parallel tool and a sequential one, called at once.
const [par, seq] = await Promise.all([
  client.callTool({ name: "sleep", arguments: { ms: 20 } }),
  client.callTool({ name: "write", arguments: { path: "/work/out.txt", text: "hello" } }),
]);
out.concurrent = { parallel: text(par), sequential: text(seq), errors: [!!par.isError, !!seq.isError] };

// Progress: the client sends a token when it listens.
const progress = [];
const p = await client.callTool({ name: "updates", arguments: { n: 3 } }, undefined, {
  onprogress: (pr) => progress.push(pr.message ?? String(pr.progress)),
});
out.progress = { messages: progress, wire: wireProgress, result: text(p) };

// Cancellation: abort a call that never returns.
const ac = new AbortController();
setTimeout(() => ac.abort(), 300);
try {
  await client.callTool({ name: "spin", arguments: {} }, undefined, { signal: ac.signal });
  out.cancel = "returned";
} catch (e) {
  out.cancel = ac.signal.aborted ? "aborted" : `error: ${e}`;
}

// A policy block and a redacted result.
const blocked = await client.callTool({ name: "say", arguments: { text: "hook:fail" } });
out.blocked = { text: text(blocked), isError: !!blocked.isError };
const redacted = await client.callTool({ name: "say", arguments: { text: "key AKIAIOSFODNN7EXAMPLE" } });
out.redacted = { text: text(redacted), isError: !!redacted.isError };

// Unknown tool: an error, and the session goes on.
try {
  const r = await client.callTool({ name: "nope", arguments: {} });
  out.unknown = { isError: !!r.isError, text: text(r) };
} catch (e) {
  out.unknown = { error: String(e) };
}
out.after = text(await client.callTool({ name: "say", arguments: { text: "after" } }));

console.log(JSON.stringify(out));
await client.close();
