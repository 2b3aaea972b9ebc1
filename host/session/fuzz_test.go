package session_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/wasmagent/wasmagent/host/session"
)

// FuzzDecode: no input makes Decode panic; what it accepts re-encodes to
// lines it accepts again with the same entries, and every branch of it
// builds a view.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"type":"session","version":3,"id":"u","timestamp":"2024-12-03T14:00:00.000Z","cwd":"/p"}
{"type":"message","id":"a1","parentId":null,"timestamp":"2024-12-03T14:00:01.000Z","message":{"role":"user","content":"Hello","timestamp":1}}
{"type":"message","id":"b2","parentId":"a1","timestamp":"2024-12-03T14:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"t","arguments":{}}],"api":"x","provider":"p","model":"m","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":2}}
{"type":"compaction","id":"c3","parentId":"b2","timestamp":"2024-12-03T14:10:00.000Z","summary":"S","firstKeptEntryId":"b2","tokensBefore":5}
{"type":"session_info","id":"d4","parentId":"c3","timestamp":"2024-12-03T14:10:00.000Z","name":"n"}
{"type":"mess`))
	f.Add([]byte(`{"type":"session","id":"x"}` + "\n" + `{"type":"message","timestamp":"t","message":{"role":"hookMessage","content":"c"}}` + "\n"))
	f.Add([]byte("{\"type\":\"session\",\"version\":2,\"id\":\"x\"}\r\n{\"type\":\"label\",\"id\":\"a\",\"parentId\":\"a\"}\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := session.Decode(data)
		if err != nil {
			return
		}
		if tr.Complete > int64(len(data)) || (tr.Complete > 0 && data[tr.Complete-1] != '\n') {
			t.Fatalf("Complete %d of %d", tr.Complete, len(data))
		}
		for _, e := range tr.Entries {
			tr.View(e.ID)
		}
		v := tr.View(tr.Leaf())
		session.Interrupted(v.Messages, 0)
		var b bytes.Buffer
		hdr, _ := json.Marshal(tr.Header)
		b.Write(hdr)
		b.WriteByte('\n')
		for _, e := range tr.Entries {
			line, err := json.Marshal(e)
			if err != nil {
				t.Fatalf("entry %s does not encode: %v", e.ID, err)
			}
			if bytes.ContainsRune(line, '\n') {
				t.Fatalf("entry %s encodes with a newline", e.ID)
			}
			b.Write(line)
			b.WriteByte('\n')
		}
		again, err := session.Decode(b.Bytes())
		if err != nil {
			t.Fatalf("re-encoded file does not decode: %v", err)
		}
		if len(again.Entries) != len(tr.Entries) {
			t.Fatalf("%d entries, then %d:\n%s", len(tr.Entries), len(again.Entries), b.Bytes())
		}
	})
}

// A file named by path is a session exactly when Decode reads a header
// from it: Find and Remove accept what Decode accepts, and nothing else;
// a file refused is left as it was.
func FuzzLocatePath(f *testing.F) {
	f.Add([]byte(`{"type":"session","version":3,"id":"x"}` + "\n"))
	f.Add([]byte("\r\n  \n" + `{"type":"session","id":"x"}` + "\r\n{bad\n"))
	f.Add([]byte(`{"type":"session","version":3,"id":"x"}`))
	f.Add([]byte("hello\n"))
	f.Add([]byte(`{"type":"session","version":4,"id":"x"}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		store := &session.FileStore{Dir: dir, NoSync: true}
		path := filepath.Join(dir, "f.jsonl")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		_, decodeErr := session.Decode(data)
		_, findErr := session.Find(context.Background(), store, path)
		if (decodeErr == nil) != (findErr == nil) {
			t.Fatalf("Decode: %v; Find: %v", decodeErr, findErr)
		}
		if findErr != nil {
			if store.Remove(context.Background(), path) == nil {
				t.Fatal("Remove removed a file that is not a session")
			}
			if got, _ := os.ReadFile(path); !bytes.Equal(got, data) {
				t.Fatal("the file changed")
			}
		}
	})
}
