// Splitting text into lines, and counting what is in it.

/** The lines of s, each with its "\n" (the last may lack one). */
export function splitLines(s: string): string[] {
  const out = new Array<string>();
  let start = 0;
  while (start < s.length) {
    const nl = s.indexOf("\n", start);
    if (nl < 0) { out.push(s.substring(start)); break; }
    out.push(s.substring(start, nl + 1));
    start = nl + 1;
  }
  return out;
}

/** A line without its "\n" (and without a "\r" before it). */
export function bare(line: string): string {
  let end = line.length;
  if (end > 0 && line.charCodeAt(end - 1) == 0x0a) end--;
  if (end > 0 && line.charCodeAt(end - 1) == 0x0d) end--;
  return line.substring(0, end);
}

/** The number of Unicode code points of s. */
export function codePoints(s: string): i32 {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c < 0xdc00 && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d < 0xe000) i++;
    }
    n++;
  }
  return n;
}

function isSpace(c: i32): bool {
  // Unicode White_Space, as Go's unicode.IsSpace.
  return c == 0x20 || (c >= 0x09 && c <= 0x0d) || c == 0x85 || c == 0xa0 || c == 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 || c == 0x202f || c == 0x205f || c == 0x3000;
}

/** The number of words: runs of characters other than white space. */
export function words(s: string): i32 {
  let n = 0;
  let inWord = false;
  for (let i = 0; i < s.length; i++) {
    const sp = isSpace(s.charCodeAt(i));
    if (!sp && !inWord) n++;
    inWord = !sp;
  }
  return n;
}
