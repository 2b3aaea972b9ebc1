package runtime

import (
	"crypto/rand"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tetratelabs/wazero"
	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
	"github.com/tetratelabs/wazero/experimental/sysfs"
)

// Grants is everything a plugin may use. The zero value grants nothing but
// the defaults below: no directory, no host, no configuration value.
type Grants struct {
	// Dirs are the host directories the plugin sees, each at a guest path.
	Dirs []Dir
	// Hosts are the hosts the plugin may reach over HTTP(S): "example.com"
	// (that name only, ports 80 and 443), "*.example.com" (its subdomains,
	// not the name itself), either with ":port" for that port only.
	// Redirects are checked against the same list.
	Hosts []string
	// Credentials are headers the host adds to requests to granted hosts,
	// over https (or http to a loopback address) only; the plugin never
	// sees them.
	Credentials []Credential
	// Protected are host files the plugin may read but never change,
	// remove, rename or replace, nor the directories that lead to them,
	// even inside a writable directory grant: the configuration that
	// grants it and the plugin files it names, say, which a plugin could
	// otherwise rewrite for the next run. Files as they are when the
	// plugin is made; a missing one is skipped.
	Protected []string
	// Config values are read by the plugin with Extism's config_get.
	Config map[string]string
	// MemoryPages caps the plugin's linear memory, and separately the
	// host-side memory of its Extism calls (each block counting BlockCost
	// bytes beside its size, and each directory entry read through an
	// open descriptor DirentCost beside its name), in 64 KiB pages
	// (default 2048, 128 MiB; at most the Runtime's MaxMemoryPages).
	MemoryPages uint32
	// Timeout bounds each call (default 60 s). Instantiation, which the
	// pool usually does ahead of the call, has a bound of its own: this
	// timeout, but at least MinInitTimeout.
	Timeout time.Duration
	// MaxInputBytes and MaxOutputBytes bound what a call is given and what
	// it may return (default 8 MiB each). Going over is an error, never a
	// truncation.
	MaxInputBytes  int
	MaxOutputBytes int
	// MaxHTTPResponseBytes bounds one HTTP response body (default 8 MiB).
	MaxHTTPResponseBytes int64
	// MaxVarBytes bounds the Extism variables of one call (default 1 MiB),
	// each counting VarCost bytes beside its name and value.
	MaxVarBytes int
	// Per-call caps on work done in host functions, so that a call's cost
	// is bounded by more than its fuel checks. Going over ends the call
	// with a [*CapError] naming the field.
	//
	// MaxHostAllocBytes bounds the bytes of host memory a call allocates
	// in all, freed blocks included (Extism alloc and the blocks the host
	// makes for config, var, HTTP values; default 1 GiB).
	MaxHostAllocBytes int64
	// MaxUpdates and MaxUpdateBytes bound the partial results a call sends
	// with emit_update: their number (default 10000) and total size
	// (default 64 MiB). One update is also bounded by MaxOutputBytes.
	MaxUpdates     int
	MaxUpdateBytes int64
	// MaxLogBytes bounds what a call logs, at the levels passed on
	// (default 1 MiB), each line counting LogLineCost bytes beside its
	// text. Each line is also cut to 4 KiB.
	MaxLogBytes int
	// MaxVarWriteBytes bounds the bytes a call writes with var_set in all
	// (default 64 MiB); MaxVarBytes bounds what the variables hold.
	MaxVarWriteBytes int64
	// MaxHTTPRequests bounds the HTTP requests of one call (default 100).
	MaxHTTPRequests int
	// MaxDiskBytes bounds the bytes one call adds to the files of its
	// writable directory grants (default 1 GiB): what files grow by,
	// through writes, writes past the end (the hole included), fd_allocate
	// and truncation upwards, and the targets of the symbolic links it
	// makes. Overwriting, shrinking and removing are free, and free
	// nothing: the count only grows. MaxNewFiles bounds the files,
	// directories and links one call creates there (default 100000). An
	// operation that would go over fails whole, with WASI's EDQUOT ("disk
	// quota exceeded"); the call goes on, and the refusal is logged and
	// added to the call's error if it fails (diskcap.go).
	MaxDiskBytes int64
	MaxNewFiles  int
	// Clock grants the real wall clock. Without it the plugin sees
	// wazero's deterministic one, which starts at 2022-01-01 and moves on
	// by a millisecond at every reading: it cannot learn the date or the
	// time of day. The monotonic clock is real either way (language
	// runtimes need it for sleeps and timers; it tells durations, not
	// dates), and sleeps end with the call.
	Clock bool
	// LogLevel is the lowest level of plugin log messages passed on to the
	// Runtime's logger (default "info"): trace, debug, info, warn, error or
	// off.
	LogLevel string
}

// Dir is a directory grant: the host directory Host appears to the plugin
// at the absolute path Guest, read-only unless Write is set.
type Dir struct {
	Host  string
	Guest string
	Write bool
}

// The defaults of [Grants].
const (
	DefaultMemoryPages          = 2048
	DefaultTimeout              = 60 * time.Second
	DefaultMaxInputBytes        = 8 << 20
	DefaultMaxOutputBytes       = 8 << 20
	DefaultMaxHTTPResponseBytes = 8 << 20
	DefaultMaxVarBytes          = 1 << 20
	DefaultMaxHostAllocBytes    = 1 << 30
	DefaultMaxUpdates           = 10000
	DefaultMaxUpdateBytes       = 64 << 20
	DefaultMaxLogBytes          = 1 << 20
	DefaultMaxVarWriteBytes     = 64 << 20
	DefaultMaxHTTPRequests      = 100
	DefaultMaxDiskBytes         = 1 << 30
	DefaultMaxNewFiles          = 100000
)

// MinInitTimeout is the least time instantiation (the module's own
// initialisers included) is given. A standard-Go plugin starts in
// milliseconds, but on a loaded machine it can take longer than a short
// call timeout, and that is the host's cost, not the plugin's fault.
const MinInitTimeout = 5 * time.Second

// or is v, or def when v is zero.
func or[N int | int64](v, def N) N {
	if v == 0 {
		return def
	}
	return v
}

func (g *Grants) initTimeout() time.Duration { return max(g.Timeout, MinInitTimeout) }

// normalize fills in defaults and checks g against the Runtime's ceiling.
// It returns a copy; the caller's slices and maps are not kept.
func (g Grants) normalize(ceiling uint32) (Grants, error) {
	if g.MemoryPages == 0 {
		g.MemoryPages = min(DefaultMemoryPages, ceiling)
	}
	if g.MemoryPages > ceiling {
		return g, fmt.Errorf("memory of %d pages is over the host's limit of %d", g.MemoryPages, ceiling)
	}
	if g.Timeout == 0 {
		g.Timeout = DefaultTimeout
	}
	if g.Timeout < 0 {
		return g, fmt.Errorf("negative timeout %v", g.Timeout)
	}
	for _, n := range []*int{&g.MaxInputBytes, &g.MaxOutputBytes, &g.MaxVarBytes} {
		if *n < 0 {
			return g, fmt.Errorf("negative size limit %d", *n)
		}
	}
	if g.MaxInputBytes == 0 {
		g.MaxInputBytes = DefaultMaxInputBytes
	}
	if g.MaxOutputBytes == 0 {
		g.MaxOutputBytes = DefaultMaxOutputBytes
	}
	if g.MaxVarBytes == 0 {
		g.MaxVarBytes = DefaultMaxVarBytes
	}
	if g.MaxHostAllocBytes < 0 || g.MaxUpdates < 0 || g.MaxUpdateBytes < 0 || g.MaxLogBytes < 0 || g.MaxVarWriteBytes < 0 || g.MaxHTTPRequests < 0 {
		return g, fmt.Errorf("negative per-call cap (MaxHostAllocBytes %d, MaxUpdates %d, MaxUpdateBytes %d, MaxLogBytes %d, MaxVarWriteBytes %d, MaxHTTPRequests %d)",
			g.MaxHostAllocBytes, g.MaxUpdates, g.MaxUpdateBytes, g.MaxLogBytes, g.MaxVarWriteBytes, g.MaxHTTPRequests)
	}
	g.MaxHostAllocBytes = or(g.MaxHostAllocBytes, DefaultMaxHostAllocBytes)
	g.MaxUpdates = or(g.MaxUpdates, DefaultMaxUpdates)
	g.MaxUpdateBytes = or(g.MaxUpdateBytes, DefaultMaxUpdateBytes)
	g.MaxLogBytes = or(g.MaxLogBytes, DefaultMaxLogBytes)
	g.MaxVarWriteBytes = or(g.MaxVarWriteBytes, DefaultMaxVarWriteBytes)
	g.MaxHTTPRequests = or(g.MaxHTTPRequests, DefaultMaxHTTPRequests)
	if g.MaxDiskBytes < 0 || g.MaxNewFiles < 0 {
		return g, fmt.Errorf("negative disk cap (MaxDiskBytes %d, MaxNewFiles %d)", g.MaxDiskBytes, g.MaxNewFiles)
	}
	g.MaxDiskBytes = or(g.MaxDiskBytes, DefaultMaxDiskBytes)
	g.MaxNewFiles = or(g.MaxNewFiles, DefaultMaxNewFiles)
	if g.MaxHTTPResponseBytes < 0 {
		return g, fmt.Errorf("negative HTTP response limit %d", g.MaxHTTPResponseBytes)
	}
	if g.MaxHTTPResponseBytes == 0 {
		g.MaxHTTPResponseBytes = DefaultMaxHTTPResponseBytes
	}
	if g.LogLevel == "" {
		g.LogLevel = "info"
	}
	if _, ok := logLevels[g.LogLevel]; !ok {
		return g, fmt.Errorf("log level %q is not one of trace, debug, info, warn, error, off", g.LogLevel)
	}
	dirs := make([]Dir, 0, len(g.Dirs))
	seen := map[string]bool{}
	for _, d := range g.Dirs {
		if d.Host == "" || d.Guest == "" {
			return g, fmt.Errorf("directory grant %+v needs both a host and a guest path", d)
		}
		host, err := filepath.Abs(d.Host)
		if err != nil {
			return g, fmt.Errorf("directory %s: %w", d.Host, err)
		}
		if fi, err := os.Stat(host); err != nil {
			return g, fmt.Errorf("directory grant: %w", err)
		} else if !fi.IsDir() {
			return g, fmt.Errorf("directory grant: %s is not a directory", host)
		}
		guest := path.Clean(d.Guest)
		if !path.IsAbs(guest) {
			return g, fmt.Errorf("directory grant %s: guest path %q must be absolute", host, d.Guest)
		}
		if seen[guest] {
			return g, fmt.Errorf("directory grant: guest path %s is granted twice", guest)
		}
		seen[guest] = true
		dirs = append(dirs, Dir{Host: host, Guest: guest, Write: d.Write})
	}
	slices.SortFunc(dirs, func(a, b Dir) int { return strings.Compare(a.Guest, b.Guest) })
	g.Dirs = dirs
	hosts := make([]string, 0, len(g.Hosts))
	for _, h := range g.Hosts {
		p, err := parseHostPattern(h)
		if err != nil {
			return g, err
		}
		hosts = append(hosts, p.String())
	}
	g.Hosts = hosts
	for _, c := range g.Credentials {
		p, err := parseHostPattern(c.Host)
		if err != nil {
			return g, fmt.Errorf("credential: %w", err)
		}
		if c.Header == "" || c.Value == "" {
			return g, fmt.Errorf("credential for %s: needs a header and a value", c.Host)
		}
		if !HostGranted(hosts, p.String()) {
			return g, fmt.Errorf("credential for %s: the host is not granted", c.Host)
		}
	}
	protected := make([]string, 0, len(g.Protected))
	for _, p := range g.Protected {
		abs, err := filepath.Abs(p)
		if err != nil {
			return g, fmt.Errorf("protected file %s: %w", p, err)
		}
		protected = append(protected, abs)
	}
	g.Protected = protected
	cfg := make(map[string]string, len(g.Config))
	for k, v := range g.Config {
		cfg[k] = v
	}
	g.Config = cfg
	return g, nil
}

// moduleConfig is the one place grants become wazero configuration: no
// arguments, no environment, no stdin, stdout discarded, stderr kept in a
// bounded buffer for error reports, real clocks, a cryptographic random
// source, sleeps that end with the call, and exactly the granted
// directories, each served through an os.Root. What can take long (sleeps,
// random bytes, file reads and writes) stops when the call's context ends.
func (g *Grants) moduleConfig(st *callState) wazero.ModuleConfig {
	cfg := wazero.NewModuleConfig().
		WithName("").
		WithStartFunctions().
		WithStdin(eofReader{}).
		WithStdout(io.Discard).
		WithStderr(&st.stderr).
		WithRandSource(random{st, rand.Reader}).
		WithSysNanotime().
		WithNanosleep(st.sleep)
	if g.Clock {
		cfg = cfg.WithSysWalltime()
	}
	if len(st.p.mounts) > 0 {
		fs := wazero.NewFSConfig()
		for i := range st.p.mounts {
			m := &st.p.mounts[i]
			s := stopFS{FS: m.fs, st: st}
			if m.write {
				s.w = m
			}
			fs = fs.(sysfs.FSConfig).WithSysFSMount(s, m.guest)
		}
		cfg = cfg.WithFSConfig(fs)
	}
	return cfg
}

// mount is a directory grant opened as an os.Root (rootfs.go), read-only
// unless granted for writing.
type mount struct {
	fs    experimentalsys.FS
	root  *rootFS
	guest string
	write bool // what is added to it counts against the disk caps
}

// openMounts opens the directory grants. The roots stay open for the
// plugin's life and are shared by its instances.
func openMounts(dirs []Dir, protected []string) ([]mount, error) {
	var ms []mount
	for _, d := range dirs {
		r, err := newRootFS(d.Host)
		if err != nil {
			closeMounts(ms)
			return nil, fmt.Errorf("directory grant %s: %w", d.Host, err)
		}
		var fs experimentalsys.FS = r
		if d.Write {
			r.protected = protectedIn(d.Host, protected)
		} else {
			fs = &readOnlyFS{sysfs.ReadFS{FS: r}}
		}
		ms = append(ms, mount{fs: fs, root: r, guest: d.Guest, write: d.Write})
	}
	return ms, nil
}

func closeMounts(ms []mount) {
	for _, m := range ms {
		m.root.root.Close()
	}
}

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }
