package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/wasmagent/wasmagent/runtime"
)

// grantFlags are the flags that grant a plugin what plugin call lets it
// use; nothing is granted that is not named.
type grantFlags struct {
	dirs, hosts, sets listFlag
	timeout           *time.Duration
	memory            *int
}

func addGrantFlags(f *flags) *grantFlags {
	g := &grantFlags{}
	f.Var(&g.dirs, "dir", "grant a directory: `HOST:GUEST[:rw]` (read-only unless :rw; a relative HOST is from the current directory; repeatable)")
	f.Var(&g.hosts, "host", "grant outbound HTTP to a `host` (name, *.name, *, optional :port; repeatable)")
	f.Var(&g.sets, "set", "a configuration value the plugin reads: `KEY=VALUE` (repeatable)")
	g.timeout = f.Duration("timeout", 30*time.Second, "the call's timeout (a `DURATION`: 30s, 2m)")
	g.memory = f.Int("memory-mib", 128, "the memory grant in MiB (`N`, at most 4096)")
	return g
}

// grants turns the flags into Grants, or says which flag is wrong.
func (g *grantFlags) grants() (runtime.Grants, error) {
	if *g.memory <= 0 || *g.memory > 4096 {
		return runtime.Grants{}, fmt.Errorf("--memory-mib %d: want 1 to 4096", *g.memory)
	}
	if *g.timeout <= 0 {
		return runtime.Grants{}, fmt.Errorf("--timeout %v: want a positive duration", *g.timeout)
	}
	out := runtime.Grants{Hosts: g.hosts, Config: map[string]string{}, Timeout: *g.timeout, MemoryPages: uint32(*g.memory * 16)}
	for _, d := range g.dirs {
		dir, err := parseDir(d)
		if err != nil {
			return runtime.Grants{}, err
		}
		out.Dirs = append(out.Dirs, dir)
	}
	for _, c := range g.sets {
		k, v, ok := strings.Cut(c, "=")
		if !ok || k == "" {
			return runtime.Grants{}, fmt.Errorf("--set %q: write KEY=VALUE", c)
		}
		out.Config[k] = v
	}
	return out, nil
}

// parseDir reads HOST:GUEST[:rw|:ro]. HOST may be relative ("."); it is
// made absolute here and must be an existing directory.
func parseDir(s string) (runtime.Dir, error) {
	parts := strings.Split(s, ":")
	write := false
	if n := len(parts); n == 3 && (parts[2] == "rw" || parts[2] == "ro") {
		write = parts[2] == "rw"
		parts = parts[:2]
	}
	if len(parts) != 2 || parts[0] == "" || parts[1] == "" {
		return runtime.Dir{}, fmt.Errorf("--dir %q: write HOST:GUEST, HOST:GUEST:rw or HOST:GUEST:ro", s)
	}
	if !strings.HasPrefix(parts[1], "/") {
		return runtime.Dir{}, fmt.Errorf("--dir %q: the guest path %q must be absolute (as /data)", s, parts[1])
	}
	if parts[0] == "~" || strings.HasPrefix(parts[0], "~/") {
		// The shell expands ~ at a word's start (--dir ~/x:/work), not after
		// --dir= (nor in quotes).
		return runtime.Dir{}, fmt.Errorf("--dir %q: ~ is not expanded here: write --dir %s (a space, not =, lets the shell expand it), or the whole path", s, strings.TrimPrefix(s, "="))
	}
	host, err := filepath.Abs(parts[0])
	if err != nil {
		return runtime.Dir{}, fmt.Errorf("--dir %q: %v", s, err)
	}
	fi, err := os.Stat(host)
	switch {
	case err != nil:
		return runtime.Dir{}, fmt.Errorf("--dir %q: %s does not exist or cannot be read", s, host)
	case !fi.IsDir():
		return runtime.Dir{}, fmt.Errorf("--dir %q: %s is not a directory", s, host)
	}
	return runtime.Dir{Host: host, Guest: filepath.ToSlash(filepath.Clean(parts[1])), Write: write}, nil
}

// extismFlags are the flags of "extism call" that plugin call spells
// otherwise, with what to write here.
var extismFlags = map[string]string{
	"config":             "--config names a configuration file; a value the plugin reads is --set KEY=VALUE",
	"set-config":         "a value the plugin reads is --set KEY=VALUE (repeatable)",
	"allow-host":         "a host is granted with --host NAME (repeatable; *.name and * work)",
	"allow-path":         "a directory is granted with --dir HOST:GUEST (read-only; HOST:GUEST:rw to write)",
	"wasi":               "every plugin runs with WASI here, granted nothing that --dir or --host does not grant: leave --wasi out",
	"memory-max":         "the memory grant is --memory-mib N (in MiB)",
	"timeout-ms":         "the call's timeout is --timeout DURATION (100ms, 30s)",
	"stdin":              "ARGS_JSON is read from stdin with --input - (or a positional -)",
	"manifest":           "there is no manifest here: grant with --dir, --host, --set, --memory-mib and --timeout, or load the plugin from an agent.toml",
	"http-response-max":  "the HTTP response cap is max_http_response in the tool's grants (agent.toml)",
	"var-max":            "the variables cap is max_vars in the tool's grants (agent.toml)",
	"link":               "a plugin is one module here: linking others is not supported",
	"loop":               "a call runs once here",
	"allow-http-headers": "response headers are always given to the plugin here",
}

// refuseForeignFlags says what plugin call writes for a flag of
// "extism call" (its --config key=value among them: --config names a
// configuration file everywhere here), before the flag package calls it
// unknown.
func refuseForeignFlags(args []string) error {
	for _, a := range args {
		if a == "--" {
			return nil
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if say, ok := extismFlags[name]; ok && strings.HasPrefix(a, "-") {
			return fmt.Errorf("--%s is a flag of extism call: %s", name, say)
		}
	}
	return nil
}
