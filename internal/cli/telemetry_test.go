package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/internal/cli"
)

// run with [telemetry] exports the run's spans and flushes them before it
// exits; the standard output carries only the run's own output.
func TestRunExportsTelemetry(t *testing.T) {
	chdir(t)
	cfg := scriptedConfig(t, `{"turns":[{"content":"hello"}]}`)
	spans := filepath.Join(filepath.Dir(cfg), "spans.jsonl")
	appendFile(t, cfg, "[telemetry]\nexporter = \"stdout\"\npath = \"spans.jsonl\"\n")
	out, errOut, code := runCLI(t, "run", "--json", "--no-session", "--config", cfg, "hi")
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if strings.Contains(out, "wasmagent.run") {
		t.Errorf("spans on the standard output:\n%s", out)
	}
	b, err := os.ReadFile(spans)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{`"Name":"wasmagent.run"`, `"Name":"wasmagent.turn"`, `"Name":"wasmagent.model"`} {
		if !strings.Contains(string(b), name) {
			t.Errorf("the spans file lacks %s:\n%s", name, b)
		}
	}
}

// A header whose environment variable is unset stops the start with an
// error naming the key.
func TestRunTelemetryHeaderUnset(t *testing.T) {
	chdir(t)
	cfg := scriptedConfig(t, `{"turns":[{"content":"hello"}]}`)
	appendFile(t, cfg, "[telemetry]\nexporter = \"otlp-http\"\nheaders = { Authorization = \"WA_TEST_UNSET_OTLP\" }\n")
	os.Unsetenv("WA_TEST_UNSET_OTLP")
	_, errOut, code := runCLI(t, "run", "--no-session", "--config", cfg, "hi")
	if code != cli.ExitUsage || !strings.Contains(errOut, "telemetry.headers.Authorization: the environment variable WA_TEST_UNSET_OTLP is empty or not set") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

func appendFile(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}
