package wasmtool

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	goruntime "runtime"
	"strings"
	"sync"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/runtime"
	"github.com/wasmagent/wasmagent/sdk"
)

// Options configure a plugin's loading.
type Options struct {
	// Name labels the plugin in errors and logs (default: its file).
	Name string
	// SHA256, if set, pins the file: any other content is refused.
	SHA256 string
	// Grants are what the plugin may use.
	Grants runtime.Grants
	// PoolSize is the number of instances kept ready (0: none).
	PoolSize int
	// NoImage turns the plugin's instance image off: each instance runs
	// its init (runtime.PluginOptions.NoImage).
	NoImage bool
	// Cache, if set, keeps descriptions between runs. A plugin whose
	// description it holds is returned at once, its tools listed from
	// the cache, and is compiled, instantiated and described again in the
	// background: its calls wait for that, and fail with the error if the
	// plugin does not load or no longer describes itself the same way
	// (see [Plugin.Wait]). Any other plugin loads before Load returns,
	// and its description is kept for the next run.
	Cache *DescribeCache
	// Logger receives the error of a plugin that failed to load in the
	// background, when it happens, and a warning for each thing in a
	// hook's answer that pi would carry on with but that looks like a
	// mistake (a misspelt field, a block that is not a boolean) (nil:
	// none).
	Logger *slog.Logger
	// Start, if set, holds the background load until it is opened or
	// the plugin is waited for (see [Start]).
	Start *Start
}

// LoadError is a plugin that could not be loaded: the file and why.
type LoadError struct {
	Path string
	Err  error
	name string // the plugin's name in the runtime's errors (Options.Name)
}

func (e *LoadError) Error() string { return "plugin " + e.Path + ": " + e.Reason() }

// Reason is why the plugin did not load, without the file's name or the
// plugin's, which the file system's and the runtime's own errors start
// with (Error names the file once).
func (e *LoadError) Reason() string {
	if pe, ok := e.Err.(*fs.PathError); ok && pe.Path == e.Path {
		return pe.Err.Error()
	}
	msg := e.Err.Error()
	for _, prefix := range []string{e.Path + ": ", "plugin " + e.Path + ": ", "plugin " + e.name + ": "} {
		msg = strings.TrimPrefix(msg, prefix)
	}
	return msg
}

// PinError is a plugin file whose content is not the one its sha256 pin
// names (Options.SHA256).
type PinError struct {
	Got, Want string // hex sha256s
}

func (e *PinError) Error() string {
	return fmt.Sprintf("sha256 is %s, but the configuration pins %s", e.Got, e.Want)
}

func (e *LoadError) Unwrap() error { return e.Err }

// Plugin is a loaded plugin: its description, its tools and its hooks.
type Plugin struct {
	path   string
	name   string
	sum    string         // the module's hex sha256
	grants runtime.Grants // as the runtime holds them
	desc   *sdk.Description
	tools  []host.Tool
	unused []string

	// ready is closed once rp or err is set: at once for a plugin loaded
	// in the foreground, after the background load otherwise.
	ready  chan struct{}
	rp     *runtime.Plugin
	err    error
	cancel context.CancelFunc // stops a background load
	start  *Start             // holds the background load (nil: none)
	// needed is closed when something waits for a plugin loading in the
	// background: its load then takes no turn behind the others.
	needed     chan struct{}
	neededOnce sync.Once
	log        *slog.Logger // Options.Logger: warnings about hooks' answers
}

// Load compiles the plugin at path, runs its describe export and checks
// what it says. Every failure is a *LoadError naming the file.
func Load(ctx context.Context, rt *runtime.Runtime, path string, opts Options) (*Plugin, error) {
	if opts.Cache != nil {
		// The file unchanged since it was last hashed, and its
		// description cached: no need to read it before listing tools.
		if sum, ok := opts.Cache.fileSum(path); ok && (opts.SHA256 == "" || strings.EqualFold(sum, opts.SHA256)) {
			if p, ok, err := loadCached(ctx, rt, path, nil, sum, opts); ok || err != nil {
				if err != nil {
					return nil, &LoadError{Path: path, Err: err, name: cmp.Or(opts.Name, path)}
				}
				return p, nil
			}
		}
	}
	before := ""
	if opts.Cache != nil {
		before = stat(path)
	}
	wasm, err := rt.ReadModule(path)
	if err != nil {
		return nil, &LoadError{Path: path, Err: err, name: cmp.Or(opts.Name, path)}
	}
	p, err := LoadBytes(ctx, rt, path, wasm, opts)
	if err == nil && opts.Cache != nil {
		opts.Cache.putFileSum(path, before, p.sum)
	}
	return p, err
}

// LoadBytes is Load for a module already in memory; path names it.
func LoadBytes(ctx context.Context, rt *runtime.Runtime, path string, wasm []byte, opts Options) (*Plugin, error) {
	p, err := load(ctx, rt, path, wasm, opts)
	if err != nil {
		return nil, &LoadError{Path: path, Err: err, name: cmp.Or(opts.Name, path)}
	}
	return p, nil
}

func load(ctx context.Context, rt *runtime.Runtime, path string, wasm []byte, opts Options) (*Plugin, error) {
	sum := sha256.Sum256(wasm)
	hexSum := hex.EncodeToString(sum[:])
	if opts.SHA256 != "" && !strings.EqualFold(hexSum, opts.SHA256) {
		return nil, &PinError{Got: hexSum, Want: opts.SHA256}
	}
	if opts.Cache != nil {
		if p, ok, err := loadCached(ctx, rt, path, wasm, hexSum, opts); ok || err != nil {
			return p, err
		}
	}
	if opts.Name == "" {
		opts.Name = path
	}
	p, raw, observed, err := loadNow(ctx, rt, path, wasm, opts, hexSum)
	if err != nil {
		return nil, err
	}
	// (With the real wall clock granted, describe may depend on the
	// time: never cached.)
	if opts.Cache != nil && !p.grants.Clock && !observed.Files && !observed.Network {
		if key, err := cacheKey(hexSum, p.grants); err == nil {
			opts.Cache.put(key, raw)
		}
	}
	return p, nil
}

// loadCached returns the plugin described from the cache, loading behind,
// if the cache has its description (ok); wasm is nil when the file is to
// be read in the background.
func loadCached(ctx context.Context, rt *runtime.Runtime, path string, wasm []byte, sum string, opts Options) (*Plugin, bool, error) {
	g, err := rt.CheckGrants(opts.Grants)
	if err != nil || g.Clock {
		return nil, false, nil
	}
	key, err := cacheKey(sum, g)
	if err != nil {
		return nil, false, nil
	}
	d := opts.Cache.get(key)
	if d == nil {
		return nil, false, nil
	}
	if opts.Name == "" {
		opts.Name = path
	}
	p, err := loadBehind(ctx, rt, path, wasm, opts, sum, g, key, d)
	return p, err == nil, err
}

// loadNow compiles, instantiates and describes the plugin, and returns
// it ready, with its raw description and what describing it observed.
func loadNow(ctx context.Context, rt *runtime.Runtime, path string, wasm []byte, opts Options, sum string) (*Plugin, []byte, runtime.Observed, error) {
	var observed runtime.Observed
	m, err := rt.Compile(ctx, path, wasm)
	if err != nil {
		return nil, nil, observed, err
	}
	if !m.HasExport(sdk.ExportDescribe) {
		return nil, nil, observed, clipErr(fmt.Errorf("it does not export %q, so it is not a wasmagent plugin, which is an Extism module that also exports %q (its tools, each with a JSON Schema) and %q (which the host calls with a tool's name and arguments), as the wasmagent SDKs write them (docs/abi.md); its exports: %q", sdk.ExportDescribe, sdk.ExportDescribe, sdk.ExportExecute, m.Exports()))
	}
	rp, err := rt.NewPlugin(m, runtime.PluginOptions{Name: opts.Name, Grants: opts.Grants, PoolSize: opts.PoolSize, NoImage: opts.NoImage})
	if err != nil {
		return nil, nil, observed, err
	}
	p := &Plugin{path: path, name: rp.Name(), sum: sum, grants: rp.Grants(), rp: rp, ready: make(chan struct{}), cancel: func() {}, log: opts.Logger}
	close(p.ready)
	out, err := rp.Call(ctx, sdk.ExportDescribe, nil, &runtime.CallOptions{Observed: &observed})
	if err == nil {
		err = p.describe(out)
	}
	if err != nil {
		rp.Close()
		return nil, nil, observed, err
	}
	return p, out, observed, nil
}

// behind bounds the background loads running at once, leaving a core to
// the rest of the process (the first model request goes out meanwhile).
// A load something waits for takes no turn (Plugin.needed).
var behind = make(chan struct{}, max(1, goruntime.GOMAXPROCS(0)-1))

// loadBehind returns a plugin described by d, from the cache, and loads
// it in the background.
func loadBehind(ctx context.Context, rt *runtime.Runtime, path string, wasm []byte, opts Options, sum string, g runtime.Grants, key string, d *sdk.Description) (*Plugin, error) {
	p := &Plugin{path: path, name: opts.Name, sum: sum, grants: g, ready: make(chan struct{}), start: opts.Start, needed: make(chan struct{}), log: opts.Logger}
	if err := p.adopt(d); err != nil {
		return nil, err
	}
	bctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	p.cancel = cancel
	log := opts.Logger
	go func() {
		defer close(p.ready)
		defer cancel()
		var fresh *Plugin
		var observed runtime.Observed
		err := opts.Start.wait(bctx)
		if err == nil {
			select {
			case behind <- struct{}{}:
				defer func() { <-behind }()
			case <-p.needed: // a call waits for it: now, not after the others
			case <-bctx.Done():
				err = bctx.Err()
			}
		}
		if err == nil && wasm == nil {
			wasm, err = rt.ReadModule(path)
			if got := sha256.Sum256(wasm); err == nil && hex.EncodeToString(got[:]) != sum {
				opts.Cache.dropFileSum(path)
				err = errors.New("the file is not the one whose description was cached (it changed since): start again")
			}
		}
		if err == nil {
			fresh, observed, err = loadSafely(bctx, rt, path, wasm, opts, sum)
		}
		switch {
		case err != nil:
		case !sameDescription(fresh.desc, d) || observed.Files || observed.Network:
			fresh.rp.Close()
			opts.Cache.drop(key)
			err = errors.New("it no longer describes itself as the description cached for it (describe depends on something the cache cannot see); the entry is removed: start again")
		default:
			p.rp = fresh.rp
			return
		}
		p.err = &LoadError{Path: path, Err: err, name: opts.Name}
		if log != nil && bctx.Err() == nil {
			log.Error("a plugin failed to load in the background; its tools and hooks fail", "plugin", p.name, "err", p.err)
		}
	}()
	return p, nil
}

// loadSafely is loadNow in a goroutine of its own making: a panic there
// (in a third-party decoder or compiler fed with what the plugin says)
// would end the process, so it is the load's error instead.
func loadSafely(ctx context.Context, rt *runtime.Runtime, path string, wasm []byte, opts Options, sum string) (p *Plugin, observed runtime.Observed, err error) {
	defer func() {
		if v := recover(); v != nil {
			p, err = nil, fmt.Errorf("loading panicked: %v", v)
		}
	}()
	p, _, observed, err = loadNow(ctx, rt, path, wasm, opts, sum)
	return p, observed, err
}

// describe checks a describe output against the module and the grants,
// and adopts it.
func (p *Plugin) describe(out []byte) error {
	d, err := parseDescription(out)
	if err != nil {
		return err
	}
	var errs []error
	m := p.rp.Module()
	if len(d.Tools) > 0 && !m.HasExport(sdk.ExportExecute) {
		errs = append(errs, fmt.Errorf("describe lists tools but the module does not export %q", sdk.ExportExecute))
	}
	for _, h := range d.Hooks {
		export := map[string]string{sdk.HookBeforeToolCall: sdk.ExportBeforeToolCall, sdk.HookAfterToolCall: sdk.ExportAfterToolCall}[h]
		if export != "" && !m.HasExport(export) {
			errs = append(errs, fmt.Errorf("describe lists the hook %s but the module does not export %q", h, export))
		}
	}
	for _, t := range d.Tools {
		if t.PrepareArguments && !m.HasExport(sdk.ExportPrepareArguments) {
			errs = append(errs, fmt.Errorf("tool %s asks for prepareArguments but the module does not export %q", t.Name, sdk.ExportPrepareArguments))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return p.adopt(d)
}

// adopt takes d as the plugin's description: its needs against the
// grants, its tools.
func (p *Plugin) adopt(d *sdk.Description) error {
	unmet, unused := checkNeeds(d.Needs, p.grants)
	if unmet != nil {
		return &MissingGrantsError{Missing: unmet}
	}
	p.desc, p.unused = d, unused
	for _, spec := range d.Tools {
		p.tools = append(p.tools, &tool{p: p, spec: spec})
	}
	return nil
}

// Wait waits until the plugin is loaded and returns the error of a
// background load that failed (a *LoadError); a plugin loaded in the
// foreground is loaded already.
func (p *Plugin) Wait(ctx context.Context) error {
	_, err := p.plugin(ctx)
	return err
}

// plugin is the runtime's plugin once loaded.
func (p *Plugin) plugin(ctx context.Context) (*runtime.Plugin, error) {
	select {
	case <-p.ready:
		return p.rp, p.err
	default:
	}
	p.start.Open() // needed now: no more holding back
	if p.needed != nil {
		p.neededOnce.Do(func() { close(p.needed) })
	}
	select {
	case <-p.ready:
		return p.rp, p.err
	case <-ctx.Done():
		return nil, fmt.Errorf("plugin %s: still loading: %w", p.name, context.Cause(ctx))
	}
}

// parseDescription decodes and checks a describe output: the ABI version,
// names, execution modes, hooks, needs and that every schema compiles.
func parseDescription(out []byte) (*sdk.Description, error) {
	var d sdk.Description
	if err := decodeStrict(out, &d); err != nil {
		return nil, clipErr(fmt.Errorf("describe: %w", err))
	}
	errs := []error{sdk.CheckDescription(&d)}
	if err := checkToolCount(&d); err != nil {
		return nil, clipErr(err) // before compiling any schema
	}
	for _, t := range d.Tools {
		if _, err := host.CompileSchema(t.Parameters); err != nil {
			errs = append(errs, fmt.Errorf("describe: tool %s: parameters: %w", t.Name, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, clipErr(err)
	}
	return &d, nil
}

// Grants are the plugin's grants, defaults filled in.
func (p *Plugin) Grants() runtime.Grants { return p.grants }

// Path is the file the plugin was loaded from.
func (p *Plugin) Path() string { return p.path }

// Name is the plugin's label.
func (p *Plugin) Name() string { return p.name }

// Description is what the plugin's describe returned.
func (p *Plugin) Description() *sdk.Description { return p.desc }

// SHA256 is the hex sha256 of the plugin's file.
func (p *Plugin) SHA256() string { return p.sum }

// Tools are the plugin's tools, in the order it listed them.
func (p *Plugin) Tools() []host.Tool { return p.tools }

// UnusedGrants lists the grants the plugin's declared needs never asked
// for (empty when it declares no needs: then nobody can tell).
func (p *Plugin) UnusedGrants() []string { return p.unused }

// hasHook reports whether the plugin's description lists hook h.
func (p *Plugin) hasHook(h string) bool {
	for _, x := range p.desc.Hooks {
		if x == h {
			return true
		}
	}
	return false
}

// Close stops the plugin's pool, and its background load if it is still
// running.
func (p *Plugin) Close() {
	p.cancel()
	<-p.ready
	if p.rp != nil {
		p.rp.Close()
	}
}

// decodeStrict decodes one JSON value into v, refusing unknown fields and
// trailing data, with errors that say so. Invalid UTF-8 becomes U+FFFD
// everywhere, raw fields included (validText).
func decodeStrict(b []byte, v any) error {
	if err := checkJSON(b); err != nil {
		return err
	}
	b = validText(b)
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("the output does not fit the ABI: %w", err)
	}
	return nil
}
