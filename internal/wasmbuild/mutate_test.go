package wasmbuild

import (
	"bytes"
	"testing"
)

// What a test loads, the prewarm has compiled: PluginMutations gives the
// same bytes in every call, and fewer of them are the first of more
// (runtime's test runs 3 under the race detector, the prewarm compiles
// MutationCount); each keeps the module's header.
func TestPluginMutationsAreOneSequence(t *testing.T) {
	wasm := ConstPlugin(map[string]string{"describe": "a", "execute": "b", "noop": ""})
	all := PluginMutations(wasm, MutationCount)
	again := PluginMutations(wasm, MutationCount)
	for n := range MutationCount + 1 {
		prefix := PluginMutations(wasm, n)
		for i := range prefix {
			if !bytes.Equal(prefix[i], all[i]) {
				t.Fatalf("mutation %d of %d differs from mutation %d of %d", i, n, i, MutationCount)
			}
		}
	}
	for i := range all {
		if !bytes.Equal(all[i], again[i]) {
			t.Fatalf("mutation %d differs between two calls", i)
		}
		if !bytes.HasPrefix(all[i], wasm[:8]) {
			t.Fatalf("mutation %d lost the header: % x", i, all[i][:min(8, len(all[i]))])
		}
	}
}
