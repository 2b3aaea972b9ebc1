package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

// inspect is how an operator looks at a plugin before granting it
// anything: the module's own text (export names, the description's
// strings) reaches the terminal only printable. On the old main an export
// named with an escape sequence went out raw, and could clear the screen
// or rewrite the line that lists the exports.
func TestInspectShowsHostileNamesPrintable(t *testing.T) {
	hostile := "\x1b[2J\x1b]0;title\x07\u202e\u009b"
	wasm := wasmbuild.ConstPlugin(map[string]string{
		"describe":    `{"abi":1,"name":"x\u001b[31m","tools":[{"name":"t","description":"d\u202e\u009b` + "\u202e\u009b" + `"}]}`,
		"execute":     `{"content":[]}`,
		"x" + hostile: "",
	})
	path := filepath.Join(t.TempDir(), "hostile.wasm")
	if err := os.WriteFile(path, wasm, 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := inspect(path)
	if code != 0 || !strings.Contains(out, "describe {") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, bad := range []string{"\x1b", "\x07", "\u202e", "\u009b"} {
		if strings.Contains(out+errOut, bad) {
			t.Errorf("%q reached the terminal:\n%q", bad, out)
		}
	}
	if !strings.Contains(out, "x^[[2J^[]0;title^G<U+202E>") {
		t.Errorf("the export is not shown in caret notation:\n%s", out)
	}
}
