package cli_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/internal/cli"
)

// A configuration without tools or hooks says so, rather than printing an
// empty table.
func TestToolsNone(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "agent.toml")
	os.WriteFile(cfg, []byte("[model]\nprovider = \"openai\"\nname = \"m\"\nbase_url = \"http://127.0.0.1:1/v1\"\n"), 0o644)
	var out, errOut lockedBuffer
	code := cli.Main(context.Background(), []string{"tools", "--config", cfg}, cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
	if code != cli.ExitOK || !strings.Contains(out.String(), "no tools and no hooks") || strings.Contains(out.String(), "TOOL") {
		t.Fatalf("exit %d, %q, %q", code, out.String(), errOut.String())
	}
}
