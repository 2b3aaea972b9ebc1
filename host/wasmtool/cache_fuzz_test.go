package wasmtool

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/wasmagent/wasmagent/runtime"
)

// FuzzDescribeCache feeds arbitrary bytes to the cache's decoders, through
// the files they read: none may panic; an entry that decodes holds a
// description the host would accept from describe (it encodes again and
// decodes to the same), and what put writes, get reads back.
func FuzzDescribeCache(f *testing.F) {
	key, _ := cacheKey("00", runtime.Grants{})
	desc := `{"abi":1,"name":"x","tools":[{"name":"t","description":"d","parameters":{"type":"object"}}]}`
	for _, s := range []string{
		`{"format":1,"key":"` + key + `","description":` + desc + `}`,
		`{"format":1,"key":"` + key + `","description":null}`,
		`{"format":1,"key":"` + key + `","description":{"abi":1,"name":"x"}}`,
		`{"format":2,"key":"` + key + `","description":` + desc + `}`,
		`{"format":1,"path":"/p.wasm","stat":"dev=1","sha256":"` + key + `"}`,
		`{"format":1,"path":"/p.wasm","stat":"dev=1","sha256":"zz"}`,
		`{}`, `null`, `[]`, "\xff", `{"format":1e400}`,
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	c := NewDescribeCache(dir, slog.New(slog.NewTextHandler(io.Discard, nil)))
	f.Fuzz(func(t *testing.T, b []byte) {
		// As a description entry.
		os.WriteFile(c.path(key), b, 0o600)
		if d := c.get(key); d != nil {
			again, err := json.Marshal(d)
			if err != nil {
				t.Fatalf("an accepted description does not encode: %v", err)
			}
			if d2, err := parseDescription(again); err != nil || !sameDescription(d, d2) {
				t.Fatalf("an accepted description does not decode again: %v", err)
			}
			c.put(key, again)
			if d3 := c.get(key); d3 == nil || !sameDescription(d, d3) {
				t.Fatal("put then get lost the description")
			}
		}
		// As a file entry.
		if e, err := decodeFileEntry(b); err == nil {
			if e.Path == "" || e.Stat == "" || len(e.SHA256) != 64 {
				t.Fatalf("accepted %+v", e)
			}
		}
		// As either file, through the path the loader takes.
		p := filepath.Join(dir, "plugin.wasm")
		os.WriteFile(p, []byte("\x00asm\x01\x00\x00\x00"), 0o644)
		abs, _ := filepath.Abs(p)
		os.MkdirAll(filepath.Dir(c.filePath(abs)), 0o700)
		os.WriteFile(c.filePath(abs), b, 0o600)
		if sum, ok := c.fileSum(p); ok && !bytes.Contains(b, []byte(sum)) {
			t.Fatalf("a sum %q that the entry does not hold", sum)
		}
	})
}
