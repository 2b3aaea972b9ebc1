package host

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// fullOrder is order as the oracle records it for v: a keyOrder for every
// object and array, with one sub a key or element. The scanner leaves out
// the orders of arrays of scalars and the nil subs at the end; at reads
// them as nil, which fullOrder writes out. An order on a scalar, or
// elements of an order past v's, show as a key no JSON decodes to.
func fullOrder(v any, o *keyOrder) *keyOrder {
	bad := &keyOrder{keys: []string{"\x00 order that does not fit the value"}}
	switch x := v.(type) {
	case map[string]any:
		if o == nil || len(o.sub) > len(o.keys) {
			return bad
		}
		full := &keyOrder{keys: o.keys}
		for i, k := range o.keys {
			full.sub = append(full.sub, fullOrder(x[k], o.at(i)))
		}
		return full
	case []any:
		if o != nil && (o.keys != nil || len(o.sub) > len(x)) {
			return bad
		}
		full := &keyOrder{}
		for i, e := range x {
			full.sub = append(full.sub, fullOrder(e, o.at(i)))
		}
		return full
	}
	if o != nil {
		return bad
	}
	return nil
}

// sameAsOracle fails t unless decodeOrdered and the oracle agree on raw:
// both refuse it, or both give the same value and the same key orders. A
// refusal from the scanner says where (an offset) unless raw ends early.
func sameAsOracle(t *testing.T, raw []byte) {
	t.Helper()
	v, order, err := decodeOrdered(raw)
	ov, oorder, oerr := decodeOrderedOracle(raw)
	if (err == nil) != (oerr == nil) {
		t.Fatalf("%.200q: scanner says %v, oracle says %v", raw, err, oerr)
	}
	if err != nil {
		if !errors.Is(err, errArgumentsEnd) && !strings.Contains(err.Error(), " at offset ") {
			t.Fatalf("%.200q: the error does not say where: %v", raw, err)
		}
		if !strings.HasPrefix(err.Error(), "arguments ") {
			t.Fatalf("%.200q: the error does not say what it is about: %v", raw, err)
		}
		return
	}
	if !reflect.DeepEqual(v, ov) {
		t.Fatalf("%.200q: scanner decodes %#v, oracle %#v", raw, v, ov)
	}
	if !reflect.DeepEqual(fullOrder(v, order), oorder) {
		t.Fatalf("%.200q: the scanner's key order differs from the oracle's", raw)
	}
	sameEncoding(t, v, order, ov, oorder)
}

// sameEncoding fails t unless encodeOrdered writes v as the oracle's
// encoder writes ov.
func sameEncoding(t *testing.T, v any, order *keyOrder, ov any, oorder *keyOrder) {
	t.Helper()
	out, err := encodeOrdered(v, order)
	oout, oerr := encodeOrderedOracle(ov, oorder)
	if (err == nil) != (oerr == nil) || string(out) != string(oout) {
		t.Fatalf("encodes to %.200s (%v), the oracle to %.200s (%v)", out, err, oout, oerr)
	}
}

// What the coercion pass may make of decoded arguments (values of other
// types, keys the order does not have, a value replaced by a new object
// or array) encodes as the oracle encodes it.
func TestEncodeOrderedAsOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 19))
	for range 200 {
		var b strings.Builder
		genArgument(rng, &b, 1+rng.IntN(4), 0)
		raw := []byte(b.String())
		v, order, err := decodeOrdered(raw)
		ov, oorder, oerr := decodeOrderedOracle(raw)
		if err != nil || oerr != nil {
			continue // a duplicate key
		}
		seed := rng.Uint64()
		mutate(rand.New(rand.NewPCG(seed, 1)), v)
		mutate(rand.New(rand.NewPCG(seed, 1)), ov)
		sameEncoding(t, v, order, ov, oorder)
	}
}

// mutate changes v in place at random, as a coercion might and beyond.
func mutate(rng *rand.Rand, v any) {
	others := []func() any{
		func() any { return 1.5 }, func() any { return 7 }, func() any { return "<&>\u2028" },
		func() any { return []string{"a", "\x00"} }, func() any { return map[string]any{"z": 1, "a": json.Number("2")} },
		func() any { return []any{map[string]any{"b": nil, "a": true}} }, func() any { return math.Inf(1) },
	}
	switch x := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) { // the same changes to the same maps
			if rng.IntN(4) == 0 {
				x[k] = others[rng.IntN(len(others))]()
			} else {
				mutate(rng, x[k])
			}
		}
		if rng.IntN(3) == 0 {
			x[fmt.Sprintf("new%d", rng.IntN(3))] = others[rng.IntN(len(others))]()
		}
	case []any:
		for i, e := range x {
			if rng.IntN(4) == 0 {
				x[i] = others[rng.IntN(len(others))]()
			} else {
				mutate(rng, e)
			}
		}
	}
}

// argumentEdgeCases are the texts where a JSON decoder is most often
// wrong; the fuzz target starts from them.
func argumentEdgeCases() []string {
	nest := func(n int, open, close string) string {
		return strings.Repeat(open, n) + "1" + strings.Repeat(close, n)
	}
	cases := []string{
		``, ` `, "\t\n\r ", `{}`, `[]`, `""`, `0`, `-0`, `-0.0`, `-0e0`, `1`, `-`, `--1`, `+1`, `01`, `-01`, `1.`, `.5`, `1e`, `1e+`, `1E-2`,
		`1e400`, `-1e400`, `1e-400`, `1e-99999999`, `1e99999999`, `9e308`, `1.7976931348623157e308`, `1.7976931348623159e308`,
		`1e0000000000000000000000000000000000400`, `1e-0400`, `123456789012345678901234567890`, strings.Repeat("9", 300), strings.Repeat("9", 301),
		strings.Repeat("9", 309), "0." + strings.Repeat("0", 500) + "1", strings.Repeat("1", 401), `1.0e+400`,
		`true`, `false`, `null`, `tru`, `nul`, `truex`, `True`, `NaN`, `Infinity`, `-Infinity`,
		`{"a":1,"a":2}`, `{"a":1,"\u0061":2}`, `{"\u0061":1,"a":2}`, `{"a\/b":1,"a/b":2}`, `{"é":1,"\u00e9":2}`, `{"😀":1,"\ud83d\ude00":2}`,
		`{"a":{"a":1},"b":{"a":1}}`, `{"":1,"":2}`, `{"a":1,}`, `[1,]`, `[,1]`, `{,}`, `{"a"}`, `{"a":}`, `{"a" 1}`, `{1:2}`, `{'a':1}`,
		`"\ud800"`, `"\udc00"`, `"\ud800\udc00"`, `"\udbff\udfff"`, `"\ud800\ud800"`, `"\ud800x"`, `"\ud800\u0041"`, `"\ud800\u"`, `"\ud800\uzzzz"`,
		`"\udc00\ud800"`, `"\uD83D\uDE00"`, `"\u0000"`, `"\u001f"`, `"\u00"`, `"\u00g0"`, `"\x41"`, `"\'"`, `"\"`, `"\\"`, `"\/\b\f\n\r\t"`,
		"\"\x00\"", "\"\x1f\"", "\"\x7f\"", "\"\t\"", "\"\xff\"", "\"\xed\xa0\x80\"", "\"\xef\xbf\xbd\"", "\"\xc0\xaf\"", "\"\xe2\x80\xa8\u2029\"",
		"\xef\xbb\xbf{}", "{}\xef\xbb\xbf", "\xff", "{}\xff", "[\xff]", "\u00a0{}", "{}\u00a0", "\v{}", "\f{}", "{}\x00",
		`{} `, `{} {}`, `{}x`, `[] []`, `1 2`, `"a" "b"`, `{}}`, `[]]`, `{"a":1}}`, `[1]]`, `/* c */{}`, `{}//`,
		`{"a":[1,{"b":"c\"d","e":[true,false,null]}],"f":-1.5e-7}`, `[[],[[]],{},{"":[]}]`, `["\ud83d\ude00", "é", "\u2028"]`,
		nest(MaxArgumentDepth, "[", "]"), nest(MaxArgumentDepth+1, "[", "]"), nest(MaxArgumentDepth, `{"a":`, "}"),
		nest(MaxArgumentDepth+1, `{"a":`, "}"), nest(MaxArgumentDepth-1, "[", "]"), strings.Repeat("[", MaxArgumentDepth+1),
		strings.Repeat("[", MaxArgumentDepth) + strings.Repeat("]", MaxArgumentDepth+1), nest(MaxArgumentDepth/2, `[{"a":`, "}]"),
	}
	// The seeds of FuzzEncodeOrdered and FuzzPrepareArguments.
	cases = append(cases, `{"b":1,"a":[{"z":null,"y":"\u0041"}],"c":{"e":true,"d":1.50}}`, `{"":{}}`, `[{"b":1,"a":2},3]`,
		`{"path":"a"}`, `{"path":"a","n":"3"}`, `{"path":1}`, `{`, `{"path":"a","path":"b"}`, `{"path":"a"} x`,
		`{"n":1e400,"path":""}`, `{"path":"a"/*c*/}`)
	// Arrays and objects of every length up to past maxSlab, each after
	// others that left part of a slab free.
	var arrays, objects strings.Builder
	arrays.WriteString("[")
	objects.WriteString("[")
	for _, n := range []int{0, 1, 2, 3, 5, 7, 8, 9, 12, 15, 16, 17, 100, maxSlab/4 - 1, maxSlab / 4, maxSlab/4 + 1, 600, maxSlab - 1, maxSlab, maxSlab + 1} {
		a := make([]string, n)
		o := make([]string, n)
		for i := range n {
			a[i] = fmt.Sprintf(`[%d]`, i%3)
			o[i] = fmt.Sprintf(`"k%d":{"%d":[]}`, i, i%2)
		}
		arrays.WriteString("[" + strings.Join(a, ",") + "],")
		objects.WriteString("{" + strings.Join(o, ",") + "},")
	}
	cases = append(cases, arrays.String()+"0]", objects.String()+"0]")
	// Every cut of a value with each kind of token: what ends early.
	whole := `{"k":[1,-2.5e+3,"s\u00e9\n\ud83d\ude00",true,false,null,{},[]]}`
	for i := range len(whole) {
		cases = append(cases, whole[:i])
	}
	return cases
}

func TestDecodeOrderedEdgeCasesAsOracle(t *testing.T) {
	for _, c := range argumentEdgeCases() {
		sameAsOracle(t, []byte(c))
	}
}

// genArgument writes a random JSON value, up to depth deep, from the
// pieces that decoders get wrong: escapes, surrogates, keys equal after
// unescaping, numbers at the edges, white space; with probability bad in
// each value, one damage (a cut, a stray byte, a lone surrogate).
func genArgument(rng *rand.Rand, b *strings.Builder, depth int, bad float64) {
	ws := []string{"", "", " ", "\n", "\t", "\r\n  "}
	b.WriteString(ws[rng.IntN(len(ws))])
	if bad > 0 && rng.Float64() < bad {
		damages := []string{`"\ud800"`, `"\udc00"`, "\"\xff\"", `01`, `1e400`, `[1,]`, `{"a":1,"a":2}`, `"\u00zz"`, `tru`, `"` + "\x01" + `"`, `,`}
		b.WriteString(damages[rng.IntN(len(damages))])
		return
	}
	keys := []string{`"a"`, `"\u0061"`, `"b"`, `"é"`, `"\u00e9"`, `""`, `"\ud83d\ude00"`, `"😀"`, `"a\/"`, `"a/"`, `"\n"`, `"\u000a"`}
	leaves := []string{`0`, `-0`, `1.5`, `-2e-3`, `1E+2`, `1e308`, `4.9e-324`, `123456789012345678901`, `true`, `false`, `null`,
		`""`, `"x"`, `"\"\\\/\b\f\n\r\t"`, `"\u0000\u001f\u2028"`, `"\ud83d\ude00é"`, `"\uDBFF\uDFFF"`, "\"\u2029\u00a0\""}
	n := rng.IntN(4)
	if depth <= 2 && rng.IntN(8) == 0 {
		n = rng.IntN(300) // past a slab's first arrays
	}
	if depth == 0 || rng.IntN(3) == 0 {
		b.WriteString(leaves[rng.IntN(len(leaves))])
	} else if rng.IntN(2) == 0 {
		b.WriteByte('[')
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			genArgument(rng, b, depth-1, bad)
		}
		b.WriteByte(']')
	} else {
		b.WriteByte('{')
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(keys[rng.IntN(len(keys))] + ws[rng.IntN(len(ws))] + ":")
			genArgument(rng, b, depth-1, bad)
		}
		b.WriteByte('}')
	}
	b.WriteString(ws[rng.IntN(len(ws))])
}

// Generated arguments, valid and damaged, decode as the oracle decodes
// them. WASMAGENT_JSON_ORACLE_N sets how many (default 400).
func TestDecodeOrderedGeneratedAsOracle(t *testing.T) {
	n := envCount(t, "WASMAGENT_JSON_ORACLE_N", 400)
	rng := rand.New(rand.NewPCG(11, 29))
	for i := range n {
		var b strings.Builder
		genArgument(rng, &b, 1+rng.IntN(5), []float64{0, 0, 0.05, 0.2}[i%4])
		sameAsOracle(t, []byte(b.String()))
	}
}

func envCount(t *testing.T, name string, def int) int {
	s := strings.TrimSpace(os.Getenv(name))
	if s == "" {
		return def
	}
	var n int
	if _, err := fmt.Sscan(s, &n); err != nil || n < 0 {
		t.Fatalf("%s=%q is not a count", name, s)
	}
	return n
}

// FuzzDecodeOrderedOracle: on every input, the scanner and the
// Decoder.Token walk it replaced accept the same arguments and decode
// them to the same value and key order.
func FuzzDecodeOrderedOracle(f *testing.F) {
	for _, c := range argumentEdgeCases() {
		f.Add([]byte(c))
	}
	rng := rand.New(rand.NewPCG(3, 5))
	for range 40 {
		var b strings.Builder
		genArgument(rng, &b, 4, 0.1)
		f.Add([]byte(b.String()))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		sameAsOracle(t, raw)
	})
}
