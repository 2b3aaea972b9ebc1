// Package configtest holds what tests of wired agent.toml files share.
package configtest

import "github.com/wasmagent/wasmagent/host/config"

// NoPools turns off pre-warming for every plugin of f whose entry does not
// set pool. Tests call a plugin a few times at most, and each instance the
// default pool of 4 keeps ready (and refills after every call) is a Go
// runtime initialised for nothing, slowest under the race detector
// (RATIONALE.md, "Where does make test's time go?"). Each call then
// instantiates its own, as a pool of 0 does in production. An entry that
// sets pool keeps it: that test is about pools.
func NoPools(f *config.File) {
	for i := range f.Tools {
		if f.Tools[i].Pool == nil {
			f.Tools[i].Pool = new(int)
		}
	}
	for i := range f.Hooks {
		if f.Hooks[i].Pool == nil {
			f.Hooks[i].Pool = new(int)
		}
	}
}
