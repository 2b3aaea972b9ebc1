package cli

import (
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/wasmagent/wasmagent/runtime"
)

// grantFlags are the grants plugin call and plugin hook take on the
// command line.
type grantFlags struct {
	dirs, hosts, cfgs listFlag
	timeout           *time.Duration
	memory            *int
}

func addGrantFlags(fs *flag.FlagSet) *grantFlags {
	f := &grantFlags{}
	fs.Var(&f.dirs, "dir", "grant a directory: `HOST:GUEST[:rw]` (read-only unless :rw; repeatable)")
	fs.Var(&f.hosts, "host", "grant outbound HTTP to a `host` (name, *.name, *, optional :port; repeatable)")
	fs.Var(&f.cfgs, "config", "a configuration value `key=value` (repeatable)")
	f.timeout = fs.Duration("timeout", 30*time.Second, "the call's timeout")
	f.memory = fs.Int("memory-mib", 128, "memory grant in MiB")
	return f
}

// grants are the flags' grants, or what is wrong with a flag.
func (f *grantFlags) grants() (runtime.Grants, error) {
	g := runtime.Grants{Hosts: f.hosts, Config: map[string]string{}, Timeout: *f.timeout, MemoryPages: uint32(*f.memory * 16)}
	for _, d := range f.dirs {
		parts := strings.Split(d, ":")
		if len(parts) < 2 || len(parts) > 3 || (len(parts) == 3 && parts[2] != "rw" && parts[2] != "ro") {
			return g, fmt.Errorf("--dir %q: write HOST:GUEST or HOST:GUEST:rw", d)
		}
		host, _ := filepath.Abs(parts[0])
		g.Dirs = append(g.Dirs, runtime.Dir{Host: host, Guest: parts[1], Write: len(parts) == 3 && parts[2] == "rw"})
	}
	for _, c := range f.cfgs {
		k, v, ok := strings.Cut(c, "=")
		if !ok {
			return g, fmt.Errorf("--config %q: write key=value", c)
		}
		g.Config[k] = v
	}
	return g, nil
}
