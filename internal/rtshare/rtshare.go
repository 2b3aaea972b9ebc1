// Package rtshare lets the tests of one process wire many configurations
// on one runtime per set of runtime options, so that each plugin is read,
// checked, rewritten and compiled once per test process instead of once
// per wiring (a runtime compiles the same bytes once: runtime.Compile).
// Under the race detector that load is the dearest part of a test of a
// wired configuration.
//
// It is a test seam: host/config's Wire asks New for its runtime, and a
// context without Share makes a fresh one, as always. Only a test opts
// in, call by call, with Share; a test that looks at its runtime (its
// Stats, its logs) does not.
package rtshare

import (
	"context"
	"sync"

	"github.com/wasmagent/wasmagent/runtime"
)

type key struct{}

// Share returns ctx asking New for a runtime shared with every other
// wiring so asked in this process, with the same options. Options with a
// Logger or an Observer get a fresh runtime all the same: what those see
// belongs to one wiring.
func Share(ctx context.Context) context.Context {
	return context.WithValue(ctx, key{}, true)
}

// Shared tells whether ctx asks for a shared runtime (Share).
func Shared(ctx context.Context) bool {
	v, _ := ctx.Value(key{}).(bool)
	return v
}

// New makes a runtime as runtime.New does and returns the function that
// lets it go: runtime.Close for a runtime of its own, nothing for a
// shared one (it lives as long as the process).
func New(ctx context.Context, opts runtime.Options) (*runtime.Runtime, func(), error) {
	if !Shared(ctx) || opts.Logger != nil || opts.Observer != nil {
		rt, err := runtime.New(ctx, opts)
		if err != nil {
			return nil, nil, err
		}
		return rt, func() { rt.Close(context.Background()) }, nil
	}
	k := optionsKey{opts.CacheDir, opts.MaxMemoryPages, opts.CompileWorkers, opts.MaxConcurrentCalls, opts.ImageMemory, opts.MaxCompileCost}
	if k.pages == 0 {
		k.pages = 16384 // runtime.New's default
	}
	mu.Lock()
	defer mu.Unlock()
	if rt, ok := shared[k]; ok {
		return rt, func() {}, nil
	}
	// Not ctx: the runtime outlives the wiring that made it.
	rt, err := runtime.New(context.Background(), opts)
	if err != nil {
		return nil, nil, err
	}
	shared[k] = rt
	return rt, func() {}, nil
}

type optionsKey struct {
	cacheDir    string
	pages       uint32
	workers     int
	maxCalls    int
	imageMemory runtime.ImageMemory
	compileCost int64
}

var (
	mu     sync.Mutex
	shared = map[optionsKey]*runtime.Runtime{}
)
