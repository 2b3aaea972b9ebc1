package sdk

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// FuzzAppendJSONString: the SDK's string encoder is encoding/json's, byte
// for byte, on any bytes (invalid UTF-8, control characters, HTML, U+2028).
func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "plain", "a\"b\\c", "<&>", "\u2028\u2029", "\x00\x1f\x7f", "\xff\xfe", "é€😀", "\xed\xa0\x80", "\t\n\r\b\f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := appendJSONString([]byte("x"), s); !bytes.Equal(got[1:], want) || got[0] != 'x' {
			t.Fatalf("%q: got %s, want %s", s, got[1:], want)
		}
	})
}

// resultOf builds a Result from fuzz input: blocks of any type, text and
// data of any bytes and of lengths on either side of partMin.
func resultOf(a, b string, n uint16, flags uint8) *Result {
	long := strings.Repeat(a+"x", int(n)%700)
	r := &Result{IsError: flags&1 != 0, Terminate: flags&2 != 0}
	if flags&4 != 0 {
		r.Content = []Content{{Type: "text", Text: long}, {Type: a, Text: b, Data: long + b, MimeType: a}}
	}
	if flags&8 != 0 {
		r.Content = append(r.Content, Content{Type: "image", Data: b, MimeType: "image/png"}, Content{})
	}
	switch flags >> 4 & 3 {
	case 1:
		r.Details = map[string]any{"a": a, "n": int(n), "b": []byte(b)}
	case 2:
		r.Details = json.RawMessage(` {"x" : [1, 2] } `)
	case 3:
		r.Details = []string(nil)
	}
	return r
}

// FuzzEncodeResult: the SDK's result encoder is json.Marshal of the
// result (content never null), and the head of the output in parts, with
// each part put back in its place, is the same result.
func FuzzEncodeResult(f *testing.F) {
	f.Add("text", "", uint16(0), uint8(0))
	f.Add("<b>", "\xff\u2028", uint16(300), uint8(0xff))
	f.Add("é", "plain", uint16(256), uint8(0x1c))
	f.Fuzz(func(t *testing.T, a, b string, n uint16, flags uint8) {
		r := resultOf(a, b, n, flags)
		want, err := json.Marshal(r.wire())
		if err != nil {
			t.Fatal(err)
		}
		got, err := encodeResult(r)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("encodeResult:\n got %s (%v)\nwant %s", got, err, want)
		}
		e, _ := encodeDetails(r)
		head, parts := e.head(nil)
		back := fromHead(t, head, parts)
		var fromJSON Result
		if err := json.Unmarshal(want, &fromJSON); err != nil {
			t.Fatal(err)
		}
		if !equalContent(back.Content, fromJSON.Content) {
			t.Fatalf("head %s with %d parts does not give back %s", head, len(parts), want)
		}
	})
}

// fromHead puts the parts back into the head's blocks, raw.
func fromHead(t *testing.T, head []byte, parts []string) Result {
	var h struct {
		Content []struct {
			Content
			TextPart *int `json:"textPart"`
			DataPart *int `json:"dataPart"`
		} `json:"content"`
	}
	if err := json.Unmarshal(head, &h); err != nil {
		t.Fatalf("head %s: %v", head, err)
	}
	var r Result
	used := 0
	for _, c := range h.Content {
		if c.TextPart != nil {
			c.Text, used = parts[*c.TextPart], used+1
		}
		if c.DataPart != nil {
			c.Data, used = parts[*c.DataPart], used+1
		}
		r.Content = append(r.Content, c.Content)
	}
	if used != len(parts) {
		t.Fatalf("head %s names %d of %d parts", head, used, len(parts))
	}
	return r
}

// equalContent compares raw blocks with blocks that came through JSON:
// raw texts and data as JSON would carry them (invalid UTF-8 as U+FFFD).
func equalContent(got, want []Content) bool {
	if len(got) != len(want) {
		return false
	}
	norm := func(s string) string {
		b, _ := json.Marshal(s)
		var back string
		_ = json.Unmarshal(b, &back)
		return back
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.Type != w.Type || norm(g.Text) != w.Text || norm(g.Data) != w.Data || g.MimeType != w.MimeType {
			return false
		}
	}
	return true
}

// FuzzEncodeAfter: the SDK's encoder of a hook's output is json.Marshal.
func FuzzEncodeAfter(f *testing.F) {
	f.Add("text", "", uint16(0), uint8(0))
	f.Add("<b>", "\xff\u2028", uint16(300), uint8(0xff))
	f.Add("é", "plain", uint16(256), uint8(0xc4))
	f.Fuzz(func(t *testing.T, a, b string, n uint16, flags uint8) {
		r := resultOf(a, b, n, flags)
		out := &AfterOutput{Content: r.Content, Details: r.Details}
		if flags&0x40 != 0 {
			out.IsError = &r.IsError
		}
		if flags&0x80 != 0 {
			out.Terminate = &r.Terminate
		}
		want, err := json.Marshal(out)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := encodeAfter(out); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("encodeAfter:\n got %s (%v)\nwant %s", got, err, want)
		}
	})
}
