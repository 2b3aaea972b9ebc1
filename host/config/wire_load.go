package config

import (
	"context"
	"errors"
	"fmt"
	goruntime "runtime"
	"sync"

	"github.com/wasmagent/wasmagent/host/wasmtool"
	"github.com/wasmagent/wasmagent/runtime"
)

// loaded is one plugin entry's load: the plugin and its grants, or why
// not.
type loaded struct {
	wp  *wasmtool.Plugin
	g   runtime.Grants
	err error
}

// loadAll loads the plugin of every [[tool]] and [[hook]] entry at once,
// a few at a time (compiling is CPU-bound), and keeps every plugin loaded
// for Close. With opts.Background, plugins whose description is cached
// come back at once and load behind (wasmtool.Options.Cache).
func (s *Setup) loadAll(ctx context.Context, opts WireOptions) map[string]loaded {
	f := s.File
	var cache *wasmtool.DescribeCache
	if opts.Background && f.Runtime.CacheDir != "off" {
		cache = wasmtool.NewDescribeCache(wasmtool.DefaultDescribeCacheDir(f.Runtime.CacheDir), opts.Logger)
	} else if f.Runtime.CacheDir != "off" {
		// Not in the background: the cache is only written, for the
		// runs that are.
		cache = wasmtool.NewDescribeCache(wasmtool.DefaultDescribeCacheDir(f.Runtime.CacheDir), opts.Logger).WriteOnly()
	}
	type entry struct {
		key string
		p   *Plugin
	}
	var entries []entry
	for i := range f.Tools {
		entries = append(entries, entry{fmt.Sprintf("tool[%d]", i), &f.Tools[i].Plugin})
	}
	for i := range f.Hooks {
		entries = append(entries, entry{fmt.Sprintf("hook[%d]", i), &f.Hooks[i].Plugin})
	}
	out := make([]loaded, len(entries))
	sem := make(chan struct{}, max(2, goruntime.GOMAXPROCS(0)))
	var wg sync.WaitGroup
	for i, e := range entries {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			defer func() {
				if v := recover(); v != nil {
					out[i].err = f.errorf(e.key+".plugin", "loading failed: %v", v)
				}
			}()
			out[i].wp, out[i].g, out[i].err = f.loadWith(ctx, s.Runtime, e.key, e.p, cache, s.start, opts.Logger)
		}()
	}
	wg.Wait()
	m := make(map[string]loaded, len(entries))
	for i, e := range entries {
		m[e.key] = out[i]
		if out[i].wp != nil {
			s.plugins = append(s.plugins, out[i].wp)
		}
	}
	return m
}

// Wait waits for the plugins loading in the background (WireOptions
// Background) and returns the errors of those that failed.
func (s *Setup) Wait(ctx context.Context) error {
	var errs []error
	for _, p := range s.plugins {
		if err := p.Wait(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
