// The smallest complete wasmagent plugin in AssemblyScript: one tool and
// one beforeToolCall hook. Copy this directory, rename things, and build
// it with `npm run build` (build/wordcount.wasm).
import {
  setInfo, registerTool, registerBeforeToolCall, needConfig,
  Tool, Call, Value, Result, BeforeInput, BeforeOutput,
} from "@wasmagent/sdk/assembly";
// The SDK owns the plugin's exports (describe, execute, the hooks).
export * from "@wasmagent/sdk/assembly/exports";

setInfo("wordcount", "0.1.0");
needConfig("maxChars", "the longest text any tool may be given (default 100000)", true);

// The JSON Schema the model sees; the host validates arguments against it
// before the tool runs.
registerTool(new Tool("wordcount", "Counts the lines, words and characters of a text.",
  `{"type":"object","properties":{"text":{"type":"string","description":"the text to count"}},"required":["text"],"additionalProperties":false}`,
  wordcount));

// The hook sees every call of every tool, before it runs.
registerBeforeToolCall(limitText);

function wordcount(c: Call, args: Value): Result {
  const text = args.getString("text");
  let lines = 0, words = 0, chars = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch == 0x0a) lines++;
    const space = ch == 0x20 || (ch >= 0x09 && ch <= 0x0d);
    if (!space && !inWord) words++;
    inWord = !space;
    if (ch < 0xdc00 || ch >= 0xe000) chars++; // one per code point
  }
  if (text.length > 0 && text.charCodeAt(text.length - 1) != 0x0a) lines++;
  c.log(2, "counted " + count(chars, "character"));
  const details = Value.object().setInteger("lines", lines).setInteger("words", words).setInteger("characters", chars);
  return Result.text(count(lines, "line") + ", " + count(words, "word") + ", " + count(chars, "character"))
    .withDetails(details);
}

// count is n and noun, in the plural unless n is 1: "1 line", "2 lines".
function count(n: i32, noun: string): string {
  return n.toString() + " " + noun + (n == 1 ? "" : "s");
}

function limitText(c: Call, in_: BeforeInput): BeforeOutput {
  const max = c.config("maxChars");
  const limit = max !== null ? I32.parseInt(max) : 100000;
  const text = in_.args.getString("text");
  if (text.length > limit) {
    return BeforeOutput.block("the text is " + count(text.length, "character") + " long; the limit is " + limit.toString());
  }
  return BeforeOutput.allow();
}
