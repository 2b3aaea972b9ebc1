// A unified diff of two texts, line by line, with Myers' algorithm.
import { splitLines } from "./lines";

/** Differences beyond which the diff is no longer minimal (memory bound). */
export const MAX_EDITS = 4000;

const EQ: u8 = 0;
const DEL: u8 = 1;
const ADD: u8 = 2;

class Edit {
  constructor(public op: u8, public a: i32, public b: i32) {} // line indexes
}

/** The outcome of a diff: its text and what it found. */
export class DiffResult {
  text: string = "";
  added: i32 = 0;
  removed: i32 = 0;
  hunks: i32 = 0;
  /** False when the inputs differ so much that a shorter diff may exist. */
  minimal: bool = true;
}

/** The edit script turning lines a[alo:ahi] into b[blo:bhi]. */
function myers(a: i32[], b: i32[], alo: i32, ahi: i32, blo: i32, bhi: i32, out: Edit[], res: DiffResult): void {
  const n = ahi - alo;
  const m = bhi - blo;
  const max = n + m;
  if (max == 0) return;
  const off = max + 1;
  const v = new StaticArray<i32>(2 * max + 3);
  const trace = new Array<StaticArray<i32>>();
  let found = -1;
  const limit = min(max, MAX_EDITS);
  for (let d = 0; d <= limit; d++) {
    // Keep only the diagonals -d..d of this round.
    const snap = new StaticArray<i32>(2 * d + 1);
    for (let k = -d; k <= d; k += 2) {
      let x: i32;
      if (k == -d || (k != d && v[off + k - 1] < v[off + k + 1])) x = v[off + k + 1];
      else x = v[off + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[alo + x] == b[blo + y]) { x++; y++; }
      v[off + k] = x;
      if (x >= n && y >= m) { found = d; break; }
    }
    for (let k = -d; k <= d; k++) snap[k + d] = v[off + k];
    trace.push(snap);
    if (found >= 0) break;
  }
  if (found < 0) {
    // Too many differences for a minimal diff in bounded memory: replace
    // the whole range.
    res.minimal = false;
    for (let i = alo; i < ahi; i++) out.push(new Edit(DEL, i, blo));
    for (let j = blo; j < bhi; j++) out.push(new Edit(ADD, ahi, j));
    return;
  }
  // Walk back through the snapshots.
  const rev = new Array<Edit>();
  let x = n, y = m;
  for (let d = found; d > 0; d--) {
    const prev = trace[d - 1];
    const k = x - y;
    // prev holds the diagonals -(d-1)..d-1 of the round before.
    let prevK: i32;
    if (k == -d || (k != d && prev[k - 1 + d - 1] < prev[k + 1 + d - 1])) prevK = k + 1;
    else prevK = k - 1;
    const prevX = prev[prevK + d - 1];
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) { x--; y--; rev.push(new Edit(EQ, alo + x, blo + y)); }
    if (x == prevX) { y--; rev.push(new Edit(ADD, alo + x, blo + y)); }
    else { x--; rev.push(new Edit(DEL, alo + x, blo + y)); }
  }
  while (x > 0 && y > 0) { x--; y--; rev.push(new Edit(EQ, alo + x, blo + y)); }
  for (let i = rev.length - 1; i >= 0; i--) out.push(rev[i]);
}

function intern(lines: string[], ids: Map<string, i32>): i32[] {
  const out = new Array<i32>(lines.length);
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    if (!ids.has(l)) ids.set(l, ids.size);
    out[i] = ids.get(l);
  }
  return out;
}

function range(start: i32, count: i32): string {
  // Lines are 1-based; an empty range names the line before it.
  if (count == 1) return (start + 1).toString();
  return (count == 0 ? start : start + 1).toString() + "," + count.toString();
}

function emit(parts: string[], prefix: string, line: string): void {
  parts.push(prefix);
  parts.push(line);
  if (line.length == 0 || line.charCodeAt(line.length - 1) != 0x0a) parts.push("\n\\ No newline at end of file\n");
}

/** The unified diff of a and b with context lines around each change. */
export function unifiedDiff(aText: string, bText: string, aName: string, bName: string, context: i32): DiffResult {
  const res = new DiffResult();
  const al = splitLines(aText);
  const bl = splitLines(bText);
  const ids = new Map<string, i32>();
  const a = intern(al, ids);
  const b = intern(bl, ids);
  // Common prefix and suffix need no search.
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] == b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] == b[b.length - 1 - suf]) suf++;
  const edits = new Array<Edit>();
  for (let i = 0; i < pre; i++) edits.push(new Edit(EQ, i, i));
  myers(a, b, pre, a.length - suf, pre, b.length - suf, edits, res);
  for (let i = suf; i > 0; i--) edits.push(new Edit(EQ, a.length - i, b.length - i));

  const parts = new Array<string>();
  let i = 0;
  while (i < edits.length) {
    // The next change.
    while (i < edits.length && edits[i].op == EQ) i++;
    if (i >= edits.length) break;
    let start = max(0, i - context);
    // Extend the hunk while the gap between changes is at most 2*context.
    let end = i;
    while (true) {
      while (end < edits.length && edits[end].op != EQ) end++;
      let eq = end;
      while (eq < edits.length && edits[eq].op == EQ) eq++;
      if (eq < edits.length && eq - end <= 2 * context) { end = eq; continue; }
      end = min(edits.length, end + context);
      break;
    }
    if (res.hunks == 0) parts.push("--- " + aName + "\n+++ " + bName + "\n");
    res.hunks++;
    const first = edits[start];
    let na = 0, nb = 0;
    for (let j = start; j < end; j++) {
      const op = edits[j].op;
      if (op != ADD) na++;
      if (op != DEL) nb++;
    }
    parts.push("@@ -" + range(first.a, na) + " +" + range(first.b, nb) + " @@\n");
    for (let j = start; j < end; j++) {
      const e = edits[j];
      if (e.op == EQ) emit(parts, " ", al[e.a]);
      else if (e.op == DEL) { emit(parts, "-", al[e.a]); res.removed++; }
      else { emit(parts, "+", bl[e.b]); res.added++; }
    }
    i = end;
  }
  res.text = parts.join("");
  return res;
}
