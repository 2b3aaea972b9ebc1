package host

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host/internal/jsonread"
)

// maxIndentDepth is encoding/json's own limit: JSON nested that deep is
// valid, one level more is not.
func TestMaxIndentDepthIsJSONs(t *testing.T) {
	nest := func(n int) []byte {
		return []byte(strings.Repeat("[", n) + strings.Repeat("]", n))
	}
	if !json.Valid(nest(maxIndentDepth)) || json.Valid(nest(maxIndentDepth+1)) {
		t.Fatalf("encoding/json's nesting limit is not %d", maxIndentDepth)
	}
	if jsonread.NestedOver(nest(maxIndentDepth), maxIndentDepth) || !jsonread.NestedOver(nest(maxIndentDepth+1), maxIndentDepth) {
		t.Fatal("nestedOver is wrong at the limit")
	}
	// Brackets in strings, after escaped quotes, are text.
	s := []byte(`["\"` + strings.Repeat("[{", maxIndentDepth) + `\\"]`)
	if !json.Valid(s) || jsonread.NestedOver(s, 1) {
		t.Fatalf("brackets in a string count: %.40s", s)
	}
	// The arguments of a deeply nested call: the same text as before,
	// JSON.stringify of the raw string, without indenting first.
	deep := []byte(strings.Repeat(`{"a":`, 100000) + "1" + strings.Repeat("}", 100000))
	want, _ := encodeJSON(string(deep))
	if got := indentJSON(deep); got != string(want) {
		t.Fatal("a call nested past the limit is shown otherwise")
	}
}

// genNested writes a random JSON value nested exactly depth deep, with
// strings that hold brackets, quotes and escapes.
func genNested(rng *rand.Rand, b *strings.Builder, depth int) {
	if depth == 0 {
		strs := []string{`"x"`, `"[{"`, `"\"]}"`, `"\\"`, `"\\\"[["`, `1`, `null`, `"}]"`}
		b.WriteString(strs[rng.IntN(len(strs))])
		return
	}
	obj := rng.IntN(2) == 0
	if obj {
		b.WriteString(`{"k[":`)
	} else {
		b.WriteString(`[`)
	}
	// Siblings, less deep, before the deepest child.
	for range rng.IntN(3) {
		genNested(rng, b, rng.IntN(depth))
		if obj {
			b.WriteString(`,"k}":`)
		} else {
			b.WriteString(`,`)
		}
	}
	genNested(rng, b, depth-1)
	if obj {
		b.WriteString(`}`)
	} else {
		b.WriteString(`]`)
	}
}

// jsonread.NestedOver(v, limit) holds exactly when v is nested more than limit
// deep, whatever its strings hold.
func TestNestedOverGenerated(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 13))
	for range 300 {
		var b strings.Builder
		depth := rng.IntN(12)
		genNested(rng, &b, depth)
		raw := []byte(b.String())
		if !json.Valid(raw) {
			t.Fatalf("generated invalid JSON: %s", raw)
		}
		for limit := 0; limit <= depth+1; limit++ {
			if got := jsonread.NestedOver(raw, limit); got != (depth > limit) {
				t.Fatalf("jsonread.NestedOver(%s, %d) = %v; it is %d deep", raw, limit, got, depth)
			}
		}
	}
}

// Whatever the model sends, indentJSON skips json.Indent only where
// json.Indent fails: the text is what it was.
func FuzzNestedOverOnlyInvalid(f *testing.F) {
	f.Add([]byte(`{"a":[1,{"b":"[["}]}`))
	f.Add([]byte(`"\"[[["`))
	f.Add([]byte(strings.Repeat("[", maxIndentDepth+1)))
	f.Add([]byte(`["\\"]]]]`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		if jsonread.NestedOver(raw, maxIndentDepth) && json.Valid(raw) {
			t.Fatalf("nestedOver skips the indentation of valid JSON: %.80q", raw)
		}
	})
}

// indentedSize counts json.Indent's output exactly, on generated JSON
// with white space everywhere JSON allows it.
func TestIndentedSizeGenerated(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 31))
	for i := range 300 {
		var b strings.Builder
		if i%2 == 0 {
			genNested(rng, &b, rng.IntN(8))
		} else {
			genArgument(rng, &b, 1+rng.IntN(4), 0)
		}
		sameIndentedSize(t, []byte(b.String()))
	}
}

func sameIndentedSize(t *testing.T, raw []byte) {
	t.Helper()
	var out bytes.Buffer
	if json.Indent(&out, raw, "", "  ") != nil {
		return
	}
	if got := indentedSize(raw); got != out.Len() {
		t.Fatalf("indentedSize(%.80q) = %d; json.Indent writes %d bytes", raw, got, out.Len())
	}
}

// FuzzIndentedSize: wherever json.Indent succeeds, indentedSize is the
// length of what it writes.
func FuzzIndentedSize(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, ` [ 1 , { } , [ ] , {"a" : "b\"}"} ] `, `"x"  `, "1\n", `{"a":[{"b":[]}],"c":{}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		sameIndentedSize(t, raw)
	})
}

// Arguments nested a hundred deep on every line would indent to some
// forty times their size: the error shows them as a string instead, and
// its text stays within maxIndented. Arguments of usual shapes are
// indented as JSON.stringify(v, null, 2) would.
func TestIndentJSONBounded(t *testing.T) {
	for _, shape := range argumentShapes {
		raw := shape.gen(48 << 10)
		got := indentJSON(raw)
		if len(got) > maxIndented(len(raw)) {
			t.Errorf("%s: %d bytes of arguments shown in %d bytes", shape.name, len(raw), len(got))
		}
		var want bytes.Buffer
		if err := json.Indent(&want, raw, "", "  "); err != nil {
			t.Fatal(err)
		}
		js, ok := jsIndent(raw)
		if asString := got[0] == '"'; asString != (want.Len() > maxIndented(len(raw))) {
			t.Errorf("%s: indented to %d bytes, shown as a string: %v", shape.name, want.Len(), asString)
		} else if !asString && (!ok || got != js) {
			t.Errorf("%s: not shown as JSON.stringify writes it", shape.name)
		}
		t.Logf("%s: %d bytes indent to %d, shown in %d", shape.name, len(raw), want.Len(), len(got))
	}
}
