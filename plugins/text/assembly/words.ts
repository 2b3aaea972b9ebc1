// Counts in words that agree with them, as the host's internal/words
// writes them: "1 line", "0 lines", "1,234 lines". A noun whose plural is
// not noun + "s" is given as "match|matches".

/** n and noun, in the plural unless n is 1, with thousands separators. */
export function count(n: i64, noun: string): string {
  const bar = noun.indexOf("|");
  const one = bar < 0 ? noun : noun.substring(0, bar);
  const many = bar < 0 ? noun + "s" : noun.substring(bar + 1);
  if (n == 1) return "1 " + one;
  return number(n) + " " + many;
}

/** n with thousands separators: 1234567 is "1,234,567". */
export function number(n: i64): string {
  let s = n.toString();
  const neg = s.startsWith("-");
  if (neg) s = s.substring(1);
  for (let i = s.length - 3; i > 0; i -= 3) {
    s = s.substring(0, i) + "," + s.substring(i);
  }
  return neg ? "-" + s : s;
}
