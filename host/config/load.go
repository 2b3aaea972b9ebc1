package config

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/internal/words"
	"github.com/wasmagent/wasmagent/runtime"
	"github.com/wasmagent/wasmagent/sdk"
)

// Error is one problem in a configuration file: where, which key, what.
type Error struct {
	File string
	Line int // 0 when no line can be named
	Key  string
	Msg  string
	// Err is the error Msg tells of when it came from elsewhere (a
	// plugin's load, the runtime, the environment): errors.Is and
	// errors.As see it through the Error (nil: the file's own problem).
	Err error
}

// Unwrap is the error the problem came from, if any.
func (e *Error) Unwrap() error { return e.Err }

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Key != "" {
		b.WriteString(e.Key + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Load reads, decodes and checks the configuration file at path. All the
// problems found are returned together (errors.Join of *Error), in the
// order of their lines.
func Load(path string) (*File, error) {
	text, err := readConfig(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, text)
}

// LoadTools is Load for commands that serve the tools and never call a
// model ("wasmagent mcp"): the [model] section may be left out.
func LoadTools(path string) (*File, error) {
	text, err := readConfig(path)
	if err != nil {
		return nil, err
	}
	return parse(path, text, true)
}

// readConfig reads the file at path; a directory is answered with the
// file in it that was likely meant.
func readConfig(path string) ([]byte, error) {
	text, err := os.ReadFile(path)
	if err == nil {
		return text, nil
	}
	if fi, serr := os.Stat(path); serr == nil && fi.IsDir() {
		inside := filepath.Join(path, "agent.toml")
		if _, err := os.Stat(inside); err == nil {
			return nil, fmt.Errorf("configuration: %s is a directory: name the file, %s", path, inside)
		}
		return nil, fmt.Errorf("configuration: %s is a directory, with no agent.toml in it: name the configuration file", path)
	}
	return nil, fmt.Errorf("configuration: %w", err)
}

// Parse is Load for text already read; path names it and anchors its
// relative paths.
func Parse(path string, text []byte) (*File, error) { return parse(path, text, false) }

func parse(path string, text []byte, modelOptional bool) (*File, error) {
	f := &File{Path: path, lines: indexLines(string(text))}
	var tree map[string]any
	if _, err := toml.Decode(string(text), &tree); err != nil {
		if json.Valid(text) {
			// pi's settings.json or models.json, Claude Code's
			// settings.json: the parser's words would be about a "{".
			return nil, &Error{File: path, Line: 1, Msg: "this is JSON (another agent's settings.json?); agent.toml is TOML, with its own keys: [model] provider, name and base_url, [[tool]] plugin (the agent.toml at the root of the wasmagent repository explains every key)"}
		}
		// A syntax error: nothing after it can be read reliably.
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, &Error{File: path, Line: pe.Position.Line, Key: pe.LastKey, Msg: pe.Message + unquoted(text, pe.Position.Line)}
		}
		return nil, &Error{File: path, Msg: err.Error()}
	}
	c := &checker{f: f, dir: filepath.Dir(path), modelOptional: modelOptional}
	d := &decoder{report: c.add, bad: map[string]bool{}}
	d.value("", tree, reflect.ValueOf(f).Elem())
	c.bad = d.bad
	c.check()
	if len(c.errs) > 0 {
		errs := make([]error, len(c.errs))
		for i, e := range c.errs {
			errs[i] = e
		}
		return nil, joinByLine(errs)
	}
	return f, nil
}

// unquoted is, for a syntax error on a line "key = value" whose value is
// no TOML value but would be a string in quotes (name = gpt-4o-mini,
// timeout = 10m, max_memory = 1GiB), the line to write instead; else "".
// The parser's own words ("expected value but found \"gpt\" instead", or
// about the end of a top-level item for "10m") do not say it.
func unquoted(text []byte, line int) string {
	lines := strings.Split(string(text), "\n")
	if line < 1 || line > len(lines) {
		return ""
	}
	key, value, ok := strings.Cut(strings.TrimRight(lines[line-1], "\r"), "=")
	if !ok {
		return ""
	}
	key, value = strings.TrimSpace(key), strings.TrimSpace(value)
	if i := strings.Index(value, " #"); i >= 0 {
		value = strings.TrimSpace(value[:i])
	}
	if value == "" || strings.ContainsAny(value[:1], "\"'[{") || strings.ContainsAny(value, "\"'\\") {
		return ""
	}
	var v map[string]any
	if _, err := toml.Decode("v = "+value, &v); err == nil {
		return "" // a value: the error is elsewhere on the line
	}
	return fmt.Sprintf(" (a string goes in quotes: %s = %q)", key, value)
}

// joinByLine joins errors in the order of their lines; problems with no
// line (a missing key) come last, in the order found.
func joinByLine(errs []error) error {
	line := func(err error) int {
		if e, ok := err.(*Error); ok && e.Line > 0 {
			return e.Line
		}
		return math.MaxInt
	}
	slices.SortStableFunc(errs, func(a, b error) int { return cmp.Compare(line(a), line(b)) })
	return errors.Join(errs...)
}

type checker struct {
	f    *File
	dir  string
	bad  map[string]bool // keys already reported as undecodable
	errs []*Error
	// modelOptional accepts a file without [model] (LoadTools).
	modelOptional bool
}

func (c *checker) add(key, msg string) {
	c.errs = append(c.errs, &Error{File: c.f.Path, Line: c.f.lines.line(key), Key: key, Msg: msg})
}

// errorf reports a value problem at key, unless the value could not even
// be decoded (its zero value would only repeat that news).
func (c *checker) errorf(key, format string, args ...any) {
	if !c.bad[key] {
		c.errs = append(c.errs, c.f.errorf(key, format, args...).(*Error))
	}
}

// cause is the first error among args: the one an Error tells of.
func cause(args []any) error {
	for _, a := range args {
		if err, ok := a.(error); ok {
			return err
		}
	}
	return nil
}

// suggest names the known key closest to an unknown one, if any is close.
func suggest(key string) string {
	last := key[strings.LastIndex(key, ".")+1:]
	best, dist := "", 3
	for _, k := range knownKeys {
		// Ties go to a key as long as the typo (a letter replaced).
		if d := editDistance(last, k); d > 0 && (d < dist || d == dist && len(k) == len(last) && len(best) != len(last)) {
			best, dist = k, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

// knownKeys is every key agent.toml has, read from the types' toml tags,
// so that a section added later is suggested from too.
var knownKeys = tomlKeys(reflect.TypeFor[File](), map[reflect.Type]bool{})

func tomlKeys(t reflect.Type, seen map[reflect.Type]bool) []string {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || seen[t] {
		return nil
	}
	seen[t] = true
	var keys []string
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
		if name != "" && name != "-" && !slices.Contains(keys, name) {
			keys = append(keys, name)
		}
		keys = append(keys, tomlKeys(f.Type, seen)...)
	}
	return keys
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// abs makes a path relative to the configuration file absolute. A path
// written with ~ is reported at key: nothing here expands it, and as a
// relative path it would name a directory called "~" beside the file.
func (c *checker) abs(key, p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") || strings.HasPrefix(p, "~"+string(filepath.Separator)) {
		whole := "the whole path"
		if home, err := os.UserHomeDir(); err == nil {
			whole = strconv.Quote(filepath.Join(home, p[1:]))
		}
		c.errorf(key, "%q: ~ is not expanded in agent.toml; write %s, or a path relative to the configuration file's directory", p, whole)
		c.bad[key] = true // (no "does not exist" after it)
		return p
	}
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	abs, err := filepath.Abs(filepath.Join(c.dir, p))
	if err != nil {
		return filepath.Join(c.dir, p)
	}
	return abs
}

// firstParty are the plugins of the wasmagent repository, each built by
// make plugins to plugins/NAME/NAME.wasm (TestFirstPartyNames keeps the
// list equal to plugins/).
var firstParty = []string{"calc", "fetch", "fs", "policy", "redact", "text"}

// notAWasmPath is, for a plugin path written without ".wasm" that is not
// a file ("fs", "plugins/fs", a directory of sources), what a plugin path
// is and the one likely meant; else "".
func notAWasmPath(written, abs string) string {
	if strings.HasSuffix(written, ".wasm") {
		return ""
	}
	name := filepath.Base(filepath.Clean(written))
	if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
		return fmt.Sprintf(": a plugin is its built .wasm file (%q, if this directory's sources build it)", filepath.ToSlash(filepath.Join(written, name+".wasm")))
	}
	if slices.Contains(firstParty, name) {
		return fmt.Sprintf("; a plugin is the path of its built .wasm file: the first-party %s is plugins/%s/%s.wasm in the wasmagent repository (make plugins builds it), relative to this file or absolute", name, name, name)
	}
	return "; a plugin is the path of its built .wasm file"
}

// fileProblem is the package's fileProblem for a file the configuration
// itself names, relative to its directory: where that directory is not
// the working directory, a missing file also says where it was looked
// for (a configuration read from elsewhere, "--config ../x/agent.toml",
// looks for its plugins beside it, not here).
func (c *checker) fileProblem(written string, err error) error {
	if errors.Is(err, fs.ErrNotExist) && !filepath.IsAbs(written) && c.dir != "." {
		return &problem{fmt.Sprintf("%q does not exist (looked for %s: relative paths start at the configuration file's directory)", written, filepath.Join(c.dir, written)), err}
	}
	return fileProblem(written, err)
}

// fileProblem says what is wrong with a file named in the configuration,
// by the name written there.
func fileProblem(written string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &problem{fmt.Sprintf("%q does not exist (relative paths start at the configuration file's directory)", written), err}
	case errors.Is(err, fs.ErrPermission):
		return &problem{fmt.Sprintf("%q cannot be read: permission denied", written), err}
	}
	return &problem{fmt.Sprintf("%q: %v", written, err), err}
}

// problem is an error told in the configuration's words, its cause kept
// for errors.Is.
type problem struct {
	msg string
	err error
}

func (p *problem) Error() string { return p.msg }
func (p *problem) Unwrap() error { return p.err }

func oneOf(v string, allowed ...string) bool { return slices.Contains(allowed, v) }

func (c *checker) check() {
	c.checkModel()
	c.checkAgent()
	ev := c.f.Events
	if ev.Updates != "" && !oneOf(ev.Updates, "pi", "deltas", "all") {
		c.errorf("events.updates", `%q is not "pi", "deltas" or "all"`, ev.Updates)
	}
	if ev.Ratio < 0 {
		c.errorf("events.ratio", "%d is negative", ev.Ratio)
	}
	c.checkMCP()
	c.checkServe()
	c.checkTelemetry()
	c.checkCluster()
	if au := &c.f.Audit; au.Path != "" {
		au.Path = c.abs("audit.path", au.Path)
	} else if au.Arguments || au.Results {
		c.errorf("audit.path", "arguments and results are logged only with a path")
	}
	if d := &c.f.Sessions.Dir; *d != "" {
		*d = c.abs("sessions.dir", *d)
	}
	r := &c.f.Runtime
	if r.CacheDir != "" && r.CacheDir != "off" {
		r.CacheDir = c.abs("runtime.cache_dir", r.CacheDir)
	}
	if r.MaxMemory != 0 && (r.MaxMemory < 1<<16 || int64(r.MaxMemory)>>16 > runtime.MaxPages) {
		c.errorf("runtime.max_memory", "%s is not between 64KiB and 4GiB", words.Count(int64(r.MaxMemory), "byte"))
	}
	if r.MaxConcurrentCalls < 0 {
		c.errorf("runtime.max_concurrent_calls", "%d is negative", r.MaxConcurrentCalls)
	}
	if r.MaxCompileCost != nil && *r.MaxCompileCost <= 0 {
		c.errorf("runtime.max_compile_cost", "%d is not positive (leave the key out for the default, %d)", *r.MaxCompileCost, int64(runtime.MaxFunctionCompileCost))
	}
	if r.LogLevel != "" && !oneOf(r.LogLevel, "debug", "info", "warn", "error") {
		c.errorf("runtime.log_level", "%q is not debug, info, warn or error", r.LogLevel)
	}
	if r.ImageMemory != "" && !oneOf(r.ImageMemory, "auto", "copy", "map") {
		c.errorf("runtime.image_memory", "%q is not auto, copy or map", r.ImageMemory)
	}
	for i := range c.f.Tools {
		t := &c.f.Tools[i]
		key := fmt.Sprintf("tool[%d]", i)
		c.checkPlugin(key, &t.Plugin)
		for from, n := range t.Rename {
			if !sdk.ValidToolName(n) {
				c.errorf(key+".rename."+from, "%q is not a tool name (^[A-Za-z0-9_-]{1,64}$)", n)
			}
		}
	}
	for i := range c.f.Hooks {
		h := &c.f.Hooks[i]
		key := fmt.Sprintf("hook[%d]", i)
		c.checkPlugin(key, &h.Plugin)
		for j, g := range h.Tools {
			if _, err := path.Match(g, ""); err != nil {
				c.errorf(fmt.Sprintf("%s.tools[%d]", key, j), "bad glob %q: %v", g, err)
			}
		}
		for _, fb := range [...]struct{ key, v string }{{"on_error", h.OnError}, {"on_timeout", h.OnTimeout}, {"on_ask", h.OnAsk}} {
			if !host.Fallback(fb.v).Valid() {
				c.errorf(key+"."+fb.key, "%q is not \"block\" or \"allow\"", fb.v)
			}
		}
	}
}

func (c *checker) checkModel() {
	m := &c.f.Model
	if c.modelOptional && reflect.ValueOf(*m).IsZero() {
		return
	}
	switch m.Provider {
	case "openai":
		if m.Name == "" {
			c.errorf("model.name", "the openai provider needs a model name")
		}
		if m.APIKeyEnv == "" {
			m.APIKeyEnv = "OPENAI_API_KEY"
		}
		if m.Script != "" {
			c.errorf("model.script", "script is for the scripted provider")
		}
	case "scripted":
		if m.Script == "" {
			c.errorf("model.script", "the scripted provider needs a script file")
		} else {
			written := m.Script
			m.Script = c.abs("model.script", m.Script)
			if _, err := os.Stat(m.Script); err != nil {
				c.errorf("model.script", "%s", c.fileProblem(written, err))
			}
		}
	case "":
		c.errorf("model.provider", `missing: "openai" or "scripted"`)
	default:
		c.errorf("model.provider", `%q is not "openai" or "scripted"%s`, m.Provider, providerAdvice(m.Provider))
	}
	if m.Temperature != nil && (*m.Temperature < 0 || *m.Temperature > 2) {
		c.errorf("model.temperature", "%v is not between 0 and 2", *m.Temperature)
	}
	if m.MaxTokens < 0 {
		c.errorf("model.max_tokens", "%d is negative", m.MaxTokens)
	}
	if m.Retries != nil && (*m.Retries < 0 || *m.Retries > 10) {
		c.errorf("model.retries", "%d is not between 0 and 10", *m.Retries)
	}
	if m.ReasoningEffort != "" && !oneOf(m.ReasoningEffort, "minimal", "low", "medium", "high") {
		c.errorf("model.reasoning_effort", "%q is not minimal, low, medium or high", m.ReasoningEffort)
	}
	if strings.Contains(m.APIKeyEnv, "=") || strings.HasPrefix(m.APIKeyEnv, "sk-") {
		c.errorf("model.api_key_env", "give the name of the environment variable that holds the key, never the key itself")
	}
	if m.BaseURL != "" {
		if u, err := url.Parse(m.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Fragment != "" {
			advice := baseURLAdvice(m.BaseURL)
			if advice == "" {
				advice = ` (Ollama: "http://localhost:11434/v1")`
			}
			c.errorf("model.base_url", "%q is not an http(s)://host[:port]/path URL%s", m.BaseURL, advice)
		} else if _, err := url.ParseQuery(u.RawQuery); err != nil {
			c.errorf("model.base_url", "the query string of %q does not parse: %v", m.BaseURL, err)
		} else if advice := baseURLAdvice(m.BaseURL); advice != "" {
			c.errorf("model.base_url", "%q%s", m.BaseURL, advice)
		}
	}
	c.checkHeaders("model.headers", m.Headers)
}

func (c *checker) checkAgent() {
	a := &c.f.Agent
	if a.SystemPrompt != "" && a.SystemPromptFile != "" {
		c.errorf("agent.system_prompt_file", "give system_prompt or system_prompt_file, not both")
	}
	if a.SystemPromptFile != "" {
		written := a.SystemPromptFile
		a.SystemPromptFile = c.abs("agent.system_prompt_file", a.SystemPromptFile)
		b, err := os.ReadFile(a.SystemPromptFile)
		if err != nil {
			c.errorf("agent.system_prompt_file", "%s", c.fileProblem(written, err))
		}
		a.SystemPrompt = string(b)
	}
	if a.ToolExecution != "" && !oneOf(a.ToolExecution, "parallel", "sequential") {
		c.errorf("agent.tool_execution", `%q is not "parallel" or "sequential"`, a.ToolExecution)
	}
	if a.MaxConcurrency < 0 {
		c.errorf("agent.max_concurrency", "%d is negative", a.MaxConcurrency)
	}
	if a.MaxTurns < 0 {
		c.errorf("agent.max_turns", "%d is negative", a.MaxTurns)
	}
	if a.MaxToolCalls < -1 {
		c.errorf("agent.max_tool_calls", "%d is not a count of calls (or -1 for no cap)", a.MaxToolCalls)
	}
	if int64(a.MaxArgumentBytes) > math.MaxInt32 {
		c.errorf("agent.max_argument_bytes", "%s is over 2GiB", words.Count(int64(a.MaxArgumentBytes), "byte"))
	}
	for key, v := range map[string]string{"agent.steering_mode": a.SteeringMode, "agent.follow_up_mode": a.FollowUpMode} {
		if v != "" && !oneOf(v, "one-at-a-time", "all") {
			c.errorf(key, `%q is not "one-at-a-time" or "all"`, v)
		}
	}
	if a.Thinking != "" && !oneOf(a.Thinking, "off", "minimal", "low", "medium", "high", "xhigh") {
		c.errorf("agent.thinking", "%q is not off, minimal, low, medium, high or xhigh", a.Thinking)
	}
}

func (c *checker) checkPlugin(key string, p *Plugin) {
	if p.Plugin == "" {
		c.errorf(key+".plugin", "missing: the path of the plugin's .wasm file")
	} else {
		written := p.Plugin
		p.Plugin = c.abs(key+".plugin", p.Plugin)
		if fi, err := os.Stat(p.Plugin); err != nil {
			c.errorf(key+".plugin", "%s%s", c.fileProblem(written, err), notAWasmPath(written, p.Plugin))
		} else if fi.IsDir() {
			c.errorf(key+".plugin", "%q is a directory%s", written, notAWasmPath(written, p.Plugin))
		}
	}
	if p.SHA256 != "" && (len(p.SHA256) != 64 || strings.Trim(strings.ToLower(p.SHA256), "0123456789abcdef") != "") {
		c.errorf(key+".sha256", "%q is not a hex sha256 (64 hex digits)", p.SHA256)
	}
	if p.Pool != nil && (*p.Pool < 0 || *p.Pool > 256) {
		c.errorf(key+".pool", "%d is not between 0 and 256", *p.Pool)
	}
	g := &p.Grants
	if g.MaxUpdates < 0 {
		c.errorf(key+".grants.max_updates", "%d is negative", g.MaxUpdates)
	}
	if g.MaxHTTPRequests < 0 {
		c.errorf(key+".grants.max_http_requests", "%d is negative", g.MaxHTTPRequests)
	}
	if g.MaxNewFiles < 0 {
		c.errorf(key+".grants.max_new_files", "%d is negative", g.MaxNewFiles)
	}
	for i := range g.Dirs {
		d := &g.Dirs[i]
		dk := fmt.Sprintf("%s.grants.dirs[%d]", key, i)
		if d.Host == "" || d.Guest == "" {
			c.errorf(dk, "needs host and guest")
			continue
		}
		written := d.Host
		d.Host = c.abs(dk+".host", d.Host)
		if fi, err := os.Stat(d.Host); err != nil {
			c.errorf(dk+".host", "%s", c.fileProblem(written, err))
		} else if !fi.IsDir() {
			c.errorf(dk+".host", "%q is not a directory", written)
		}
		if !path.IsAbs(d.Guest) {
			c.errorf(dk+".guest", "guest path %q must be absolute", d.Guest)
		}
	}
	for i, h := range g.Hosts {
		if err := runtime.CheckHostGrant(h); err != nil {
			c.errorf(fmt.Sprintf("%s.grants.hosts[%d]", key, i), "%v", err)
		}
	}
	for i, cr := range g.Credentials {
		ck := fmt.Sprintf("%s.grants.credentials[%d]", key, i)
		switch {
		case cr.Host == "" || cr.Header == "" || cr.Env == "":
			c.errorf(ck, "needs host, header and env (the name of the variable holding the secret)")
		case !runtime.HostGranted(g.Hosts, cr.Host):
			c.errorf(ck, "%s is not in grants.hosts", cr.Host)
		}
	}
	if g.Memory != 0 && (g.Memory < 1<<16 || int64(g.Memory)>>16 > runtime.MaxPages) {
		c.errorf(key+".grants.memory", "%s is not between 64KiB and 4GiB", words.Count(int64(g.Memory), "byte"))
	}
	if g.LogLevel != "" && !oneOf(g.LogLevel, "trace", "debug", "info", "warn", "error", "off") {
		c.errorf(key+".grants.log_level", "%q is not trace, debug, info, warn, error or off", g.LogLevel)
	}
	for k := range p.Config {
		if k == "" {
			c.errorf(key+".config", "empty key")
		}
	}
}
