package config

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/eventwire"
	"github.com/wasmagent/wasmagent/host/provider"
	"github.com/wasmagent/wasmagent/host/scripted"
	"github.com/wasmagent/wasmagent/host/wasmtool"
	"github.com/wasmagent/wasmagent/internal/rtshare"
	"github.com/wasmagent/wasmagent/internal/words"
	"github.com/wasmagent/wasmagent/runtime"
)

// Setup is a configuration wired: the runtime, the loaded plugins, the
// model and the options of an Agent.
type Setup struct {
	File    *File
	Runtime *runtime.Runtime
	Model   host.Model
	Options host.AgentOptions
	// Events configure the event lines written for clients outside the
	// process ([events]).
	Events eventwire.Options
	Tools  []ToolInfo
	Hooks  []HookInfo
	// Warnings are things worth saying that do not stop the start: grants
	// a plugin never asked for.
	Warnings []string

	plugins []*wasmtool.Plugin
	audit   *auditor
	onClose func()
	loaded  map[string]loaded // by the key of the entry: tool[i], hook[i]
	start   *wasmtool.Start   // holds the background loads (HoldLoads)

	closeRuntime func() // closes Runtime, or not if shared (internal/rtshare)
}

// Audit is the listener that writes the audit log ([audit] path), or nil
// without one: subscribe it to the Agent.
func (s *Setup) Audit() host.Listener {
	if s.audit == nil {
		return nil
	}
	return s.audit.Event
}

// ToolInfo describes a tool the configuration gives the agent.
type ToolInfo struct {
	Name   string // as the model sees it
	Mode   host.ExecutionMode
	Plugin *wasmtool.Plugin
	Grants runtime.Grants
}

// HookInfo describes a hook in the order of agent.toml (gates run after
// the other beforeToolCall hooks).
type HookInfo struct {
	Kind   string // "beforeToolCall" or "afterToolCall"
	Tools  []string
	Plugin *wasmtool.Plugin
	Grants runtime.Grants
	Gate   bool
}

// WireOptions adjust wiring.
type WireOptions struct {
	// Logger receives the runtime's and the plugins' logs.
	Logger *slog.Logger
	// NoModel skips making the model (for commands that only look at the
	// plugins, and that must work without an API key).
	NoModel bool
	// OnModelRetry, if set, is told when an OpenAI-compatible model's
	// request failed and is tried again (provider.Options.OnRetry).
	OnModelRetry func(provider.Retry)
	// Observer and RuntimeObserver watch runs and plugin calls
	// (host/telemetry); OnClose is called first by Setup.Close.
	Observer        host.Observer
	RuntimeObserver runtime.Observer
	OnClose         func()
	// Background lists the tools of a plugin whose description is cached
	// (beside the compilation cache) at once, and loads the plugin in the
	// background: a call waits for it, and a plugin that fails to load is
	// logged when it fails and fails its calls (docs/runtime.md,
	// "Startup"). Without it every plugin is loaded and described before
	// Wire returns. Either way the plugins load in parallel, and
	// descriptions are kept for the next run.
	Background bool
	// HoldLoads, with Background and a model, holds those background
	// loads until the first model request is written (or a plugin is
	// waited for: a call, Setup.Wait), so that their work stays off the
	// path to that request: for commands that send one at once (run).
	HoldLoads bool
}

// Wire builds everything the configuration describes. Every problem names
// the file, and the line and key where it can.
func (f *File) Wire(ctx context.Context, opts WireOptions) (_ *Setup, err error) {
	s := &Setup{File: f, onClose: opts.OnClose}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	rtOpts := runtime.Options{CacheDir: f.Runtime.CacheDir, MaxMemoryPages: uint32(int64(f.Runtime.MaxMemory) >> 16), MaxConcurrentCalls: f.Runtime.MaxConcurrentCalls, ImageMemory: imageMemory(f.Runtime.ImageMemory), MaxModuleBytes: int64(f.Runtime.MaxModuleBytes), Logger: opts.Logger, Observer: opts.RuntimeObserver}
	if c := f.Runtime.MaxCompileCost; c != nil {
		rtOpts.MaxCompileCost = *c
	}
	// A fresh runtime, unless a test shares one (internal/rtshare).
	if s.Runtime, s.closeRuntime, err = rtshare.New(ctx, rtOpts); err != nil {
		return nil, err
	}
	// Every problem of the plugins at once, as Load reports the file's.
	var errs []error
	if !opts.NoModel {
		// A model that cannot be made (no API key, a script missing)
		// fails at once: loading the plugins may compile them for tens
		// of seconds, and the command cannot run without it. (config
		// validate makes no model and reports every other problem.)
		if s.Model, err = f.model(opts); err != nil {
			return nil, err
		}
	}
	if opts.Background && opts.HoldLoads && s.Model != nil {
		s.start = wasmtool.NewStart()
		s.Model = startOnRequest(s.Model, s.start)
	}
	s.loaded = s.loadAll(ctx, opts)
	toolErrs := s.loadTools(ctx)
	errs = append(errs, toolErrs...)
	if f.Audit.Path != "" && len(errs) == 0 {
		if s.audit, err = openAudit(f.Audit, s.Tools); err != nil {
			errs = append(errs, f.errorf("audit.path", "%v", err))
		}
	}
	errs = append(errs, s.loadHooks(ctx, len(toolErrs) == 0)...)
	if len(errs) > 0 {
		return nil, joinByLine(errs)
	}
	if s.audit != nil {
		s.Options.OnHook = s.audit.hook
	}
	a := f.Agent
	s.Options.Model = s.Model
	s.Options.Observer = opts.Observer
	s.Options.SystemPrompt = a.SystemPrompt
	s.Options.ThinkingLevel = a.Thinking
	s.Options.ToolExecution = host.ExecutionMode(a.ToolExecution)
	s.Options.MaxConcurrency = a.MaxConcurrency
	s.Options.MaxToolCalls = a.MaxToolCalls
	s.Options.MaxArgumentBytes = int(a.MaxArgumentBytes)
	s.Events = eventwire.Options{Mode: eventwire.Mode(f.Events.Updates), Floor: int64(f.Events.Floor), Ratio: f.Events.Ratio}
	s.Options.SteeringMode = host.QueueMode(a.SteeringMode)
	s.Options.FollowUpMode = host.QueueMode(a.FollowUpMode)
	if a.MaxTurns > 0 {
		// The turns of this run: a Setup's options serve every run of a
		// chat and every session of serve, at once, so nothing is
		// counted across calls.
		max := a.MaxTurns
		s.Options.ShouldStopAfterTurn = func(_ context.Context, turn host.TurnInfo) bool {
			return TurnsOf(turn.NewMessages) >= max
		}
	}
	return s, nil
}

// TurnsOf is the number of turns in a run's new messages: its assistant
// messages.
func TurnsOf(msgs []host.Message) int {
	n := 0
	for _, m := range msgs {
		if _, ok := m.(*host.AssistantMessage); ok {
			n++
		}
	}
	return n
}

// Close stops every plugin and the runtime, and closes the audit log.
func (s *Setup) Close() {
	if s.onClose != nil {
		s.onClose()
	}
	if s.audit != nil {
		s.audit.close()
	}
	for _, p := range s.plugins {
		p.Close()
	}
	if s.closeRuntime != nil {
		s.closeRuntime()
	}
}

// errorf is a problem at key; an error among args (the first) is its
// Err, so that errors.Is and errors.As see through the configuration's
// report to what the runtime, a plugin or the system said.
func (f *File) errorf(key, format string, args ...any) error {
	return &Error{File: f.Path, Line: f.lines.line(key), Key: key, Msg: fmt.Sprintf(format, args...), Err: cause(args)}
}

func (f *File) model(opts WireOptions) (host.Model, error) {
	m := f.Model
	switch m.Provider {
	case "scripted":
		s, err := scripted.Load(m.Script)
		if err != nil {
			return nil, f.errorf("model.script", "%v", err)
		}
		return scripted.New(s), nil
	case "openai":
		key := os.Getenv(m.APIKeyEnv)
		if key == "" && (m.BaseURL == "" || strings.Contains(m.BaseURL, "api.openai.com")) {
			return nil, f.errorf("model.api_key_env", "the environment variable %s is empty or not set; OpenAI needs an API key", m.APIKeyEnv)
		}
		headers, err := f.readHeaders("model.headers", m.Headers)
		if err != nil {
			return nil, err
		}
		o := provider.Options{Model: m.Name, BaseURL: m.BaseURL, APIKey: key, Headers: headers, Temperature: m.Temperature, MaxTokens: m.MaxTokens, ReasoningEffort: m.ReasoningEffort, Timeout: m.Timeout.Duration, OnRetry: opts.OnModelRetry, MaxResponseBytes: int64(m.MaxResponseBytes)}
		if m.Retries != nil {
			o.Retries = *m.Retries
			if o.Retries == 0 {
				o.Retries = -1
			}
		}
		newModel, ok := lookupProvider(m.Provider)
		if !ok {
			return nil, f.errorf("model.provider", "the %s provider is not linked into this program: a program that wires agent.toml imports the providers it offers, as cmd/wasmagent does (import _ %q)", m.Provider, "github.com/wasmagent/wasmagent/host/openai")
		}
		return newModel(o)
	}
	return nil, f.errorf("model.provider", "unknown provider %q", m.Provider)
}

// grants turns a plugin entry's grants and configuration into the
// runtime's, reading the environment where the file says so.
func (f *File) grants(key string, p *Plugin) (runtime.Grants, error) {
	g := runtime.Grants{
		Hosts:                p.Grants.Hosts,
		MemoryPages:          uint32(int64(p.Grants.Memory) >> 16),
		Timeout:              p.Grants.Timeout.Duration,
		MaxInputBytes:        int(p.Grants.MaxInput),
		MaxOutputBytes:       int(p.Grants.MaxOutput),
		MaxHTTPResponseBytes: int64(p.Grants.MaxHTTPResponse),
		MaxVarBytes:          int(p.Grants.MaxVars),
		MaxHostAllocBytes:    int64(p.Grants.MaxHostAlloc),
		MaxUpdates:           p.Grants.MaxUpdates,
		MaxUpdateBytes:       int64(p.Grants.MaxUpdateBytes),
		MaxLogBytes:          int(p.Grants.MaxLog),
		MaxVarWriteBytes:     int64(p.Grants.MaxVarWrites),
		MaxHTTPRequests:      p.Grants.MaxHTTPRequests,
		MaxDiskBytes:         int64(p.Grants.MaxDisk),
		MaxNewFiles:          p.Grants.MaxNewFiles,
		LogLevel:             p.Grants.LogLevel,
		Clock:                p.Grants.Clock,
		Config:               map[string]string{},
		Protected:            f.protected(),
	}
	for _, d := range p.Grants.Dirs {
		g.Dirs = append(g.Dirs, runtime.Dir{Host: d.Host, Guest: d.Guest, Write: d.Write})
	}
	for _, c := range p.Grants.Credentials {
		v, ok := os.LookupEnv(c.Env)
		if !ok || v == "" {
			return g, f.errorf(key+".grants.credentials", "the environment variable %s (the credential for %s) is empty or not set", c.Env, c.Host)
		}
		g.Credentials = append(g.Credentials, runtime.Credential{Host: c.Host, Header: c.Header, Value: c.Prefix + v})
	}
	for k, v := range p.Config {
		s, err := v.resolve()
		if err != nil {
			return g, f.errorf(key+".config."+k, "%v", err)
		}
		g.Config[k] = s
	}
	return g, nil
}

func (f *File) loadWith(ctx context.Context, rt *runtime.Runtime, key string, p *Plugin, cache *wasmtool.DescribeCache, start *wasmtool.Start, log *slog.Logger) (*wasmtool.Plugin, runtime.Grants, error) {
	g, err := f.grants(key, p)
	if err != nil {
		return nil, g, err
	}
	pool := runtime.DefaultPoolSize
	if p.Pool != nil {
		pool = *p.Pool
	}
	name := p.Name
	if name == "" {
		name = strings.TrimSuffix(filepath.Base(p.Plugin), ".wasm")
	}
	wp, err := wasmtool.Load(ctx, rt, p.Plugin, wasmtool.Options{Name: name, SHA256: p.SHA256, Grants: g, PoolSize: pool, NoImage: p.Image != nil && !*p.Image, Cache: cache, Start: start, Logger: log})
	if err != nil {
		return nil, g, f.loadError(key, err)
	}
	return wp, wp.Grants(), nil
}

func (s *Setup) loadTools(ctx context.Context) (errs []error) {
	f := s.File
	owner := map[string]int{} // tool name → the tool entry that has it
	for i := range f.Tools {
		t := &f.Tools[i]
		key := fmt.Sprintf("tool[%d]", i)
		l := s.loaded[key]
		wp, g, err := l.wp, l.g, l.err
		if err != nil {
			errs = append(errs, err)
			continue
		}
		s.warnUnused(wp)
		if len(wp.Tools()) == 0 {
			errs = append(errs, f.errorf(key+".plugin", "%s has no tools (its description lists hooks only: use [[hook]])", t.Plugin.Plugin))
			continue
		}
		names := map[string]bool{}
		for _, tool := range wp.Tools() {
			names[tool.Info().Name] = true
		}
		for _, list := range []struct {
			key   string
			names []string
		}{{"disable", t.Disable}, {"sequential", t.Sequential}, {"rename", mapKeys(t.Rename)}} {
			for _, n := range list.names {
				if !names[n] {
					errs = append(errs, f.errorf(key+"."+list.key, "the plugin has no tool %q (it has %s)", n, strings.Join(mapKeys(names), ", ")))
				}
			}
		}
		clashes := map[int][]string{} // earlier entry → the names (as the plugin has them) it has too
		for _, tool := range wp.Tools() {
			info := tool.Info()
			if slices.Contains(t.Disable, info.Name) {
				continue
			}
			if n, ok := t.Rename[info.Name]; ok {
				info.Name = n
			}
			if slices.Contains(t.Sequential, tool.Info().Name) {
				info.ExecutionMode = host.ExecutionSequential // tighten, never loosen
			}
			if prev, dup := owner[info.Name]; dup {
				clashes[prev] = append(clashes[prev], tool.Info().Name)
				continue
			}
			owner[info.Name] = i
			s.Options.Tools = append(s.Options.Tools, configured(tool, info))
			s.Tools = append(s.Tools, ToolInfo{Name: info.Name, Mode: info.ExecutionMode, Plugin: wp, Grants: g})
		}
		for _, prev := range slices.Sorted(maps.Keys(clashes)) {
			errs = append(errs, f.clash(i, prev, clashes[prev]))
		}
	}
	return errs
}

// clash is the error of tool entry i offering names that entry prev
// offers too: one for all of them, with the two lines that end it, each
// written for every name (a plugin listed twice clashed once per tool).
func (f *File) clash(i, prev int, names []string) error {
	key, prevKey := fmt.Sprintf("tool[%d]", i), fmt.Sprintf("tool[%d]", prev)
	at := prevKey
	if line := f.lines.line(prevKey); line > 0 {
		at += fmt.Sprintf(" (line %d)", line)
	}
	same := ""
	if f.Tools[i].Plugin.Plugin == f.Tools[prev].Plugin.Plugin {
		same = ", the same plugin (list a plugin once, or give this entry other names)"
	}
	var renames, quoted []string
	for _, n := range names {
		renames = append(renames, fmt.Sprintf("%s = %q", tomlKey(n), n+"_2"))
		quoted = append(quoted, strconv.Quote(n))
	}
	is, it := "is", "it"
	if len(names) > 1 {
		is, it = "are", "them"
	}
	return f.errorf(key, "%s %s also offered by %s%s; here, rename %s (rename = { %s }) or leave %s out (disable = [%s])",
		words.Named("tool", quoted), is, at, same, it, strings.Join(renames, ", "), it, strings.Join(quoted, ", "))
}

// loadHooks wires the hooks; with allTools (every tool entry loaded),
// a tools pattern that matches none of the tools is an error.
func (s *Setup) loadHooks(ctx context.Context, allTools bool) (errs []error) {
	f := s.File
	order := make([]int, len(f.Hooks))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return f.Hooks[a].Order - f.Hooks[b].Order })
	for _, i := range order {
		h := &f.Hooks[i]
		key := fmt.Sprintf("hook[%d]", i)
		l := s.loaded[key]
		wp, g, err := l.wp, l.g, l.err
		if err != nil {
			errs = append(errs, err)
			continue
		}
		s.warnUnused(wp)
		before, after := wp.BeforeToolCall(), wp.AfterToolCall()
		if before == nil && after == nil {
			errs = append(errs, f.errorf(key+".plugin", "%s is not a hook (its description lists no hooks: use [[tool]])", h.Plugin.Plugin))
			continue
		}
		if allTools {
			errs = append(errs, s.unmatched(key, h.Tools)...)
		}
		match := func(name string) bool {
			if len(h.Tools) == 0 {
				return true
			}
			for _, g := range h.Tools {
				if ok, _ := path.Match(g, name); ok {
					return true
				}
			}
			return false
		}
		o := host.HookOptions{
			Name: wp.Name(), Tools: match, Gate: h.Gate || wp.Gate(),
			OnError: host.Fallback(h.OnError), OnTimeout: host.Fallback(h.OnTimeout), OnAsk: host.Fallback(h.OnAsk),
		}
		if o.Gate && before == nil {
			errs = append(errs, f.errorf(key+".gate", "%s has no beforeToolCall hook to make a gate", h.Plugin.Plugin))
			continue
		}
		if before != nil {
			s.Options.BeforeToolCall = append(s.Options.BeforeToolCall, host.WithBeforeOptions(before, o))
			s.Hooks = append(s.Hooks, HookInfo{Kind: "beforeToolCall", Tools: h.Tools, Plugin: wp, Grants: g, Gate: o.Gate})
		}
		if after != nil {
			s.Options.AfterToolCall = append(s.Options.AfterToolCall, host.WithAfterOptions(after, o))
			s.Hooks = append(s.Hooks, HookInfo{Kind: "afterToolCall", Tools: h.Tools, Plugin: wp, Grants: g})
		}
	}
	return errs
}

func (s *Setup) warnUnused(p *wasmtool.Plugin) {
	for _, g := range p.UnusedGrants() {
		s.Warnings = append(s.Warnings, fmt.Sprintf("%s: %s: granted %s, which the plugin never asked for", s.File.Path, p.Name(), g))
	}
}

func mapKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// configuredTool is a plugin's tool as the configuration presents it:
// renamed, or made sequential.
type configuredTool struct {
	host.Tool
	info host.ToolInfo
}

func configured(t host.Tool, info host.ToolInfo) host.Tool {
	if orig := t.Info(); orig.Name == info.Name && orig.ExecutionMode == info.ExecutionMode {
		return t
	}
	return &configuredTool{Tool: t, info: info}
}

func (t *configuredTool) Info() host.ToolInfo { return t.info }

func (t *configuredTool) PrepareArguments(args json.RawMessage) (json.RawMessage, error) {
	return t.PrepareArgumentsContext(context.Background(), args)
}

func (t *configuredTool) PrepareArgumentsContext(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
	if p, ok := t.Tool.(host.ContextArgumentPreparer); ok {
		return p.PrepareArgumentsContext(ctx, args)
	}
	if p, ok := t.Tool.(host.ArgumentPreparer); ok {
		return p.PrepareArguments(args)
	}
	return args, nil
}

// imageMemory is runtime.image_memory as the runtime's option ("auto" is
// the runtime's default, the empty value).
func imageMemory(v string) runtime.ImageMemory {
	if v == "auto" {
		return runtime.ImageMemoryAuto
	}
	return runtime.ImageMemory(v)
}

// lookupProvider finds a model provider (a variable for the test of a
// program that links none).
var lookupProvider = provider.Lookup

// tomlKey is name as a TOML key: bare when it may be, else quoted.
func tomlKey(name string) string {
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return strconv.Quote(name)
		}
	}
	if name == "" {
		return `""`
	}
	return name
}
