package config

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host/provider"
)

// A program that wires agent.toml without linking the provider it names
// gets an error at model.provider, with the file and line, that says
// which package to import.
func TestProviderNotLinked(t *testing.T) {
	defer func(l func(string) (provider.Func, bool)) { lookupProvider = l }(lookupProvider)
	lookupProvider = func(string) (provider.Func, bool) { return nil, false }
	path := filepath.Join(t.TempDir(), "agent.toml")
	os.WriteFile(path, []byte("[model]\nname = \"m\"\nprovider = \"openai\"\nbase_url = \"http://127.0.0.1:1/v1\"\n"), 0o644)
	f, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Wire(context.Background(), WireOptions{})
	if err == nil || !strings.Contains(err.Error(), "agent.toml:3: model.provider: the openai provider is not linked into this program") || !strings.Contains(err.Error(), `import _ "github.com/wasmagent/wasmagent/host/openai"`) {
		t.Fatalf("err = %v", err)
	}
	s, err := f.Wire(context.Background(), WireOptions{NoModel: true})
	if err != nil {
		t.Fatalf("without a model the provider is not needed: %v", err)
	}
	s.Close()
}
