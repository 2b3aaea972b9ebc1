// Package template_test checks that the AssemblyScript template works
// from a copy in an empty directory, as a tool author would use it: npm
// install (the SDK by a file: path), build, and its own npm test against
// the real host. Skipped, saying why, without node.
package template_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

func TestTemplateFromACopy(t *testing.T) {
	if testing.Short() {
		t.Skip("installs, builds and runs the template")
	}
	if !wasmbuild.HaveNode() {
		t.Skipf("skipping: %v", wasmbuild.ErrNoNode)
	}
	root, err := wasmbuild.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin := wasmbuild.CommandForTest(t, "cmd/wasmagent")
	// The template's files, without what a checkout has installed or built.
	src := filepath.Join(root, "examples", "plugin-template-as")
	dst := filepath.Join(t.TempDir(), "my-plugin")
	err = filepath.WalkDir(src, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		switch {
		case e.IsDir() && (rel == "node_modules" || rel == "build"):
			return filepath.SkipDir
		case e.IsDir():
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		case strings.HasSuffix(rel, ".go") || rel == "package-lock.json":
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	// The SDK by a file: path to this checkout, as the README says.
	pkgPath := filepath.Join(dst, "package.json")
	var pkg map[string]any
	b, _ := os.ReadFile(pkgPath)
	if err := json.Unmarshal(b, &pkg); err != nil {
		t.Fatal(err)
	}
	pkg["devDependencies"].(map[string]any)["@wasmagent/sdk"] = "file:" + filepath.Join(root, "sdk", "assemblyscript")
	b, _ = json.MarshalIndent(pkg, "", "  ")
	if err := os.WriteFile(pkgPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	npm := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("npm", args...)
		cmd.Dir = dst
		cmd.Env = append(os.Environ(), "WASMAGENT="+bin)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("npm %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	npm("install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error")
	out := npm("test")
	if !strings.Contains(out, "# pass 4") || !strings.Contains(out, "# fail 0") || strings.Contains(out, "# SKIP") {
		t.Fatalf("npm test did not run and pass its 4 tests:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(dst, "build", "wordcount.wasm")); err != nil {
		t.Fatalf("npm test built no plugin: %v", err)
	}
}
