package pathglob_test

import (
	"testing"

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
	for _, bad := range []string{"", "a[b", "[z-a]"} {
		if _, err := pathglob.Compile(bad); err == nil {
			t.Errorf("%q compiled", bad)
		}
	}
}
