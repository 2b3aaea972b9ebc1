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

// refuseConfigValue catches the old "--config key=value" of plugin call:
// --config names a configuration file everywhere else.
func refuseConfigValue(args []string) error {
	for _, a := range args {
		if a == "--" {
			return nil
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && name == "config" {
			return fmt.Errorf("--config names a configuration file; a value the plugin reads is --set KEY=VALUE")
		}
	}
	return nil
}
