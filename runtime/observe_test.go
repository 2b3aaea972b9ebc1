package runtime_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/wasmagent/wasmagent/runtime"
	"github.com/wasmagent/wasmagent/sdk"
)

// Observed says what a call read from outside: nothing for describe and a
// pure tool, even with a directory granted (the runtime opening the
// directory is not the plugin reading it); files for a read or a stat;
// the network for an HTTP request, granted or not.
func TestObserved(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello"), 0o644)
	p := probe(t, runtime.Grants{Dirs: []runtime.Dir{{Host: dir, Guest: "/work"}}}, 1)
	run := func(export, tool string, args any) runtime.Observed {
		t.Helper()
		var in []byte
		if tool != "" {
			a, _ := json.Marshal(args)
			in, _ = json.Marshal(sdk.ExecuteInput{ToolCallID: "c", Name: tool, Args: a})
		}
		var o runtime.Observed
		p.Call(context.Background(), export, in, &runtime.CallOptions{Observed: &o})
		return o
	}
	for _, c := range []struct {
		name         string
		export, tool string
		args         any
		want         runtime.Observed
	}{
		{"describe", sdk.ExportDescribe, "", nil, runtime.Observed{}},
		{"echo", sdk.ExportExecute, "echo", map[string]string{"text": "x"}, runtime.Observed{}},
		{"read", sdk.ExportExecute, "read", map[string]string{"path": "/work/a.txt"}, runtime.Observed{Files: true}},
		{"read of a missing file", sdk.ExportExecute, "read", map[string]string{"path": "/work/none"}, runtime.Observed{Files: true}},
		{"readlink", sdk.ExportExecute, "fsop", map[string]string{"op": "readlink", "path": "/work/a.txt"}, runtime.Observed{Files: true}},
		{"fetch", sdk.ExportExecute, "fetch", map[string]any{"url": "http://example.invalid/", "n": 1}, runtime.Observed{Network: true}},
	} {
		if got := run(c.export, c.tool, c.args); got != c.want {
			t.Errorf("%s: observed %+v, want %+v", c.name, got, c.want)
		}
	}
}
