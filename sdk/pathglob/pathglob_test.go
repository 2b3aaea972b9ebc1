package pathglob_test

import (
	"strings"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/sdk/pathglob"
)

func TestCompile(t *testing.T) {
	for _, c := range []struct {
		glob  string
		match []string
		not   []string
	}{
		{"**/.env", []string{".env", "a/.env", "a/b/.env"}, []string{"a.env", ".envrc", "a/.env/x"}},
		{"**/*.go", []string{"main.go", "a/b/c.go"}, []string{"main.gox", "go"}},
		{"pkg/*.go", []string{"pkg/a.go"}, []string{"pkg/sub/a.go", "a.go"}},
		{"src/**", []string{"src/a", "src/a/b"}, []string{"srcx", "lib/src/a"}},
		{"file?.[ch]", []string{"file1.c", "fileX.h"}, []string{"file12.c", "file1.o"}},
		{"[!.]*", []string{"a", "b.txt"}, []string{".git"}},
		{"a+b(c).txt", []string{"a+b(c).txt"}, []string{"aab(c).txt"}},
		{"**/*.{go,md}", []string{"a.go", "x/README.md"}, []string{"a.txt", "a.go/x"}},
		{"{src,lib}/**/*.ts", []string{"src/a.ts", "lib/x/y.ts"}, []string{"test/a.ts"}},
		{"a{,.bak}", []string{"a", "a.bak"}, []string{"a.", "ab"}},
		{"{a,{b,c}}d", []string{"ad", "bd", "cd"}, []string{"d", "abd"}},
		{`a\*b`, []string{"a*b"}, []string{"axb"}},
		{`\[x\]`, []string{"[x]"}, []string{"x"}},
		{"[^.]*", []string{"a"}, []string{".git"}},
		{"[!a]", []string{"b"}, []string{"a", "/"}},
		{"[a-]x", []string{"ax", "-x"}, []string{"bx"}},
		{"a**b", []string{"ab", "axxb"}, []string{"a/b", "a/x/b"}},
		{"src/**", []string{"src", "src/a/b"}, []string{"srcx"}},
		{"a/**/b", []string{"a/b", "a/x/y/b"}, []string{"ab", "a/xb"}},
		{"*", []string{".env", "a"}, []string{"a/b"}},
		{"日本/[äö]?.md", []string{"日本/äx.md"}, []string{"日本/ax.md"}},
		{`C:\\Users\\*`, []string{`C:\Users\me`}, []string{"C:/Users/me"}},
	} {
		re, err := pathglob.Compile(c.glob)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range c.match {
			if !re.MatchString(m) {
				t.Errorf("%s does not match %s", c.glob, m)
			}
		}
		for _, m := range c.not {
			if re.MatchString(m) {
				t.Errorf("%s matches %s", c.glob, m)
			}
		}
	}
	for _, bad := range []string{"", "a[b", "[z-a]", "[]", "{a,b", "a}", `a\`, strings.Repeat("{a,b}", 11), "[/]"} {
		if _, err := pathglob.Compile(bad); err == nil {
			t.Errorf("%q compiled", bad)
		}
	}
}

// A pattern from a model cannot make matching slow: Go's regexp runs in
// time linear in the path, and braces expand to at most 1024 alternatives.
func TestHostilePatterns(t *testing.T) {
	long := strings.Repeat("a", 5000)
	for _, glob := range []string{
		strings.Repeat("*a", 40) + "*b",
		strings.Repeat("**/", 40) + "x",
		strings.Repeat("{a,aa}", 10) + "z",
	} {
		re, err := pathglob.Compile(glob)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		if re.MatchString(long) || re.MatchString(strings.Repeat("a/", 2500)) {
			t.Errorf("%q matched", glob)
		}
		t.Logf("%.30q: %v", glob, time.Since(start))
	}
}

// Any glob compiles or is refused with an error that names it; a glob
// without special characters matches exactly itself.
func FuzzCompile(f *testing.F) {
	for _, s := range []string{"**/*.go", "{a,{b,c}}", "[!a-z]", `\*`, "a[", "{", "}", "[]]", strings.Repeat("{a,b}", 12)} {
		f.Add(s, "a/b")
	}
	f.Fuzz(func(t *testing.T, glob, path string) {
		re, err := pathglob.Compile(glob)
		if err != nil {
			if !strings.Contains(err.Error(), "glob") {
				t.Fatalf("%q: the error does not name the glob: %v", glob, err)
			}
			return
		}
		re.MatchString(path)
		if glob != "" && !strings.ContainsAny(glob, `*?[]{},\\`) && !re.MatchString(glob) {
			t.Fatalf("%q does not match itself", glob)
		}
	})
}
