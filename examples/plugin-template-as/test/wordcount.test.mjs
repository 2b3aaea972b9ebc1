// Runs the built plugin in the real host (the wasmagent binary: set
// WASMAGENT or put it on PATH); `npm test` builds it first.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Host, skipReason } from "@wasmagent/sdk/harness";

const wasm = new URL("../build/wordcount.wasm", import.meta.url).pathname;
const skip = skipReason();

test("the host accepts the description", { skip }, async () => {
  const d = await new Host(wasm).describe();
  assert.equal(d.name, "wordcount");
  assert.deepEqual(d.tools.map((t) => t.name), ["wordcount"]);
  assert.deepEqual(d.hooks, ["beforeToolCall"]);
});

test("wordcount counts", { skip }, async () => {
  const r = await new Host(wasm).execute("wordcount", { text: "two words\nand three more\n" });
  assert.equal(r.content[0].text, "2 lines, 5 words, 25 characters");
  assert.deepEqual(r.details, { lines: 2, words: 5, characters: 25 });
  const one = await new Host(wasm).execute("wordcount", { text: "hello" });
  assert.equal(one.content[0].text, "1 line, 1 word, 5 characters");
});

test("arguments are validated as the host does", { skip }, async () => {
  await assert.rejects(new Host(wasm).execute("wordcount", {}), /text/);
  await assert.rejects(new Host(wasm).execute("wordcount", { text: "x", extra: 1 }), /extra/);
});

test("the hook blocks long texts, with the limit from the configuration", { skip }, async () => {
  const host = new Host(wasm, { config: { maxChars: "5" } });
  assert.deepEqual(await host.beforeToolCall("wordcount", { text: "short" }), {});
  const d = await host.beforeToolCall("wordcount", { text: "too long" });
  assert.equal(d.block, true);
  assert.match(d.reason, /limit is 5/);
});
