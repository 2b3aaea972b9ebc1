package main

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
)

// TestDemo runs the demo and checks what it exists to show.
func TestDemo(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), "script.json", &out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	order := func(pattern string) {
		t.Helper()
		if !regexp.MustCompile(`(?s)` + pattern).MatchString(got) {
			t.Fatalf("output does not match %q:\n%s", pattern, got)
		}
	}
	order(`start +call_1.*start +call_2.*start +call_3.*end +call_2.*end +call_3.*end +call_1`) // parallel, completion order
	order(`start +call_4.*end +call_4 ok.*start +call_5.*end +call_5 ERROR: policy`)            // sequential, blocked
	if !strings.Contains(got, "refused by policy") {
		t.Fatalf("final answer missing:\n%s", got)
	}
}
