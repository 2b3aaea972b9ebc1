package main

import (
	"testing"

	"github.com/wasmagent/wasmagent/sdk/sdktest"
)

// Runs natively, with the same JSON in and out as in the host, and the
// arguments validated against the schema as the host would. The same
// plugin in the real host: build it for wasip1 and run
// wasmagent plugin call (README.md).
func TestWordcount(t *testing.T) {
	var h sdktest.Host
	r, err := h.Execute("wordcount", map[string]any{"text": "two words\nand three more\n"})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Content[0].Text; got != "2 lines, 5 words, 25 characters" {
		t.Fatalf("got %q", got)
	}
	r, err = h.Execute("wordcount", map[string]any{"text": "hello"})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Content[0].Text; got != "1 line, 1 word, 5 characters" {
		t.Fatalf("got %q", got)
	}
	if _, err := h.Execute("wordcount", map[string]any{}); err == nil {
		t.Fatal("a call without text was accepted")
	}
}

// The description the host reads: the name, the tool and its schema.
func TestDescribe(t *testing.T) {
	var h sdktest.Host
	d, err := h.Describe()
	if err != nil {
		t.Fatal(err)
	}
	if d.Name != "wordcount" || len(d.Tools) != 1 || d.Tools[0].Name != "wordcount" {
		t.Fatalf("description: %+v", d)
	}
}
