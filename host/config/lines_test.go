package config_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host/config"
)

// A bad value put at a random key of a random tool, in generated files
// whose tools are written in every TOML form ([tool.grants] headers, dotted
// keys, inline tables, arrays across lines, comments and strings that look
// like keys), is reported alone, at its own line, under its indexed key.
func TestBadValueLineAndKey(t *testing.T) {
	type bad struct{ key, value string }
	bads := []bad{
		{"grants.timeout", "30"},
		{"grants.memory", `"lots"`},
		{"grants.clock", `"yes"`},
		{"grants.max_output", "-1"},
		{"grants.log_level", `"loud"`},
		{"grants.hosts[1]", `"https://example.com/x"`},
		{"grants.dirs[0].guest", `"relative"`},
		{"pool", `"four"`},
		{"pool", "1000"},
		{"image", `"no"`},
		{"sha256", `"abc"`},
		{"grantz", "1"},
		{"grants.hostz", `["a.com"]`},
		{"sequential", `"read"`},
		{"rename.read", `"bad name"`},
	}
	for seed := range uint64(400) {
		r := rand.New(rand.NewPCG(seed, 7))
		n := 1 + r.IntN(5)
		target, b := r.IntN(n), bads[r.IntN(len(bads))]
		text, line := generate(r, n, target, b.key, b.value)
		_, err := config.Parse("testdata/gen.toml", []byte(text))
		want := fmt.Sprintf("tool[%d].%s", target, b.key)
		var got []*config.Error
		for _, e := range unjoin(err) {
			var ce *config.Error
			if !errors.As(e, &ce) {
				t.Fatalf("seed %d: %v is not a *config.Error", seed, e)
			}
			got = append(got, ce)
		}
		if len(got) != 1 || got[0].Key != want || got[0].Line != line {
			t.Fatalf("seed %d: want one error at line %d key %s, got:\n%v\nfile:\n%s", seed, line, want, err, numbered(text))
		}
	}
}

func unjoin(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// generate writes a configuration of n tools whose tool target has key set
// to value (every other value is good), and returns it with the line of
// the bad key.
func generate(r *rand.Rand, n, target int, key, value string) (string, int) {
	var b strings.Builder
	lines := 0
	badLine := 0
	emit := func(s string) {
		b.WriteString(s + "\n")
		lines += strings.Count(s, "\n") + 1
	}
	noise := func() {
		switch r.IntN(5) {
		case 0:
			emit("")
		case 1:
			emit("# [[tool]] plugin = \"commented out\"")
		case 2:
			emit("   ")
		}
	}
	emit(`[model]`)
	emit(`provider = "scripted"`)
	emit(`script = "script.json"`)
	emit(`[agent]`)
	emit("system_prompt = \"\"\"\n[[tool]]\ngrants = 1\n\"\"\"")
	for i := range n {
		noise()
		emit("[[tool]]")
		set := map[string]string{
			"plugin":               `"placeholder-plugin"`,
			"pool":                 "2",
			"image":                "false",
			"sha256":               `"` + strings.Repeat("ab", 32) + `"`,
			"sequential":           `["write"]`,
			"rename.read":          `"fs_read"`,
			"grants.timeout":       `"5s"`,
			"grants.memory":        `"16MiB"`,
			"grants.clock":         "true",
			"grants.max_output":    "65536",
			"grants.log_level":     `"warn"`,
			"grants.hosts[1]":      `"b.example.com"`,
			"grants.dirs[0].guest": `"/work"`,
		}
		if i == target {
			set[key] = value
		}
		bad := func(k string) bool { return i == target && k == key }
		// Top-level keys of the tool, in a random order.
		top := []string{"plugin", "pool", "image", "sha256", "sequential"}
		if i == target && !strings.Contains(key, ".") && set[key] != "" && !contains(top, key) {
			top = append(top, key)
		}
		r.Shuffle(len(top), func(a, c int) { top[a], top[c] = top[c], top[a] })
		for _, k := range top {
			noise()
			if bad(k) {
				badLine = lines + 1
			}
			emit(k + " = " + set[k])
		}
		// rename as an inline table or a header.
		if bad("rename.read") {
			badLine = lines + 1
		}
		emit("rename = { read = " + set["rename.read"] + " }")
		grantKeys := []string{"grants.timeout", "grants.memory", "grants.clock", "grants.max_output", "grants.log_level"}
		if i == target && strings.HasPrefix(key, "grants.") && !contains(grantKeys, key) && !strings.Contains(key, "[") {
			grantKeys = append(grantKeys, key)
		}
		hosts := func() {
			if r.IntN(2) == 0 {
				emit(`hosts = ["a.example.com", ` + set["grants.hosts[1]"] + `]`)
				if bad("grants.hosts[1]") {
					badLine = lines
				}
				return
			}
			emit("hosts = [")
			emit(`  "a.example.com", # a comment with "quotes" and [brackets]`)
			if bad("grants.hosts[1]") {
				badLine = lines + 1
			}
			emit("  " + set["grants.hosts[1]"] + ",")
			emit("]")
		}
		dirs := func(prefix string) {
			if bad("grants.dirs[0].guest") {
				badLine = lines + 1
			}
			emit(prefix + `dirs = [{ host = ".", guest = ` + set["grants.dirs[0].guest"] + ` }]`)
		}
		switch r.IntN(2) {
		case 0: // [tool.grants] header
			emit("[tool.grants]")
			for _, k := range grantKeys {
				noise()
				if bad(k) {
					badLine = lines + 1
				}
				emit(strings.TrimPrefix(k, "grants.") + " = " + set[k])
			}
			hosts()
			dirs("")
		case 1: // dotted keys under [[tool]]
			for _, k := range grantKeys {
				noise()
				if bad(k) {
					badLine = lines + 1
				}
				emit(k + " = " + set[k])
			}
			dirs("grants.")
			emit(`grants.hosts = ["a.example.com", ` + set["grants.hosts[1]"] + `]`)
			if bad("grants.hosts[1]") {
				badLine = lines
			}
		}
	}
	return b.String(), badLine
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func numbered(text string) string {
	var b strings.Builder
	for i, l := range strings.Split(text, "\n") {
		fmt.Fprintf(&b, "%3d %s\n", i+1, l)
	}
	return b.String()
}
