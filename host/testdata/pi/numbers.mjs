// Records JavaScript's Number(string), String.prototype.trim and
// String(number) over a corpus of edge cases and seeded random inputs, into
// host/testdata/jsnumbers.jsonl, one object a line:
//   {"s": input, "num": bits of Number(s), "blank": s.trim() === ""}
//   {"num": bits of x, "str": String(x)}
// bits are the 16 hex digits of the IEEE 754 double, or "NaN".
// host/jsnumber_test.go checks that Go agrees on every line.
import { writeFileSync } from "node:fs";

const bits = (x) => {
  if (Number.isNaN(x)) return "NaN";
  const dv = new DataView(new ArrayBuffer(8));
  dv.setFloat64(0, x);
  return dv.getBigUint64(0).toString(16).padStart(16, "0");
};
const fromBits = (b) => {
  const dv = new DataView(new ArrayBuffer(8));
  dv.setBigUint64(0, b);
  return dv.getFloat64(0);
};

// xorshift64*, seeded, so that the corpus is the same on every run.
let state = 0x9e3779b97f4a7c15n;
const next = () => {
  state ^= state >> 12n;
  state ^= (state << 25n) & 0xffffffffffffffffn;
  state ^= state >> 27n;
  return (state * 0x2545f4914f6cdd1dn) & 0xffffffffffffffffn;
};
const int = (n) => Number(next() % BigInt(n));
const pick = (list) => list[int(list.length)];

const spaces = ["", " ", "\t", "\n", "\r", "\v", "\f", "\u00a0", "\ufeff", "\u2028", "\u2029", "\u1680", "\u2000", "\u200a", "\u202f", "\u205f", "\u3000", "\u0085", "\u180e", "\u200b"];
const strings = [
  "", " ", "0", "-0", "+0", "00", "007", "1", "-1", "+1", "12", " 12 ", "\t12\n", "1.", ".5", ".", "-.", "+.5", "-.5e1", "1e", "1e+", "1e-", "1e5", "1E5", "1e+5", "1e-5",
  "1.5e308", "1.8e308", "-1.8e308", "2e-324", "3e-324", "5e-324", "1e-400", "4.9406564584124654e-324", "2.2250738585072011e-308",
  "0x10", "0X10", "0x", "0xg", "-0x10", "+0x10", " 0x10 ", "0b11", "0B11", "0b2", "0o7", "0O17", "0o8", "0x1p4", "0x1.8", "0b", "0o",
  "0x1fffffffffffff", "0x20000000000001", "0x20000000000003", "0xffffffffffffffffffff", "0b" + "1".repeat(60), "0o" + "7".repeat(30),
  "Infinity", "-Infinity", "+Infinity", "infinity", "INFINITY", "inf", "-inf", "NaN", "nan", "1_000", "1__0", "_1", "1_", "1,000", "1 000",
  "true", "false", "null", "undefined", "abc", "12abc", "abc12", "1e1000", "-1e1000", "9007199254740993", "9007199254740992", "123456789012345678901234567890",
  "0.1", "0.2", "0.30000000000000004", "1e21", "1e-7", "0.000001", "0.0000001", "123456789012345680000", "١٢", "１２", "+-1", "--1", "++1", "1e+-1", "٣",
  "0.0", "-0.0", "0e0", "-0e-0", "00x10", "0x-1", "1.e5", "1..2", "1.2.3", "e5", ".e5", "+", "-",
];
for (const sp of spaces) strings.push(sp, sp + "42" + sp, sp + "0x1A" + sp, sp + "-1.5e3", "7" + sp + "7", sp + sp + "-Infinity");

const parts = ["", "-", "+", "0", "1", "9", "00", "12", "345", ".", "e", "E", "e+", "e-", "x", "0x", "0b", "0o", "_", "Infinity", "a", "f", "F", " ", "\u00a0", "\n", "1e308", "5e-324"];
for (let i = 0; i < 2500; i++) {
  let s = "";
  const n = 1 + int(6);
  for (let j = 0; j < n; j++) s += pick(parts);
  strings.push(s);
}
for (let i = 0; i < 600; i++) {
  // well-formed decimals of every length and exponent
  let s = (int(2) ? "-" : "") + String(int(1e9)) + (int(2) ? "." + String(int(1e9)).padStart(int(12), "0") : "");
  if (int(2)) s += "e" + pick(["", "+", "-"]) + String(int(400));
  strings.push(s);
}

const numbers = [0, -0, 1, -1, 0.1, 0.2, 0.1 + 0.2, 1 / 3, 2 / 3, 1e21, 1e20, 999999999999999900000, 1e-6, 1e-7, 0.000001, 0.0000015, 123e-20, 1.5e-7,
  123456789012345680000, 1.7976931348623157e308, 5e-324, 2.2250738585072014e-308, Infinity, -Infinity, NaN, 9007199254740992, 9007199254740993, 2 ** 53 - 1,
  -1e21, -1e-7, 100, 1e100, 1.25, 4.35, 0.5e-6, 1e-5, 12345.678, 2 ** 64, 2 ** 70, 1e15, 1e16, 1e17, 123456789.123456789];
for (let p = -330; p <= 310; p++) numbers.push(Number("1e" + p), Number("1.5e" + p), Number("9.999999999999999e" + p));
for (let i = 0; i < 2500; i++) {
  const x = fromBits(next());
  if (!Number.isNaN(x)) numbers.push(x);
}
for (let i = 0; i < 500; i++) numbers.push(int(2 ** 31) / (1 + int(1000)), (int(2) ? -1 : 1) * int(2 ** 53));

const lines = [];
for (const s of strings) lines.push(JSON.stringify({ s, num: bits(Number(s)), blank: s.trim() === "" }));
for (const x of numbers) lines.push(JSON.stringify({ num: bits(x), str: String(x) }));
writeFileSync(new URL("../jsnumbers.jsonl", import.meta.url), lines.join("\n") + "\n");
