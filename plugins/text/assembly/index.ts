// Plugin text: count, slice, search and diff text given as arguments.
import { setInfo, registerTool, Tool, Call, Value, Result } from "@wasmagent/sdk/assembly";
import { splitLines, bare, codePoints, words } from "./lines";
import { unifiedDiff } from "./diff";
import { count as counted } from "./words";
export * from "@wasmagent/sdk/assembly/exports";

setInfo("text", "0.1.0");

registerTool(new Tool("count",
  "Counts the lines, words, characters (Unicode code points) and UTF-8 bytes of a text.",
  `{"type":"object","properties":{"text":{"type":"string","description":"the text to count"}},"required":["text"],"additionalProperties":false}`,
  count).withLabel("Count text"));

registerTool(new Tool("lines",
  "Returns lines start to end (1-based, inclusive) of a text. Negative numbers count from the last line (-1 is the last).",
  `{"type":"object","properties":{"text":{"type":"string"},"start":{"type":"integer","description":"first line, 1-based; negative counts from the end (default 1)"},"end":{"type":"integer","description":"last line, inclusive; negative counts from the end (default -1, the last)"},"numbered":{"type":"boolean","description":"prefix each line with its number"}},"required":["text"],"additionalProperties":false}`,
  lines).withLabel("Slice lines"));

registerTool(new Tool("find",
  "Finds a substring (no regular expressions) in a text and lists the lines that contain it, with line and column numbers.",
  `{"type":"object","properties":{"text":{"type":"string"},"query":{"type":"string","minLength":1},"ignoreCase":{"type":"boolean","description":"match regardless of case"},"maxResults":{"type":"integer","minimum":1,"maximum":10000,"description":"stop after this many matches (default 100)"}},"required":["text","query"],"additionalProperties":false}`,
  find).withLabel("Find in text"));

registerTool(new Tool("diff",
  "Compares two texts line by line and returns a unified diff (empty when they are equal).",
  `{"type":"object","properties":{"a":{"type":"string","description":"the old text"},"b":{"type":"string","description":"the new text"},"aName":{"type":"string","description":"the old text's name in the header (default a)"},"bName":{"type":"string","description":"the new text's name in the header (default b)"},"context":{"type":"integer","minimum":0,"maximum":1000,"description":"lines of context around each change (default 3)"}},"required":["a","b"],"additionalProperties":false}`,
  diff).withLabel("Diff texts"));

function count(c: Call, args: Value): Result {
  const text = args.getString("text");
  const ls = splitLines(text).length;
  const ws = words(text);
  const cs = codePoints(text);
  const bs = String.UTF8.byteLength(text);
  const d = Value.object().setInteger("lines", ls).setInteger("words", ws).setInteger("characters", cs).setInteger("bytes", bs);
  return Result.text(counted(ls, "line") + ", " + counted(ws, "word") + ", " + counted(cs, "character") + ", " + counted(bs, "byte")).withDetails(d);
}

/** A 1-based line number from n (negative counts from the end of total). */
function lineNumber(n: i64, total: i32): i64 {
  return n < 0 ? <i64>total + 1 + n : n;
}

function lines(c: Call, args: Value): Result {
  const all = splitLines(args.getString("text"));
  const total = all.length;
  const start = lineNumber(args.getInteger("start", 1), total);
  const end = lineNumber(args.getInteger("end", -1), total);
  if (start < 1 || start > total) {
    return Result.error("start " + args.getInteger("start", 1).toString() + " is outside the text's " + counted(total, "line"));
  }
  if (end < start || end > total) {
    return Result.error("end " + args.getInteger("end", -1).toString() + " is before start or after the text's " + counted(total, "line"));
  }
  const numbered = args.getBool("numbered");
  const parts = new Array<string>();
  for (let i = <i32>start; i <= <i32>end; i++) {
    if (numbered) parts.push(i.toString() + "\t");
    parts.push(all[i - 1]);
  }
  const d = Value.object().setInteger("start", start).setInteger("end", end).setInteger("total", total);
  return Result.text(parts.join("")).withDetails(d);
}

function find(c: Call, args: Value): Result {
  const ignoreCase = args.getBool("ignoreCase");
  let query = args.getString("query");
  if (query.length == 0) return Result.error("query is empty");
  if (ignoreCase) query = query.toLowerCase();
  const maxResults = <i32>args.getInteger("maxResults", 100);
  const all = splitLines(args.getString("text"));
  const out = new Array<string>();
  const matches = Value.array();
  let n = 0;
  let truncated = false;
  for (let i = 0; i < all.length && !truncated; i++) {
    const line = bare(all[i]);
    const hay = ignoreCase ? line.toLowerCase() : line;
    let from = 0;
    let first = true;
    while (true) {
      const at = hay.indexOf(query, from);
      if (at < 0) break;
      if (n == maxResults) { truncated = true; break; }
      n++;
      // Columns count code points, 1-based, in the line as given.
      const col = codePoints(line.substring(0, ignoreCase ? originalIndex(line, at) : at)) + 1;
      matches.push(Value.object().setInteger("line", i + 1).setInteger("column", col));
      if (first) { out.push((i + 1).toString() + ":" + col.toString() + ": " + line + "\n"); first = false; }
      from = at + max(1, query.length);
    }
  }
  let text = out.join("");
  if (n == 0) text = "no match for " + args.getString("query") + "\n";
  if (truncated) text += "(stopped after " + counted(maxResults, "match|matches") + ")\n";
  const d = Value.object().setInteger("count", n).setBool("truncated", truncated).set("matches", matches);
  return Result.text(text).withDetails(d);
}

/**
 * The index in line of the character whose lower-cased form starts at
 * index at of line.toLowerCase() (lower-casing may change lengths: "İ"
 * becomes two characters).
 */
function originalIndex(line: string, at: i32): i32 {
  let lowered = 0;
  let i = 0;
  while (i < line.length && lowered < at) {
    const c = line.charCodeAt(i);
    const n = c >= 0xd800 && c < 0xdc00 && i + 1 < line.length ? 2 : 1;
    lowered += line.substr(i, n).toLowerCase().length;
    i += n;
  }
  return i;
}

function diff(c: Call, args: Value): Result {
  const aName = args.getString("aName", "a");
  const bName = args.getString("bName", "b");
  const r = unifiedDiff(args.getString("a"), args.getString("b"), aName, bName, <i32>args.getInteger("context", 3));
  const d = Value.object().setInteger("added", r.added).setInteger("removed", r.removed).setInteger("hunks", r.hunks).setBool("minimal", r.minimal);
  return Result.text(r.text).withDetails(d);
}
