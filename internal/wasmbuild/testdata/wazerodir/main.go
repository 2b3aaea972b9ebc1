// Command wazerodir prints the directory in which its wazero keeps
// compiled modules, under a compilation cache directory: what a binary
// so built reads ("wazero-<version>-<GOARCH>-<GOOS>"). Its test binary
// prints the same and runs no test. The tests of internal/wasmbuild and
// internal/testrun build it the ways they build the binaries of make
// test, and compare.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/tetratelabs/wazero"
)

func main() {
	dir, err := os.MkdirTemp("", "wazero-version-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer os.RemoveAll(dir)
	c, err := wazero.NewCompilationCacheWithDir(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	c.Close(context.Background())
	entries, err := os.ReadDir(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, e := range entries {
		fmt.Println(e.Name())
	}
}
