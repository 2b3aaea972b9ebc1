package runtime

import (
	"context"
	"crypto/sha256"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	goruntime "runtime"
	"sync"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/experimental"
)

// MaxPages is the most linear memory a Wasm module can address: 65536 pages
// of 64 KiB, 4 GiB.
const MaxPages = 65536

// Options configure a [Runtime]. The zero value is usable.
type Options struct {
	// CacheDir holds compiled machine code across processes. Empty means
	// DefaultCacheDir(); "off" turns the disk cache off. Several processes
	// may share one directory: entries are written to a temporary file and
	// renamed into place, and keyed by the wazero version.
	CacheDir string
	// MaxMemoryPages is the ceiling on every plugin's linear memory, in
	// 64 KiB pages (default 16384, 1 GiB). A plugin's own grant may only be
	// lower.
	MaxMemoryPages uint32
	// CompileWorkers is the number of goroutines compiling one module
	// (default GOMAXPROCS).
	CompileWorkers int
	// MaxConcurrentCalls caps the plugin calls running at once in this
	// Runtime, all plugins together (default 4 × GOMAXPROCS, at least 8);
	// more wait their turn, abortably. With it, the memory guest code can
	// take is bounded: see Stats and SECURITY.md.
	MaxConcurrentCalls int
	// Logger receives what plugins log and what pools report (default: a
	// logger that discards).
	Logger *slog.Logger
	// Observer, if set, is told of every call and instantiation.
	Observer Observer
	// ImageMemory is how a new instance's memory gets its plugin's image
	// (docs/runtime.md, "Images"): ImageMemoryAuto (the default),
	// ImageMemoryCopy or ImageMemoryMap.
	ImageMemory ImageMemory
	// MaxCompileCost is the most one function of a module may cost
	// wazero's compiler, in the units of compilecost.go (about 25 ns of
	// one core each); a module's costly functions together may cost ten
	// times as much. 0 means MaxFunctionCompileCost; negative is an error.
	// Raise it only for plugins you trust: past the default, one module
	// can hold a compile worker for longer than about 3 s (SECURITY.md,
	// row 15).
	MaxCompileCost int64
	// MaxModuleBytes is the largest module the Runtime compiles (default
	// DefaultMaxModuleBytes, 128 MiB; negative is an error): a larger one
	// is refused with a [*ModuleSizeError] before more is read or hashed.
	// Compiling is linear in a module's size, at up to about 3 µs of one
	// core a byte (SECURITY.md, "What is not promised").
	MaxModuleBytes int64

	// stopper selects how guest code is stopped, for benchmarks that
	// compare: "" (fuel and the call-depth limit), "nodepth" (fuel
	// alone), "ctd" (wazero's WithCloseOnContextDone, no fuel), "none"
	// (nothing stops the guest).
	stopper string
}

// Runtime compiles and runs plugins. It is safe for concurrent use.
type Runtime struct {
	rt      wazero.Runtime
	shared  *sharedCache // nil: CacheDir "off"
	opts    Options
	log     *slog.Logger
	mu      sync.Mutex
	closed  bool // Close has run: a module compiled since is closed at once
	modules map[[sha256.Size]byte]*moduleEntry
	calls   *gate
}

type moduleEntry struct {
	done chan struct{} // closed when mod or err is set
	mod  *Module
	err  error
}

// DefaultCacheDir is the compilation cache under the user's cache
// directory ($XDG_CACHE_HOME or ~/.cache on Linux), or under the temporary
// directory when there is no such directory.
func DefaultCacheDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "wasmagent", "wazero")
}

// New makes a Runtime.
func New(ctx context.Context, opts Options) (*Runtime, error) {
	if opts.MaxMemoryPages == 0 {
		opts.MaxMemoryPages = 16384
	}
	if opts.MaxMemoryPages > MaxPages {
		return nil, fmt.Errorf("runtime: MaxMemoryPages %d is over the Wasm limit of %d", opts.MaxMemoryPages, MaxPages)
	}
	if opts.CompileWorkers <= 0 {
		opts.CompileWorkers = goruntime.GOMAXPROCS(0)
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	switch opts.ImageMemory {
	case ImageMemoryAuto:
		opts.ImageMemory = autoImageMemory()
	case ImageMemoryCopy, ImageMemoryMap:
	default:
		return nil, fmt.Errorf("runtime: ImageMemory %q is none of %q, %q, %q", opts.ImageMemory, ImageMemoryAuto, ImageMemoryCopy, ImageMemoryMap)
	}
	if opts.MaxConcurrentCalls <= 0 {
		opts.MaxConcurrentCalls = max(8, 4*goruntime.GOMAXPROCS(0))
	}
	switch {
	case opts.MaxCompileCost < 0:
		return nil, fmt.Errorf("runtime: MaxCompileCost %d is negative (0 means the default, %d)", opts.MaxCompileCost, int64(MaxFunctionCompileCost))
	case opts.MaxCompileCost == 0:
		opts.MaxCompileCost = MaxFunctionCompileCost
	}
	switch {
	case opts.MaxModuleBytes < 0:
		return nil, fmt.Errorf("runtime: MaxModuleBytes %d is negative (0 means the default, %d)", opts.MaxModuleBytes, DefaultMaxModuleBytes)
	case opts.MaxModuleBytes == 0:
		opts.MaxModuleBytes = DefaultMaxModuleBytes
	}
	// No WithCloseOnContextDone: fuel instrumentation (internal/fuel) stops
	// guest code, loops or not, at a fraction of its cost.
	cfg := wazero.NewRuntimeConfigCompiler().
		WithCloseOnContextDone(opts.stopper == "ctd").
		WithMemoryLimitPages(opts.MaxMemoryPages).
		WithCustomSections(false)
	var shared *sharedCache
	if opts.CacheDir != "off" {
		if opts.CacheDir == "" {
			opts.CacheDir = DefaultCacheDir()
		}
		c, err := compilationCache(opts.CacheDir)
		if err != nil {
			return nil, err
		}
		shared = c
		cfg = cfg.WithCompilationCache(c.cache)
	}
	r := &Runtime{
		rt:      wazero.NewRuntimeWithConfig(ctx, cfg),
		shared:  shared,
		opts:    opts,
		log:     opts.Logger,
		modules: map[[sha256.Size]byte]*moduleEntry{},
		calls:   newGate(opts.MaxConcurrentCalls),
	}
	if err := instantiateWASI(ctx, r.rt); err != nil {
		r.Close(ctx)
		return nil, fmt.Errorf("runtime: WASI: %w", err)
	}
	if err := instantiateHostModules(ctx, r.rt); err != nil {
		r.Close(ctx)
		return nil, fmt.Errorf("runtime: host functions: %w", err)
	}
	if err := instantiateDepthModule(ctx, r.rt); err != nil {
		r.Close(ctx)
		return nil, fmt.Errorf("runtime: host functions: %w", err)
	}
	return r, nil
}

// Close closes every module and plugin compiled by r. Calls in flight end
// with an error. The machine code of r's modules stays in the process's
// compilation cache while another Runtime uses it, and a while after
// (sharedcache.go).
func (r *Runtime) Close(ctx context.Context) error {
	err := r.rt.Close(ctx)
	r.mu.Lock()
	closed := r.closed
	r.closed = true
	var mods []*Module
	for _, e := range r.modules {
		select {
		case <-e.done:
			if e.mod != nil {
				mods = append(mods, e.mod)
			}
		default: // still compiling: Compile closes it (closedModule)
		}
	}
	r.mu.Unlock()
	if !closed {
		for _, m := range mods {
			if r.shared != nil {
				r.shared.linger(lingerKey{m.sum, r.opts.stopper}, m.compiled)
			} else {
				m.compiled.Close(ctx)
			}
		}
	}
	return err
}

// Stats are the Runtime's call counts.
type Stats struct {
	Running    int // calls running now (a call's instance is closed just after it returns; until then it counts)
	Waiting    int // calls waiting for their turn
	MaxRunning int // the most calls that ever ran at once
}

// Stats reports the calls running and waiting, all plugins together.
func (r *Runtime) Stats() Stats { return r.calls.stats() }

// ImageMemory is how this runtime's instances get their images:
// ImageMemoryCopy or ImageMemoryMap (ImageMemoryAuto resolved).
func (r *Runtime) ImageMemory() ImageMemory { return r.opts.ImageMemory }

// compileContext asks wazero for r's number of compilation workers.
func (r *Runtime) compileContext(ctx context.Context) context.Context {
	return experimental.WithCompilationWorkers(ctx, r.opts.CompileWorkers)
}
