package wasmtool

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/sdk"
)

// schemaOf is a parameter schema of about n JSON objects (n ≥ 2), with
// descriptions holding braces, and its exact count of objects.
func schemaOf(rng *rand.Rand, n int) (string, int) {
	var b strings.Builder
	b.WriteString(`{"type":"object","description":"{not an object}","properties":{`)
	objects := 2
	for i := 0; objects < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		if rng.IntN(3) == 0 && objects+2 <= n {
			fmt.Fprintf(&b, `"p%d":{"type":"array","items":{"type":"string","description":"\"{{"}}`, i)
			objects += 2
		} else {
			fmt.Fprintf(&b, `"p%d":{"description":"}{"}`, i)
			objects++
		}
	}
	b.WriteString(`}}`)
	return b.String(), objects
}

// objectsIn counts the objects of a decoded JSON value.
func objectsIn(v any) int {
	switch v := v.(type) {
	case map[string]any:
		n := 1
		for _, x := range v {
			n += objectsIn(x)
		}
		return n
	case []any:
		n := 0
		for _, x := range v {
			n += objectsIn(x)
		}
		return n
	}
	return 0
}

// A plugin offers at most MaxPluginTools tools, whose schemas hold at most
// MaxPluginSchemaObjects objects together: generated descriptions around
// both bounds are refused exactly when over one, before any schema is
// compiled.
func TestPluginToolsAreBounded(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for round := range 12 {
		var d sdk.Description
		tools := 1 + rng.IntN(40)
		if round%3 == 0 {
			tools = MaxPluginTools - 2 + rng.IntN(4)
		}
		want := 0
		per := 2 + rng.IntN(2*MaxPluginSchemaObjects/tools)
		for i := range tools {
			schema := `{}`
			if round%3 != 0 {
				var n int
				schema, n = schemaOf(rng, per)
				if i == 0 && n < 2000 { // the generator, checked on a round's first schema
					var v any
					if err := json.Unmarshal([]byte(schema), &v); err != nil || objectsIn(v) != n {
						t.Fatalf("generated schema of %d objects counts %d (%v)", n, objectsIn(v), err)
					}
				}
				want += n
			} else {
				want++
			}
			d.Tools = append(d.Tools, sdk.ToolSpec{Name: fmt.Sprint("t", i), Parameters: json.RawMessage(schema)})
		}
		err := checkToolCount(&d)
		over := tools > MaxPluginTools || want > MaxPluginSchemaObjects
		if over != (err != nil) {
			t.Fatalf("round %d: %d tools, %d schema objects: %v", round, tools, want, err)
		}
	}
	// Through the decoder: refused before the schemas compile.
	for _, c := range []struct {
		tools, props int
		want         string
	}{
		{MaxPluginTools + 1, 0, "wasmtool.MaxPluginTools"},
		{21, 960, "wasmtool.MaxPluginSchemaObjects"},
	} {
		var b strings.Builder
		b.WriteString(`{"abi":1,"name":"x","tools":[`)
		for i := range c.tools {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"name":"t%d","description":"d","parameters":{"type":"object","properties":{`, i)
			for j := range c.props {
				if j > 0 {
					b.WriteByte(',')
				}
				fmt.Fprintf(&b, `"p%d_%d":{}`, j, i)
			}
			b.WriteString(`}}}`)
		}
		b.WriteString(`]}`)
		if _, err := parseDescription([]byte(b.String())); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("%d tools of %d properties: err = %v, want %s", c.tools, c.props, err, c.want)
		}
	}
}

// A plugin declares at most MaxNeeds needs of each kind: generated
// descriptions around the bound are refused exactly when over it; and the
// error that lists needs not granted is bounded and printable, however
// long and strange the plugin's paths, hosts, keys and reasons (on the
// old main 250,000 declared paths fitted in a description, and a hint
// deduplicated them pairwise).
func TestNeedsAreBounded(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	strange := func() string {
		return strings.Repeat("\x1b[31m\u202ewhy ", 1+rng.IntN(300))
	}
	for round := range 16 {
		counts := [3]int{rng.IntN(MaxNeeds + 1), rng.IntN(MaxNeeds + 1), rng.IntN(MaxNeeds + 1)}
		if round%2 == 0 {
			counts[rng.IntN(3)] = MaxNeeds + 1 + rng.IntN(3)
		}
		n := &sdk.Needs{}
		for i := range counts[0] {
			n.Paths = append(n.Paths, sdk.PathNeed{Guest: fmt.Sprintf("/p%d/%s", i, strange()), Why: strange()})
		}
		for i := range counts[1] {
			n.Hosts = append(n.Hosts, sdk.HostNeed{Host: fmt.Sprintf("h%d.%s", i, strange()), Why: strange()})
		}
		for i := range counts[2] {
			n.Config = append(n.Config, sdk.ConfigNeed{Key: fmt.Sprintf("k%d%s", i, strange()), Why: strange()})
		}
		d := &sdk.Description{Needs: n}
		err := checkToolCount(d)
		over := max(counts[0], counts[1], counts[2]) > MaxNeeds
		if over != (err != nil) || (over && !strings.Contains(err.Error(), "wasmtool.MaxNeeds")) {
			t.Fatalf("round %d: needs %v: %v", round, counts, err)
		}
		msg := (&MissingGrantsError{Missing: n}).Error()
		// each need shown as its texts, clipped, with a little wording
		if limit := 100 + (maxNeedsShown+1)*(2*maxNeedRunes+40); len([]rune(msg)) > limit {
			t.Fatalf("round %d: needs %v: the error has %d runes, more than %d", round, counts, len([]rune(msg)), limit)
		}
		if strings.ContainsAny(msg, "\x1b\u202e") {
			t.Fatalf("round %d: the error carries control characters", round)
		}
	}
}
