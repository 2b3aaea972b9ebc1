package web

import (
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// schemes reads the colour variables of style.css: the light scheme (the
// first :root block) and the dark one (the :root in the
// prefers-color-scheme: dark block), the dark inheriting what it does not
// set.
func schemes(t *testing.T) map[string]map[string]string {
	t.Helper()
	b, err := os.ReadFile("static/style.css")
	if err != nil {
		t.Fatal(err)
	}
	css := string(b)
	vars := regexp.MustCompile(`(--[a-z-]+):\s*(#[0-9a-fA-F]{6})\s*;`)
	read := func(block string) map[string]string {
		m := map[string]string{}
		for _, v := range vars.FindAllStringSubmatch(block, -1) {
			m[v[1]] = v[2]
		}
		return m
	}
	light := read(css[:strings.Index(css, "@media (prefers-color-scheme: dark)")])
	darkAt := strings.Index(css, "@media (prefers-color-scheme: dark)")
	darkEnd := darkAt + strings.Index(css[darkAt:], "}\n}")
	dark := map[string]string{}
	for k, v := range light {
		dark[k] = v
	}
	for k, v := range read(css[darkAt:darkEnd]) {
		dark[k] = v
	}
	if len(light) < 8 || len(dark) != len(light) {
		t.Fatalf("could not read the colours: light %v, dark %v", light, dark)
	}
	return map[string]map[string]string{"light": light, "dark": dark}
}

func luminance(hex string) float64 {
	ch := func(i int) float64 {
		v, _ := strconv.ParseUint(hex[1+2*i:3+2*i], 16, 8)
		c := float64(v) / 255
		if c <= 0.03928 {
			return c / 12.92
		}
		return math.Pow((c+0.055)/1.055, 2.4)
	}
	return 0.2126*ch(0) + 0.7152*ch(1) + 0.0722*ch(2)
}

func contrast(a, b string) float64 {
	la, lb := luminance(a), luminance(b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

// TestContrast: every text colour on every background it is drawn on
// meets WCAG 2 AA (4.5:1), in the light and the dark scheme; the focus
// ring and the lines meet 3:1 (non-text).
func TestContrast(t *testing.T) {
	text := [][2]string{
		{"--fg", "--bg"}, {"--fg", "--panel"}, {"--muted", "--bg"}, {"--muted", "--panel"},
		{"--bar-fg", "--model"}, {"--bar-fg", "--tool"}, {"--bar-fg", "--error"},
		{"--error", "--panel"}, {"--error", "--bg"},
	}
	other := [][2]string{{"--focus", "--bg"}, {"--line", "--bg"}, {"--mark", "--panel"}, {"--model", "--panel"}, {"--tool", "--panel"}}
	for name, c := range schemes(t) {
		for _, p := range text {
			if r := contrast(c[p[0]], c[p[1]]); r < 4.5 {
				t.Errorf("%s: %s %s on %s %s: %.2f:1, want 4.5:1", name, p[0], c[p[0]], p[1], c[p[1]], r)
			}
		}
		for _, p := range other {
			if r := contrast(c[p[0]], c[p[1]]); r < 3 {
				t.Errorf("%s: %s %s on %s %s: %.2f:1, want 3:1", name, p[0], c[p[0]], p[1], c[p[1]], r)
			}
		}
	}
}
