package runtime

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"sync"
)

// PluginOptions configure a [Plugin].
type PluginOptions struct {
	// Name labels errors and logs (default: the module's name).
	Name string
	// Grants are what the plugin may use; see [Grants] for the defaults.
	Grants Grants
	// PoolSize is how many fresh instances are kept instantiated ahead of
	// demand; 0 turns pre-warming off, so each call instantiates its own.
	// Either way every instance serves exactly one call.
	PoolSize int
	// MaxConcurrency caps this plugin's calls running at once (0: only the
	// Runtime's cap applies).
	MaxConcurrency int
	// NoImage turns images off for this plugin: every instance runs the
	// module's initialization itself (docs/runtime.md, "Images").
	NoImage bool

	// imageMemory, if set, overrides the Runtime's Options.ImageMemory
	// (tests and benchmarks compare the two).
	imageMemory ImageMemory
	// noSpares has copied images' memories unmapped at close, never kept
	// for the next instance (benchmarks compare).
	noSpares bool
	// noMemfd has the image kept on the heap, as on a system without
	// memfds (tests).
	noMemfd bool
}

// DefaultPoolSize is a pool size for hosts with no better figure. With
// instance images a fresh instance costs about a millisecond, so one
// ready instance hides that for a plugin called one call at a time, and
// more would mostly hold memory (RATIONALE.md, "Why do pools default to
// one instance?").
const DefaultPoolSize = 1

// Plugin is a module with its grants: the unit that is called. It is safe
// for concurrent use; every call runs in its own fresh instance.
type Plugin struct {
	r      *Runtime
	m      *Module
	name   string
	grants Grants
	hosts  []hostPattern
	creds  []credential
	client *http.Client
	pool   *pool
	gate   *gate // nil without a per-plugin cap
	mounts []mount
	closes sync.WaitGroup // instances being closed after their call

	img       *image // the state new instances start from (nil: none)
	noImage   string // why there is no image
	copyImage bool   // instances copy the image, not map it
	noSpares  bool   // PluginOptions.noSpares
	noMemfd   bool   // PluginOptions.noMemfd
}

// NewPlugin makes a Plugin of m and starts filling its pool.
func (r *Runtime) NewPlugin(m *Module, opts PluginOptions) (*Plugin, error) {
	name := opts.Name
	if name == "" {
		name = m.name
	}
	g, err := opts.Grants.normalize(r.opts.MaxMemoryPages)
	if err != nil {
		return nil, fmt.Errorf("plugin %s: grants: %w", name, err)
	}
	if m.minPages > g.MemoryPages {
		return nil, &MemoryGrantError{Plugin: name, Need: m.minPages, Grant: g.MemoryPages}
	}
	if opts.PoolSize < 0 || opts.MaxConcurrency < 0 {
		return nil, fmt.Errorf("plugin %s: negative pool size or concurrency", name)
	}
	p := &Plugin{r: r, m: m, name: name, grants: g, copyImage: cmp.Or(opts.imageMemory, imagesAs, r.opts.ImageMemory) == ImageMemoryCopy, noSpares: opts.noSpares, noMemfd: opts.noMemfd}
	if opts.MaxConcurrency > 0 {
		p.gate = newGate(opts.MaxConcurrency)
	}
	for _, h := range g.Hosts {
		hp, err := parseHostPattern(h)
		if err != nil {
			return nil, fmt.Errorf("plugin %s: %w", name, err)
		}
		p.hosts = append(p.hosts, hp)
	}
	for _, c := range g.Credentials {
		hp, _ := parseHostPattern(c.Host)
		p.creds = append(p.creds, credential{Credential: c, pattern: hp})
	}
	p.client = p.newHTTPClient()
	if p.mounts, err = openMounts(g.Dirs, g.Protected); err != nil {
		return nil, fmt.Errorf("plugin %s: %w", name, err)
	}
	p.setImage(opts.NoImage || imagesOff)
	p.pool = newPool(p, opts.PoolSize)
	return p, nil
}

// imagesOff turns images off for every plugin, and imagesAs, if set,
// has every plugin's images made that way (tests, see export_test.go).
var (
	imagesOff bool
	imagesAs  ImageMemory
)

// setImage makes the plugin's image, or logs why it has none.
func (p *Plugin) setImage(off bool) {
	switch {
	case off:
		p.noImage = "turned off for this plugin"
	case p.m.tmpl == nil:
		p.noImage = p.m.noImage
	default:
		p.img, p.noImage = p.makeImage(context.Background())
	}
	switch {
	case p.img != nil, off || p.m.tmpl == nil && p.m.noImage == noInit:
		// Made, asked for, or nothing to save: not worth a line.
	default:
		p.r.log.Info("runtime: no image, each instance runs the module's initialization", "plugin", p.name, "reason", p.noImage)
	}
}

// Image reports whether new instances of the plugin start from an image,
// and if not, why.
func (p *Plugin) Image() (bool, string) { return p.img != nil, p.noImage }

// Name is the plugin's name.
func (p *Plugin) Name() string { return p.name }

// Module is the plugin's compiled module.
func (p *Plugin) Module() *Module { return p.m }

// Grants are the plugin's grants, defaults filled in.
func (p *Plugin) Grants() Grants { return p.grants }

// CallOptions are the optional parts of a call.
type CallOptions struct {
	// OnUpdate receives each JSON payload the plugin sends with
	// emit_update, on the calling goroutine; an error from it fails the
	// call. Nil drops updates.
	OnUpdate func(payload []byte) error
	// Observed, if set, is filled in with what the instance that served
	// the call read from outside (files, the network), whether the call
	// succeeded or not.
	Observed *Observed
	// Parts, if set, accepts the output in parts (docs/abi.md, "Output in
	// parts"): when the module has the bulk path and ExportBulkParts and
	// hands its output over that way, Call returns the head and sets
	// *Parts to the parts, in order (not nil, possibly empty); otherwise
	// it sets *Parts to nil and the output is the usual one. What the
	// parts mean is the caller's protocol, not the runtime's.
	Parts *[]string
}

// Call runs export with input in a fresh instance and returns its output.
// The call ends when the plugin returns, when its timeout passes or when
// ctx is done, whichever comes first. Errors are [*CallError].
func (p *Plugin) Call(ctx context.Context, export string, input []byte, opts *CallOptions) (out []byte, err error) {
	ctx, end := p.observe(ctx, "call", export, len(input))
	if opts != nil && opts.Parts != nil {
		*opts.Parts = nil
	}
	defer func() { end(StepEnd{OutputBytes: len(out) + partsBytes(opts), Err: err}) }()
	def, ok := p.m.exports[export]
	if !ok {
		return nil, &CallError{Plugin: p.name, Export: export, Err: fmt.Errorf("the module has no export %q (it exports %q)", export, listSome(p.m.Exports(), maxListed, " "))}
	}
	if err := checkSignature(export, def, callSignature); err != nil {
		return nil, &CallError{Plugin: p.name, Export: export, Err: because(err.Error(), ErrTrap)}
	}
	if err := callerStopped(ctx); err != nil {
		return nil, &CallError{Plugin: p.name, Export: export, Err: err}
	}
	defer func() {
		if v := recover(); v != nil {
			p.r.log.Error("runtime: recovered from a panic", "step", "call", "plugin", p.name, "panic", fmt.Sprint(v))
			out, err = nil, &CallError{Plugin: p.name, Export: export, Err: because(fmt.Sprintf("the host failed (recovered from a panic: %v)", v), ErrHost)}
		}
	}()
	if len(input) > p.grants.MaxInputBytes {
		return nil, &CallError{Plugin: p.name, Export: export, Err: &CapError{Cap: "MaxInputBytes", Limit: int64(p.grants.MaxInputBytes), Detail: fmt.Sprintf("an input of %d bytes", len(input))}}
	}
	if p.gate != nil {
		if err := p.gate.enter(ctx); err != nil {
			// err matches ErrDeadline or ErrAborted
			return nil, &CallError{Plugin: p.name, Export: export, Err: err}
		}
	}
	if err := p.r.calls.enter(ctx); err != nil {
		p.leave()
		return nil, &CallError{Plugin: p.name, Export: export, Err: err}
	}
	inst, err := p.pool.take(ctx)
	if err != nil {
		p.r.calls.leave()
		p.leave()
		return nil, err
	}
	defer p.retire(inst)
	var onUpdate func([]byte) error
	var parts *[]string
	if opts != nil {
		onUpdate, parts = opts.OnUpdate, opts.Parts
	}
	out, err = inst.call(ctx, export, input, onUpdate, parts)
	if err != nil {
		inst.st.noteRefusal(err)
	}
	if opts != nil && opts.Observed != nil {
		*opts.Observed = inst.st.observed
	}
	return out, err
}

// Stats reports this plugin's own calls (zero without MaxConcurrency:
// see Runtime.Stats for all calls).
func (p *Plugin) Stats() Stats {
	if p.gate == nil {
		return Stats{}
	}
	return p.gate.stats()
}

// Pooled is the number of instances ready in the pool.
func (p *Plugin) Pooled() int { return len(p.pool.ready) }

// leave frees the plugin's own slot, if it has a cap.
func (p *Plugin) leave() {
	if p.gate != nil {
		p.gate.leave()
	}
}

// retire closes an instance after its call, off the caller's path, and
// then has the pool refilled (the refill finds the closed instance's
// memory reset to the image, a spare, instead of mapping a new one). The
// call's slots are freed only once the instance is closed and its memory
// returned, so that the instances alive at once, and their memory, stay
// within the caps.
func (p *Plugin) retire(inst *instance) {
	p.closes.Add(1)
	p.r.goSafely("retire", func() {
		defer p.closes.Done()
		defer p.leave()
		defer p.r.calls.leave()
		defer p.pool.signal()
		inst.close()
	})
}

// Close stops the pool and closes the instances it holds. Calls in flight
// finish first.
func (p *Plugin) Close() {
	p.pool.close()
	p.closes.Wait()
	closeMounts(p.mounts)
	p.img.release()
}
