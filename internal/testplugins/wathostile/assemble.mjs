// node assemble.mjs IN.wat OUT.wasm: wabt's wat2wasm, from npm (pinned).
import { readFileSync, writeFileSync } from "node:fs";
import initWabt from "wabt";

const [input, output] = process.argv.slice(2);
if (!input || !output) {
  console.error("usage: node assemble.mjs IN.wat OUT.wasm");
  process.exit(2);
}
const wabt = await initWabt();
const mod = wabt.parseWat(input, readFileSync(input, "utf8"));
mod.validate();
writeFileSync(output, mod.toBinary({}).buffer);
