package cluster

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/host/session"
)

// A generated history of appends: whole ones, split ones, split ones cut
// short (their writer died or was fenced between parts), fences. What
// assemble returns is exactly the whole appends, in order.
func TestAssembleKeepsWholeAppendsOnly(t *testing.T) {
	for seed := uint64(0); seed < 500; seed++ {
		r := rand.New(rand.NewPCG(seed, 1))
		var frames []frame
		var want bytes.Buffer
		for i := 0; i < r.IntN(12); i++ {
			data := []byte(strings.Repeat(fmt.Sprintf("line %d.%d\n", seed, i), 1+r.IntN(4)))
			switch r.IntN(4) {
			case 0:
				frames = append(frames, frame{kind: kindFence})
			case 1:
				frames = append(frames, frame{kind: kindLog, data: data})
				want.Write(data)
			default:
				parts := split(data, 1+r.IntN(len(data)))
				torn := len(parts) > 1 && r.IntN(3) == 0
				n := len(parts)
				if torn {
					n = 1 + r.IntN(len(parts)-1)
				}
				for k := 0; k < n; k++ {
					f := frame{kind: kindLog, data: parts[k]}
					if len(parts) > 1 {
						f.part = fmt.Sprintf("%d/%d", k+1, len(parts))
					}
					frames = append(frames, f)
				}
				if !torn {
					want.Write(data)
				}
			}
		}
		got, warnings := assemble(frames)
		if !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("seed %d: got %q, want %q (warnings %q)", seed, got, want.Bytes(), warnings)
		}
	}
}

func TestAssembleDropsWhatCannotBeKept(t *testing.T) {
	for _, tc := range []struct {
		name   string
		frames []frame
		want   string
	}{
		{"a part without its first", []frame{{kind: kindLog, part: "2/2", data: []byte("b\n")}}, ""},
		{"parts out of order", []frame{{kind: kindLog, part: "1/3", data: []byte("a")}, {kind: kindLog, part: "3/3", data: []byte("c\n")}}, ""},
		{"a part count that changes", []frame{{kind: kindLog, part: "1/2", data: []byte("a")}, {kind: kindLog, part: "2/3", data: []byte("b\n")}}, ""},
		{"a bad part header", []frame{{kind: kindLog, part: "x", data: []byte("a\n")}, {kind: kindLog, data: []byte("b\n")}}, "b\n"},
		{"a torn line", []frame{{kind: kindLog, data: []byte("a")}, {kind: kindLog, data: []byte("b\n")}}, "b\n"},
		{"an unknown kind", []frame{{kind: "other", data: []byte("a\n")}, {kind: kindLog, data: []byte("b\n")}}, "b\n"},
		{"a fence inside an append", []frame{{kind: kindLog, part: "1/2", data: []byte("a")}, {kind: kindFence}, {kind: kindLog, part: "2/2", data: []byte("b\n")}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, warnings := assemble(tc.frames)
			if string(got) != tc.want || len(warnings) == 0 {
				t.Fatalf("got %q, warnings %q", got, warnings)
			}
		})
	}
}

// FuzzStoredMessages feeds the decoder of stored messages (assemble, then
// session.Decode, and the summary header) with arbitrary messages, as a
// foreign or broken writer could leave them: no panic, and what comes out
// is whole lines.
func FuzzStoredMessages(f *testing.F) {
	f.Add("log||{\"type\":\"session\",\"version\":3,\"id\":\"x\",\"timestamp\":\"2026-01-02T03:04:05.000Z\",\"cwd\":\"/\"}\n\x00log|1/2|{\"type\":\"message\",\x00log|2/2|\"id\":\"a\"}\n", `{"id":"x","messages":2,"first":"hi","modified":1}`)
	f.Add("fence||\x00log|65536/65536|a\n", `{"created":"nope"}`)
	f.Fuzz(func(t *testing.T, msgs, info string) {
		var frames []frame
		for _, m := range strings.Split(msgs, "\x00") {
			kind, rest, _ := strings.Cut(m, "|")
			part, data, _ := strings.Cut(rest, "|")
			frames = append(frames, frame{kind: kind, part: part, data: []byte(data)})
		}
		data, _ := assemble(frames)
		if len(data) > 0 && data[len(data)-1] != '\n' {
			t.Fatalf("assembled data ends mid-line: %q", data)
		}
		if len(data) > len(msgs) {
			t.Fatalf("assembled %d bytes from %d", len(data), len(msgs))
		}
		if tr, err := session.Decode(data); err == nil {
			s := summaryOf(tr)
			if len(s.First) > maxSummaryText || len(s.Name) > maxSummaryText {
				t.Fatalf("summary not clipped: %d, %d bytes", len(s.First), len(s.Name))
			}
		}
		infoOf("k", info, time.Time{})
	})
}

func TestClipKeepsRunes(t *testing.T) {
	s := strings.Repeat("é", maxSummaryText) // two bytes each
	got := clip(s)
	if len(got) > maxSummaryText || !strings.HasPrefix(s, got) || len(got) < maxSummaryText-1 {
		t.Fatalf("clip: %d bytes", len(got))
	}
}
