//go:build !wasip1

package main

// Outside Wasm (sdktest) there are no Extism vars and no HTTP.
var vars = map[string][]byte{}

func getVar(key string) []byte        { return vars[key] }
func setVar(key string, value []byte) { vars[key] = value }
func fetch(url string) (uint16, string) {
	return 0, "no HTTP outside Wasm"
}
