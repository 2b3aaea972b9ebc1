package cli

import "testing"

// A binary of go run (in the build cache, or a go-build temporary
// directory) is told apart from an installed one.
func TestGoRunBuild(t *testing.T) {
	for exe, want := range map[string]bool{
		"/root/.cache/go-build/83/83e8-d/wasmagent":   true,
		"/tmp/go-build1234/b001/exe/wasmagent":        true,
		`C:\Users\me\AppData\Local\go-build\ab\x.exe`: true,
		"/home/me/go/bin/wasmagent":                   false,
		"/usr/local/bin/wasmagent":                    false,
		"/home/me/src/go-builder/wasmagent":           true, // (a directory named so: the note is only a note)
	} {
		if got := goRunBuild(exe); got != want {
			t.Errorf("goRunBuild(%q) = %v, want %v", exe, got, want)
		}
	}
}
