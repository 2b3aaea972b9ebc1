package wasmtool

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host/internal/jsonread"
)

// nested is a generated JSON value nested depth deep: arrays and objects
// mixed, with strings full of brackets on the way (which do not nest).
func nested(rng *rand.Rand, depth int) string {
	var open, closing strings.Builder
	for i := range depth {
		switch rng.IntN(3) {
		case 0:
			open.WriteString(`[`)
			closing.WriteString(`]`)
		case 1:
			fmt.Fprintf(&open, `{"k%d":`, i)
			closing.WriteString(`}`)
		default:
			open.WriteString(`["[{\"[",`)
			closing.WriteString(`]`)
		}
	}
	c := []byte(closing.String())
	for i, j := 0, len(c)-1; i < j; i, j = i+1, j-1 {
		c[i], c[j] = c[j], c[i]
	}
	return open.String() + `"{["` + string(c)
}

// Whatever a plugin nests in what the host keeps of its output raw
// (details, extra members, an update, rewritten arguments, a hook's
// details), an output nested more than MaxOutputDepth deep is refused
// with an error naming the bound, and what is accepted encodes as the
// host writes it no deeper than the bound and a few levels: so that every
// session line and event holding it stays readable (on the old main an
// output of any depth encoding/json takes, up to 10,000, was accepted:
// a session line holding details 9,999 deep was dropped at its next load).
func TestOutputNestingIsBounded(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	depths := []int{1, MaxOutputDepth - 2, MaxOutputDepth - 1, MaxOutputDepth, MaxOutputDepth + 1, 9990}
	for range 10 {
		depths = append(depths, 1+rng.IntN(10000))
	}
	type place struct {
		name   string
		output func(v string) string // the output with v where the host keeps JSON raw
		level  int                   // how deep v sits in the output
		decode func(out []byte) (any, error)
	}
	result := func(out []byte) (any, error) { r, _, err := parseResult(out); return r, err }
	places := []place{
		{"result details", func(v string) string { return `{"content":[],"details":` + v + `}` }, 1, result},
		{"result extra member", func(v string) string { return `{"content":[],"more":` + v + `}` }, 1, result},
		{"update details", func(v string) string { return `{"content":[],"details":` + v + `}` }, 1, func(out []byte) (any, error) {
			var r wireResult
			_, err := decodeResult(out, &r)
			return json.RawMessage(validText(out)), err
		}},
		{"before arguments", func(v string) string { return `{"arguments":{"a":` + v + `}}` }, 2, func(out []byte) (any, error) {
			r, _, err := parseBefore(out)
			return r, err
		}},
		{"after details", func(v string) string { return `{"details":` + v + `}` }, 1, func(out []byte) (any, error) {
			r, _, err := parseAfter(out)
			return r, err
		}},
	}
	for _, d := range depths {
		v := nested(rng, d)
		if got := jsonread.Depth([]byte(v)); got != d {
			t.Fatalf("the generator nested %d deep, not %d", got, d)
		}
		for _, p := range places {
			out := p.output(v)
			kept, err := p.decode([]byte(out))
			over := d+p.level > MaxOutputDepth
			if over {
				want := fmt.Sprintf("more than %d deep (wasmtool.MaxOutputDepth)", MaxOutputDepth)
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("%s nested %d deep: err = %v, want one naming the bound", p.name, d, err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s nested %d deep: %v", p.name, d, err)
			}
			b, err := json.Marshal(kept)
			if err != nil {
				t.Fatalf("%s nested %d deep does not encode: %v", p.name, d, err)
			}
			if got := jsonread.Depth(b); got > MaxOutputDepth+2 {
				t.Fatalf("%s nested %d deep encodes %d deep", p.name, d, got)
			}
		}
	}
}
