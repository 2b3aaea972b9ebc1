package wasmbuild

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tempModule writes a module of its own: a plugin in p that imports l,
// which embeds the tree l/data (not l/other); u, which nothing imports;
// and test files.
func tempModule(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"go.mod":          "module example.com/m\n\ngo 1.22\n",
		"go.sum":          "",
		"p/main.go":       "package main\n\nimport \"example.com/m/l\"\n\nfunc main() { println(l.Name) }\n",
		"p/main_test.go":  "package main\n",
		"p/notes.txt":     "notes\n",
		"l/l.go":          "package l\n\nimport \"embed\"\n\nconst Name = \"stamp-test-first\"\n\n//go:embed data\nvar X embed.FS\n",
		"l/data/x.txt":    "x\n",
		"l/other/y.txt":   "y\n",
		"l/l_test.go":     "package l\n",
		"l/other_wasm.go": "//go:build wasm\n\npackage l\n",
		"u/u.go":          "package u\n",
	}
	for name, text := range files {
		write(t, filepath.Join(root, name), text)
	}
	return root
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The key changes with every file the build reads (the package's own,
// those of the packages it imports, at any depth, and under any build
// tag, what they embed, go.mod and go.sum), with the flags and with the
// GO* environment; and with nothing else. A workspace, a vendor directory
// or a replace directive means no key.
func TestSourceKeyFollowsWhatTheBuildReads(t *testing.T) {
	env := []string{"GOOS=wasip1", "HOME=/h"}
	key := func(root string, args, env []string) string {
		t.Helper()
		k, err := sourceKey(root, "p", args, env)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	base := key(tempModule(t), nil, env)
	if again := key(tempModule(t), nil, env); again != base {
		t.Fatalf("two identical modules in two directories: keys %s and %s", base, again)
	}
	for _, c := range []struct {
		file    string
		changes bool
	}{
		{"p/main.go", true},
		{"p/notes.txt", false},
		{"p/asm_wasm.s", true},
		{"l/l.go", true},
		{"l/other_wasm.go", true},
		{"l/data/x.txt", true},
		{"l/data/new.txt", true},
		{"l/data/sub/new.txt", true},
		{"l/other/y.txt", false},
		{"go.mod", true},
		{"go.sum", true},
		{"p/main_test.go", false},
		{"l/l_test.go", false},
		{"u/u.go", false},
		{"u/new.go", false},
	} {
		root := tempModule(t)
		b, _ := os.ReadFile(filepath.Join(root, c.file))
		write(t, filepath.Join(root, c.file), string(b)+"\n// edited\n")
		if got := key(root, nil, env) != base; got != c.changes {
			t.Errorf("editing %s: key changed %v, want %v", c.file, got, c.changes)
		}
	}
	root := tempModule(t)
	for _, c := range []struct {
		what    string
		args    []string
		env     []string
		changes bool
	}{
		{"a flag", []string{"-buildmode=c-shared"}, env, true},
		{"GOFLAGS", nil, append(env, "GOFLAGS=-tags=x"), true},
		{"CGO_ENABLED", nil, append(env, "CGO_ENABLED=1"), true},
		{"GOOS", nil, []string{"GOOS=linux", "HOME=/h"}, true},
		{"HOME", nil, []string{"GOOS=wasip1", "HOME=/elsewhere"}, false},
		{"the order of env", nil, []string{"HOME=/h", "GOOS=wasip1"}, false},
	} {
		if got := key(root, c.args, c.env) != base; got != c.changes {
			t.Errorf("%s: key changed %v, want %v", c.what, got, c.changes)
		}
	}
	for _, bad := range []string{"/abs/p", "../p", "./...", "missing"} {
		if k, err := sourceKey(root, bad, nil, env); err == nil {
			t.Errorf("package %q: key %s, want an error", bad, k)
		}
	}
	if k, err := sourceKey(root, "p", nil, append(env, "GOWORK=/elsewhere/go.work")); err == nil {
		t.Errorf("with GOWORK set: key %s, want an error", k)
	}
	// What go would read and the key does not follow: no key, a build.
	for file, text := range map[string]string{
		"go.work":            "go 1.22\n\nuse .\n",
		"vendor/modules.txt": "",
		"go.mod":             "module example.com/m\n\ngo 1.22\n\nreplace example.com/x => ../x\n",
	} {
		root := tempModule(t)
		write(t, filepath.Join(root, file), text)
		if k, err := sourceKey(root, "p", nil, env); err == nil {
			t.Errorf("with %s: key %s, want an error", file, k)
		}
	}
}

func TestEmbedPatterns(t *testing.T) {
	src := "package p\n\n//go:embed a.txt dir/*.json all:hidden\nvar A string\n\n\t//go:embed \"with space.txt\" `raw.txt` \"all:q\"\nvar B string\n"
	got := strings.Join(embedPatterns([]byte(src)), "|")
	// A quoted pattern with a space is not understood (""): the whole
	// tree is hashed.
	if want := "a.txt|dir/*.json|hidden||space.txt\"|raw.txt|q"; got != want {
		t.Errorf("patterns %q, want %q", got, want)
	}
	if got := embedPatterns([]byte("package p\n")); got != nil {
		t.Errorf("no directive: %q", got)
	}
}

// A plugin built once is handed out again without go build while nothing
// changed, and rebuilt, never stale, after a source it imports changed or
// the output was touched.
func TestCachedSkipsGoBuildUntilASourceChanges(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go build")
	}
	root, dir := tempModule(t), t.TempDir()
	build := func() (wasm []byte, built bool) {
		t.Helper()
		target := filepath.Join(dir, "p-"+shortHash(root+"\x00p")+".build")
		before, _ := os.Stat(target)
		path, err := buildCachedIn(root, dir, "p")
		if err != nil {
			t.Fatal(err)
		}
		after, err := os.Stat(target)
		if err != nil {
			t.Fatal(err)
		}
		wasm, err = os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		// go build writes or touches its output, even one up to date.
		return wasm, before == nil || !after.ModTime().Equal(before.ModTime())
	}
	first, built := build()
	if !built || !bytes.Contains(first, []byte("stamp-test-first")) {
		t.Fatalf("first build: built %v, holds the constant: %v", built, bytes.Contains(first, []byte("stamp-test-first")))
	}
	time.Sleep(10 * time.Millisecond) // a touch moves the time
	if again, built := build(); built || !bytes.Equal(again, first) {
		t.Fatalf("nothing changed: built again %v, same bytes %v", built, bytes.Equal(again, first))
	}
	write(t, filepath.Join(root, "l/l.go"), "package l\n\nimport \"embed\"\n\nconst Name = \"stamp-test-second\"\n\n//go:embed data\nvar X embed.FS\n")
	second, built := build()
	if !built || !bytes.Contains(second, []byte("stamp-test-second")) {
		t.Fatalf("after an imported package changed: built %v, holds the new constant: %v", built, bytes.Contains(second, []byte("stamp-test-second")))
	}
	path := filepath.Join(dir, "p-"+shortHash(root+"\x00p")+".wasm")
	if err := os.WriteFile(path, []byte("not what was built"), 0o600); err != nil {
		t.Fatal(err)
	}
	if third, built := build(); !built || !bytes.Equal(third, second) {
		t.Fatalf("after the output was overwritten: built %v, same bytes as the build %v", built, bytes.Equal(third, second))
	}
}

// A command is handed out from its stamp while nothing changed, rebuilt
// after a source changed, and built again when the executable published
// for its stamp is gone.
func TestCommandSkipsGoBuildUntilASourceChanges(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go build")
	}
	root, dir := tempModule(t), t.TempDir()
	target := filepath.Join(dir, "p-"+shortHash(root+"\x00p")+".build")
	build := func(want string) (path string, built bool) {
		t.Helper()
		before, _ := os.Stat(target)
		path, err := buildCommandIn(root, dir, "p")
		if err != nil {
			t.Fatal(err)
		}
		after, err := os.Stat(target)
		if err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(path).CombinedOutput()
		if err != nil || !strings.Contains(string(out), want) {
			t.Fatalf("%s: %v\n%s\nwant %q", path, err, out, want)
		}
		return path, before == nil || !after.ModTime().Equal(before.ModTime())
	}
	first, built := build("stamp-test-first")
	if !built {
		t.Fatal("the first build did not run go build")
	}
	time.Sleep(10 * time.Millisecond)
	if again, built := build("stamp-test-first"); built || again != first {
		t.Fatalf("nothing changed: built again %v, handed out %s, then %s", built, first, again)
	}
	write(t, filepath.Join(root, "l/l.go"), "package l\n\nimport \"embed\"\n\nconst Name = \"stamp-test-second\"\n\n//go:embed data\nvar X embed.FS\n")
	second, built := build("stamp-test-second")
	if !built || second == first {
		t.Fatalf("after an imported package changed: built %v, handed out %s, then %s", built, first, second)
	}
	if err := os.Remove(second); err != nil {
		t.Fatal(err)
	}
	if third, built := build("stamp-test-second"); !built || third != second {
		t.Fatalf("after the executable was removed: built %v, handed out %s, then %s", built, second, third)
	}
}

// What go env -w wrote (GOFLAGS, GOEXPERIMENT…) is part of the key: go
// reads that file as if its variables were set.
func TestSourceKeyFollowsGoEnvFile(t *testing.T) {
	root := tempModule(t)
	file := filepath.Join(t.TempDir(), "env")
	env := []string{"GOOS=wasip1", "GOENV=" + file}
	key := func() string {
		t.Helper()
		k, err := sourceKey(root, "p", nil, env)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	none := key()
	if err := os.WriteFile(file, []byte("GOFLAGS=-tags=x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tagged := key()
	if tagged == none {
		t.Fatal("a go env file appeared and the key stayed")
	}
	if err := os.WriteFile(file, []byte("GOEXPERIMENT=nocoverageredesign\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if key() == tagged {
		t.Fatal("the go env file changed and the key stayed")
	}
	if goEnvFile([]string{"GOENV=off"}) != "" {
		t.Fatal("GOENV=off names a file")
	}
}
