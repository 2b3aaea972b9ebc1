package wasmbuild

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The file make plugins wrote for an AssemblyScript plugin is used only
// while it is newer than every source file the build reads, in the
// plugin's directory and in the SDK's; a file the build does not read
// (a README, a Go test, node_modules) does not matter.
func TestMadeByMake(t *testing.T) {
	root := t.TempDir()
	dir, sdk := filepath.Join(root, "text"), filepath.Join(root, "sdk")
	write := func(path string, at time.Time) {
		t.Helper()
		os.MkdirAll(filepath.Dir(path), 0o700)
		if err := os.WriteFile(path, []byte(path), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, at, at); err != nil {
			t.Fatal(err)
		}
	}
	old, now := time.Now().Add(-time.Hour), time.Now()
	for _, f := range []string{"text/assembly/index.ts", "text/asconfig.json", "text/package.json", "text/package-lock.json", "sdk/index.ts"} {
		write(filepath.Join(root, f), old)
	}
	srcs := []string{dir, sdk}
	if got := madeByMake(dir, srcs); got != "" {
		t.Fatalf("no text.wasm yet, got %q", got)
	}
	made := filepath.Join(dir, "text.wasm")
	write(made, now.Add(-time.Minute))
	if got := madeByMake(dir, srcs); got != made {
		t.Fatalf("text.wasm newer than its sources: got %q", got)
	}
	for _, f := range []string{"text/README.md", "text/text_test.go", "text/node_modules/x/index.ts", "text/build/out.ts"} {
		write(filepath.Join(root, f), now)
	}
	if got := madeByMake(dir, srcs); got != made {
		t.Fatalf("a file the build does not read made text.wasm stale: got %q", got)
	}
	for _, f := range []string{"text/assembly/index.ts", "text/asconfig.json", "text/package-lock.json", "sdk/index.ts"} {
		path := filepath.Join(root, f)
		write(path, now)
		if got := madeByMake(dir, srcs); got != "" {
			t.Fatalf("%s is newer than text.wasm, which was used", f)
		}
		write(path, old)
	}
}

// A Go plugin's build target is seeded with the file make plugins wrote
// only when the target is not there: a build of its own is never
// replaced (go build decides, by the build ID, whether either is up to
// date).
func TestSeedFromMake(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "plugins", "calc"), 0o700)
	target := filepath.Join(t.TempDir(), "calc.build")
	seedFromMake(root, "plugins/calc", target)
	if _, err := os.Stat(target); err == nil {
		t.Fatal("seeded from a file make plugins never wrote")
	}
	os.WriteFile(filepath.Join(root, "plugins", "calc", "calc.wasm"), []byte("made"), 0o600)
	seedFromMake(root, "plugins/calc", target)
	if b, _ := os.ReadFile(target); string(b) != "made" {
		t.Fatalf("target %q, want make's file", b)
	}
	os.WriteFile(target, []byte("ours"), 0o600)
	seedFromMake(root, "plugins/calc", target)
	if b, _ := os.ReadFile(target); string(b) != "ours" {
		t.Fatalf("target %q: a build of its own was replaced", b)
	}
}
