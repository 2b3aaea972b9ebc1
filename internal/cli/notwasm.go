package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
)

// notWasmHint says what a plugin file that is not WebAssembly is instead,
// and how to build one, when err says a file is no Wasm module: a plugin
// built for this machine (go build without GOOS=wasip1 GOARCH=wasm makes
// an ELF, Mach-O or PE executable the loader calls "bad magic"), or
// WebAssembly text. It is "" for any other error or file. (The error
// above it names the file: the hint does not again.)
func notWasmHint(err error, files ...string) string {
	if err == nil || !strings.Contains(err.Error(), "not a valid Wasm module") {
		return ""
	}
	for _, path := range files {
		if !strings.Contains(err.Error(), path) {
			continue
		}
		f, ferr := os.Open(path)
		if ferr != nil {
			continue
		}
		head := make([]byte, 64)
		n, _ := io.ReadFull(f, head)
		f.Close()
		head = head[:n]
		build := "build a Go plugin with GOOS=wasip1 GOARCH=wasm go build -trimpath -buildmode=c-shared (an AssemblyScript one with npm run build)"
		for _, native := range []struct{ magic, what string }{
			{"\x7fELF", "an ELF executable"}, {"\xcf\xfa\xed\xfe", "a Mach-O executable"}, {"\xfe\xed\xfa\xcf", "a Mach-O executable"},
			{"\xca\xfe\xba\xbe", "a Mach-O executable"}, {"MZ", "a Windows executable"},
		} {
			if bytes.HasPrefix(head, []byte(native.magic)) {
				return fmt.Sprintf("hint: the file is %s for this machine, not WebAssembly: %s", native.what, build)
			}
		}
		if bytes.HasPrefix(bytes.TrimSpace(head), []byte("(module")) {
			return "hint: the file is WebAssembly text: compile it to a module first (wat2wasm)"
		}
		return fmt.Sprintf("hint: the file does not start as a WebAssembly module does (\\0asm): %s", build)
	}
	return ""
}
