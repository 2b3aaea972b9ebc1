package extismcompat

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

// Every entry of Plugins is a plugin of this module: one removed or
// renamed fails here rather than leaving the prewarm a name it skips.
func TestPluginsExist(t *testing.T) {
	root, err := wasmbuild.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range Plugins {
		found := false
		for _, f := range []string{"main.go", "package.json"} {
			if _, err := os.Stat(filepath.Join(root, dir, f)); err == nil {
				found = true
			}
		}
		if !found {
			t.Errorf("extismcompat.Plugins lists %s, which holds no plugin (no main.go, no package.json)", dir)
		}
	}
}

// Check passes a small module and a listed Go plugin, and refuses a
// large module no entry of Plugins builds, naming what to do.
func TestCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a plugin")
	}
	if err := Check(make([]byte, LargeModule-1)); err != nil {
		t.Errorf("a small module: %v", err)
	}
	probe, err := os.ReadFile(wasmbuild.ForTest(t, "internal/testplugins/probe"))
	if err != nil {
		t.Fatal(err)
	}
	if len(probe) < LargeModule {
		t.Fatalf("probe is %d bytes: not a large module, so this test proves nothing", len(probe))
	}
	if err := Check(probe); err != nil {
		t.Errorf("probe, listed: %v", err)
	}
	other := append([]byte(nil), probe...)
	other[len(other)-1] ^= 1
	if err := Check(other); err == nil || !strings.Contains(err.Error(), "extismcompat.Plugins") {
		t.Errorf("a large module not listed: %v, want an error naming extismcompat.Plugins", err)
	}
}
