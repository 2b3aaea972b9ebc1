package config

import (
	"strings"
	"testing"
)

// Every key of every section, telemetry and cluster included, is offered
// when a key one letter away is not known: the keys come from the types,
// so none is forgotten.
func TestSuggestEveryKey(t *testing.T) {
	for _, want := range []string{"exporter", "nats_url", "max_tool_calls_per_minute", "drain_timeout", "token_env", "image_memory", "sampling", "creds_file"} {
		if !strings.Contains(strings.Join(knownKeys, " "), want) {
			t.Errorf("%q is not a known key", want)
		}
	}
	for _, k := range knownKeys {
		if len(k) < 5 {
			continue
		}
		typo := k[:len(k)-1]
		if got := suggest("section." + typo); got == "" {
			t.Errorf("%q: no suggestion (want %q or a key as near)", typo, k)
		}
	}
}
