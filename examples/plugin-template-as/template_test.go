// Package template_test checks that the AssemblyScript template works
// from a copy in an empty directory, as a tool author would use it: npm
// install (the SDK by a file: path), build, and its own npm test against
// the real host. Skipped, saying why, without node. The build runs once
// for each set of sources (see TestTemplateFromACopy).
package template_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
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
	// npm test is "npm run build && node --test test/". The build (asc at
	// -O3: 10 s of CPU) makes the same bytes of the same sources, so it
	// runs once for each: its plugin is kept under the hash of everything
	// it read, and a copy of the same sources runs the rest of npm test
	// on it.
	if scripts, _ := pkg["scripts"].(map[string]any); scripts["test"] != npmTest {
		test := scripts["test"]
		t.Fatalf("package.json: scripts.test is %q; this test runs %q (update both)", test, npmTest)
	}
	built := filepath.Join(dst, "build", "wordcount.wasm")
	cached := filepath.Join(cacheDir(t), "template-as-"+buildKey(t, dst, filepath.Join(root, "sdk", "assemblyscript"))+".wasm")
	var out string
	b, err = os.ReadFile(cached)
	hit := err == nil
	if hit {
		os.MkdirAll(filepath.Dir(built), 0o755)
		os.WriteFile(built, b, 0o644)
		cmd := exec.Command("node", "--test", "test/")
		cmd.Dir = dst
		cmd.Env = append(os.Environ(), "WASMAGENT="+bin)
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("node --test test/ (npm test, built before from the same sources: %s): %v\n%s", cached, err, b)
		}
		out = string(b)
	} else {
		out = npm("test")
	}
	if !strings.Contains(out, "# pass 4") || !strings.Contains(out, "# fail 0") || strings.Contains(out, "# SKIP") {
		t.Fatalf("npm test did not run and pass its 4 tests:\n%s", out)
	}
	b, err = os.ReadFile(built)
	if err != nil {
		t.Fatalf("npm test built no plugin: %v", err)
	}
	if !hit {
		if err := os.WriteFile(cached+".tmp", b, 0o600); err == nil {
			os.Rename(cached+".tmp", cached)
		}
	}
}

// npmTest is the template's test script: the build, then node's tests.
const npmTest = "npm run build && node --test test/"

// cacheDir is where the template's built plugin is kept between runs.
func cacheDir(t *testing.T) string {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	dir = filepath.Join(dir, "wasmagent", "testplugins")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

// buildKey hashes what asc reads to build the copy in dst: its files
// (but node_modules and build), the SDK's sources, the version of asc
// npm installed, and node's version.
func buildKey(t *testing.T, dst, sdk string) string {
	t.Helper()
	h := sha256.New()
	for _, d := range []string{dst, sdk} {
		err := filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if e.IsDir() && (e.Name() == "node_modules" || e.Name() == "build") {
				return filepath.SkipDir
			}
			if e.IsDir() || strings.HasSuffix(p, ".go") {
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(d, p)
			fmt.Fprintf(h, "%s\x00%d\x00", filepath.ToSlash(rel), len(b))
			h.Write(b)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	asc, err := os.ReadFile(filepath.Join(dst, "node_modules", "assemblyscript", "package.json"))
	if err != nil {
		t.Fatalf("npm install did not install asc: %v", err)
	}
	h.Write(asc)
	version, err := exec.Command("node", "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	h.Write(version)
	return hex.EncodeToString(h.Sum(nil)[:12])
}
