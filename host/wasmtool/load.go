package wasmtool

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

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
}

// LoadError is a plugin that could not be loaded: the file and why.
type LoadError struct {
	Path string
	Err  error
}

func (e *LoadError) Error() string { return fmt.Sprintf("plugin %s: %v", e.Path, e.Err) }

func (e *LoadError) Unwrap() error { return e.Err }

// Plugin is a loaded plugin: its description, its tools and its hooks.
type Plugin struct {
	path   string
	rp     *runtime.Plugin
	desc   *sdk.Description
	tools  []host.Tool
	unused []string
}

// Load compiles the plugin at path, runs its describe export and checks
// what it says. Every failure is a *LoadError naming the file.
func Load(ctx context.Context, rt *runtime.Runtime, path string, opts Options) (*Plugin, error) {
	wasm, err := os.ReadFile(path)
	if err != nil {
		return nil, &LoadError{path, err}
	}
	return LoadBytes(ctx, rt, path, wasm, opts)
}

// LoadBytes is Load for a module already in memory; path names it.
func LoadBytes(ctx context.Context, rt *runtime.Runtime, path string, wasm []byte, opts Options) (*Plugin, error) {
	p, err := load(ctx, rt, path, wasm, opts)
	if err != nil {
		return nil, &LoadError{path, err}
	}
	return p, nil
}

func load(ctx context.Context, rt *runtime.Runtime, path string, wasm []byte, opts Options) (*Plugin, error) {
	if opts.SHA256 != "" {
		sum := sha256.Sum256(wasm)
		if got := hex.EncodeToString(sum[:]); !strings.EqualFold(got, opts.SHA256) {
			return nil, fmt.Errorf("sha256 is %s, but the configuration pins %s", got, opts.SHA256)
		}
	}
	m, err := rt.Compile(ctx, path, wasm)
	if err != nil {
		return nil, err
	}
	if !m.HasExport(sdk.ExportDescribe) {
		return nil, fmt.Errorf("it does not export %q, so it is not a wasmagent plugin (exports: %v)", sdk.ExportDescribe, m.Exports())
	}
	name := opts.Name
	if name == "" {
		name = path
	}
	rp, err := rt.NewPlugin(m, runtime.PluginOptions{Name: name, Grants: opts.Grants, PoolSize: opts.PoolSize, NoImage: opts.NoImage})
	if err != nil {
		return nil, err
	}
	p := &Plugin{path: path, rp: rp}
	if err := p.describe(ctx); err != nil {
		rp.Close()
		return nil, err
	}
	return p, nil
}

func (p *Plugin) describe(ctx context.Context) error {
	out, err := p.rp.Call(ctx, sdk.ExportDescribe, nil, nil)
	if err != nil {
		return err
	}
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
	missing, unused := CheckNeeds(d.Needs, p.rp.Grants())
	if len(missing) > 0 {
		return fmt.Errorf("the plugin needs grants it was not given: %s", strings.Join(missing, "; "))
	}
	p.desc, p.unused = d, unused
	for _, spec := range d.Tools {
		p.tools = append(p.tools, &tool{p: p, spec: spec})
	}
	return nil
}

// parseDescription decodes and checks a describe output: the ABI version,
// names, execution modes, hooks, needs and that every schema compiles.
func parseDescription(out []byte) (*sdk.Description, error) {
	var d sdk.Description
	if err := decodeStrict(out, &d); err != nil {
		return nil, fmt.Errorf("describe: %w", err)
	}
	errs := []error{sdk.CheckDescription(&d)}
	for _, t := range d.Tools {
		if _, err := host.CompileSchema(t.Parameters); err != nil {
			errs = append(errs, fmt.Errorf("describe: tool %s: parameters: %w", t.Name, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return &d, nil
}

// Grants are the plugin's grants, defaults filled in.
func (p *Plugin) Grants() runtime.Grants { return p.rp.Grants() }

// Path is the file the plugin was loaded from.
func (p *Plugin) Path() string { return p.path }

// Name is the plugin's label.
func (p *Plugin) Name() string { return p.rp.Name() }

// Description is what the plugin's describe returned.
func (p *Plugin) Description() *sdk.Description { return p.desc }

// SHA256 is the hex sha256 of the plugin's file.
func (p *Plugin) SHA256() string { return p.rp.Module().SHA256() }

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

// Close stops the plugin's pool.
func (p *Plugin) Close() { p.rp.Close() }

// decodeStrict decodes one JSON value into v, refusing unknown fields and
// trailing data, with errors that say so.
func decodeStrict(b []byte, v any) error {
	if !json.Valid(b) {
		return fmt.Errorf("the output is not JSON: %.120q", b)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("the output does not fit the ABI: %w", err)
	}
	return nil
}
