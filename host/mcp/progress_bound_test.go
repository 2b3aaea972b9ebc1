package mcp

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// The partial results waiting for a slow client are bounded in bytes as
// well as in number: on the old main 64 of them (what the count allowed)
// of a plugin's 8 MiB each held 512 MiB; at most maxPendingBytes now
// (scaled down here, with the updates, by 128). The first ones are kept,
// in order.
func TestPendingProgressIsBounded(t *testing.T) {
	old := maxPendingBytes
	maxPendingBytes = 64 << 10
	t.Cleanup(func() { maxPendingBytes = old })
	p := &progress{wake: make(chan struct{}, 1)} // no sender: a client that reads nothing
	big := strings.Repeat("x", 8<<10)
	for i := range maxPendingUpdates {
		raw, _ := json.Marshal(map[string]any{"content": []map[string]string{{"type": "text", "text": fmt.Sprintf("%d %s", i, big)}}})
		p.update(json.RawMessage(raw))
	}
	held := 0
	for i, text := range p.pending {
		held += len(text)
		if !strings.HasPrefix(text, fmt.Sprintf("%d ", i)) {
			t.Fatalf("pending %d is %.10q…, want update %d", i, text, i)
		}
	}
	if held > maxPendingBytes || held != p.bytes {
		t.Fatalf("%d updates pending, %d bytes (counted %d), over %d", len(p.pending), held, p.bytes, maxPendingBytes)
	}
	if len(p.pending) == 0 {
		t.Fatal("nothing pending")
	}
}
