package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host/config"
)

// [telemetry] read: defaults filled in, header values taken from the
// environment only when asked, with errors naming the key.
func TestTelemetryConfig(t *testing.T) {
	text := `
[telemetry]
exporter = "otlp-http"
headers = { Authorization = "WA_TEST_TEL_AUTH" }
sampling = 0.25
arguments = true
`
	f, err := loadTools(t, text)
	if err != nil {
		t.Fatal(err)
	}
	tel := f.Telemetry
	if !tel.Enabled() || tel.Endpoint != "http://localhost:4318" || *tel.Sampling != 0.25 || !tel.Arguments || tel.Results {
		t.Fatalf("telemetry = %+v", tel)
	}
	t.Setenv("WA_TEST_TEL_AUTH", "")
	if _, err := f.TelemetryHeaders(); err == nil || !strings.Contains(err.Error(), "agent.toml:4: telemetry.headers.Authorization: the environment variable WA_TEST_TEL_AUTH is empty") {
		t.Errorf("unset variable: %v", err)
	}
	t.Setenv("WA_TEST_TEL_AUTH", "Bearer x\r\nX-Evil: 1")
	if _, err := f.TelemetryHeaders(); err == nil || strings.Contains(err.Error(), "Evil") {
		t.Errorf("a value with a line break: %v (and it must not be echoed)", err)
	}
	t.Setenv("WA_TEST_TEL_AUTH", "Bearer s3cret")
	h, err := f.TelemetryHeaders()
	if err != nil || h.Get("Authorization") != "Bearer s3cret" {
		t.Errorf("headers = %v, %v", h, err)
	}
	off, err := loadTools(t, "")
	if err != nil || off.Telemetry.Enabled() {
		t.Errorf("telemetry is on by default: %+v %v", off.Telemetry, err)
	}
}

func loadTools(t *testing.T, text string) (*config.File, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "agent.toml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return config.LoadTools(path)
}
