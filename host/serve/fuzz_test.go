package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// FuzzDecodeCommand: any body decodes to a command or an InvalidError;
// a command has what its type needs, and encodes back to a body that
// decodes to the same command.
func FuzzDecodeCommand(f *testing.F) {
	for _, s := range []string{
		`{"message":"hi"}`, `{"type":"prompt","id":7,"message":"x","streamingBehavior":"steer"}`,
		`{"message":"x","images":[{"type":"image","data":"AAAA","mimeType":"image/png"}]}`,
		`{"message":null}`, `{"message":"a"}{"message":"b"}`, ``, `[]`, `{"images":[{}]}`, `{"message":"\u2028"}`,
	} {
		for _, typ := range []string{"prompt", "steer", "follow_up", "abort"} {
			f.Add(s, typ)
		}
	}
	f.Fuzz(func(t *testing.T, body, typ string) {
		switch typ {
		case "prompt", "steer", "follow_up", "abort":
		default:
			typ = "prompt"
		}
		c, err := decodeCommandJSON([]byte(body), typ)
		if err != nil {
			if _, ok := err.(*InvalidError); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		if c.Type != typ || (typ != "abort" && c.Message == nil) {
			t.Fatalf("decoded %+v from %q", c, body)
		}
		var again []byte
		if typ == "abort" {
			again = []byte(`{}`)
		} else {
			again, _ = json.Marshal(c)
		}
		c2, err := decodeCommandJSON(again, typ)
		if err != nil {
			t.Fatalf("re-encoded %s does not decode: %v", again, err)
		}
		a, _ := json.Marshal(c)
		b, _ := json.Marshal(c2)
		if !bytes.Equal(a, b) {
			t.Fatalf("round trip: %s became %s", a, b)
		}
	})
}

// FuzzDecodeCreate: any body decodes to a request or an InvalidError.
func FuzzDecodeCreate(f *testing.F) {
	for _, s := range []string{`{}`, `{"name":"n","systemPrompt":"p","model":{"provider":"a","modelId":"b"}}`, `{"model":{}}`, `{"name":1}`, `nul`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		req, err := decodeCreate(strings.NewReader(body))
		if err != nil {
			if _, ok := err.(*InvalidError); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		if m := req.Model; m != nil && (m.Provider == "" || m.ModelID == "") {
			t.Fatalf("accepted model %+v", m)
		}
	})
}

// FuzzJournal: any file content opens as a journal whose events are its
// whole lines of the form "<ms> <JSON object>", in order (other lines keep
// their number and are skipped); a torn last line is cut; an append after
// it reads back exactly, with the next id.
func FuzzJournal(f *testing.F) {
	f.Add([]byte("1 {\"type\":\"a\"}\n2 {\"type\":\"b\"}\n"), []byte(`{"type":"c"}`))
	f.Add([]byte("1 {\"type\":\"a\"}\n2 {\"type\":\"b"), []byte(`{}`))
	f.Add([]byte("garbage\n{\"x\":1}\n\n17 {\"y\":2}\n"), []byte(`{"y":"\u2028"}`))
	f.Add([]byte("x {}\n999999999999999999 {}\n 1 {}\n"), []byte("{\"a\":\n1}"))
	f.Fuzz(func(t *testing.T, content, event []byte) {
		offs, bad, whole, err := scanJournal(bytes.NewReader(content))
		if err != nil {
			t.Fatal(err)
		}
		if whole > int64(len(content)) || (whole > 0 && content[whole-1] != '\n') || bytes.IndexByte(content[whole:], '\n') >= 0 {
			t.Fatalf("whole %d of %q", whole, content)
		}
		lines := bytes.SplitAfter(content[:whole], []byte("\n"))
		lines = lines[:len(lines)-1] // after the last LF
		if len(offs) != len(lines) {
			t.Fatalf("%d offsets for %d lines", len(offs), len(lines))
		}
		path := filepath.Join(t.TempDir(), "j.jsonl")
		os.WriteFile(path, content, 0o600)
		j, err := openJournal(path, false)
		if err != nil {
			t.Fatal(err)
		}
		defer j.f.Close()
		seq, err := j.append(event, false)
		valid := bytes.IndexByte(event, '\n') < 0
		if !valid {
			if err == nil {
				t.Fatal("an event with a line feed was written")
			}
		} else if err != nil || seq != len(lines)+1 {
			t.Fatalf("append: %d %v", seq, err)
		}
		var want []string
		for i, l := range lines {
			if bad[i] {
				continue
			}
			ms, obj, ok := bytes.Cut(bytes.TrimSuffix(l, []byte("\n")), []byte(" "))
			if !ok || !json.Valid(obj) || obj[0] != '{' {
				t.Fatalf("line %d %q is not bad", i+1, l)
			}
			n, err := strconv.ParseInt(string(ms), 10, 64)
			if err != nil || n < 0 {
				t.Fatalf("line %d %q has no time", i+1, l)
			}
			want = append(want, fmt.Sprintf("%d %d %s", i+1, n, obj))
		}
		s := &journalStream{j: j, next: 1, release: func() {}}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		var got []string
		var last Event
		for {
			ev, err := s.Next(ctx)
			if err != nil {
				break
			}
			last = ev
			got = append(got, fmt.Sprintf("%s %d %s", ev.ID, ev.Time.UnixMilli(), ev.Data))
		}
		appended := valid && json.Valid(event) && len(event) >= 2 && event[0] == '{'
		if appended {
			if last.ID != strconv.Itoa(seq) || string(last.Data) != string(event) || time.Since(last.Time) > time.Minute {
				t.Fatalf("the appended event read back as %+v", last)
			}
			got = got[:len(got)-1]
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("read back\n%q\nwant\n%q", got, want)
		}
	})
}

// FuzzParseTokens: any token list parses or is refused; parsed tokens
// have valid, distinct names and distinct hashes, and each authenticates
// only by a token hashing to it.
func FuzzParseTokens(f *testing.F) {
	f.Add("alice " + HashToken("a-token-of-16-bytes") + "\n# c\nbob " + HashToken("another-token-xx"))
	f.Add("x sha256:zz,y")
	f.Fuzz(func(t *testing.T, list string) {
		toks, err := ParseTokens([]byte(list), "f")
		if err != nil {
			return
		}
		names := map[string]bool{}
		for _, tk := range toks {
			if !ownerName().MatchString(tk.Name) || names[tk.Name] {
				t.Fatalf("token name %q", tk.Name)
			}
			names[tk.Name] = true
		}
		if _, ok := authenticate(toks, list); ok && !strings.Contains(list, HashToken(list)[7:]) {
			t.Fatal("a token authenticates without its hash in the list")
		}
	})
}

// FuzzParseAfter: an accepted Last-Event-ID is the decimal form of a
// number from 0 to last.
func FuzzParseAfter(f *testing.F) {
	f.Add("", 0)
	f.Add("12", 20)
	f.Add("007", 9)
	f.Add("99999999999999999999999", 5)
	f.Fuzz(func(t *testing.T, after string, last int) {
		n, err := parseAfter(after, last)
		if err != nil {
			return
		}
		if after == "" {
			if n != 0 {
				t.Fatal("empty is not 0")
			}
			return
		}
		if strconv.Itoa(n) != after || n < 0 || n > last {
			t.Fatalf("%q accepted as %d (last %d)", after, n, last)
		}
	})
}

// FuzzDecodeMeta: any metadata file decodes or is refused.
func FuzzDecodeMeta(f *testing.F) {
	f.Add([]byte(`{"systemPrompt":"p","model":{"provider":"a","modelId":"b"},"created":"2026-01-01T00:00:00Z"}`))
	f.Add([]byte(`{"created":5}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		decodeMeta(data)
	})
}

// FuzzBearer: any Authorization header yields a token or none; "Bearer X"
// in any case yields X trimmed.
func FuzzBearer(f *testing.F) {
	f.Add("Bearer abc")
	f.Add("bearer  abc ")
	f.Add("Basic abc")
	f.Add("Bearer")
	f.Fuzz(func(t *testing.T, header string) {
		tok, ok := bearer(header)
		if ok && (tok == "" || tok != strings.TrimSpace(tok)) {
			t.Fatalf("%q gave token %q", header, tok)
		}
		if want := strings.TrimSpace(header); ok && !strings.HasSuffix(want, tok) {
			t.Fatalf("%q gave token %q", header, tok)
		}
	})
}
