package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"sync"
	"time"

	"github.com/wasmagent/wasmagent/internal/words"
)

// slowLoad is how long loading plugins may take before the command says
// what it is waiting for (a warm start takes well under it).
var slowLoad = 3 * time.Second

// compileBytesPerSecond is about how much of a plugin one core compiles
// to machine code (with the load-time rewrite) in a second, for the
// estimate said when a load is slow: measured, 0.65 CPU seconds a MB
// for the demo's three Go plugins on the development VM; rounded down
// for a machine that is doing other work too.
const compileBytesPerSecond = 1_000_000

// whileLoading runs load, which may compile plugins: from milliseconds
// with a warm compilation cache to tens of seconds on a cold one. Every
// command that loads plugins loads them through it, so that:
//
//   - an interrupt (Ctrl-C, SIGTERM) ends the wait at once: it says
//     "(interrupted while loading)" and returns true, and the command
//     exits 130. What load makes after that is released (release) once
//     made, and what it writes on stderr is dropped;
//   - a load still running after slowLoad says once on stderr what it
//     waits for (notice, if not nil: loadNotice).
//
// load gets env with a stderr that is dropped after an interrupt, and
// sets the caller's results; the caller reads them only when whileLoading
// returned false.
func whileLoading(env Env, notice func() string, load func(Env), release func()) (interrupted bool) {
	stderr := &gateWriter{w: env.Stderr}
	loadEnv := env
	loadEnv.Stderr = stderr
	ready := make(chan struct{})
	go func() {
		defer close(ready)
		load(loadEnv)
	}()
	slow := time.NewTimer(slowLoad)
	defer slow.Stop()
	for {
		select {
		case <-ready:
			return false
		case <-slow.C:
			if notice != nil {
				io.WriteString(stderr, notice())
			}
		case <-env.Interrupt:
			stderr.close()
			go func() {
				<-ready
				if release != nil {
					release()
				}
			}()
			fmt.Fprintln(env.Stderr, "(interrupted while loading)")
			return true
		}
	}
}

// loadNotice says which plugin files a slow load loads, and about how
// long compiling them takes here: the first start compiles each to
// machine code, later ones read it from the compilation cache (cacheOff:
// there is none, and every start compiles).
func loadNotice(files []string, cacheOff bool) func() string {
	if len(files) == 0 {
		return nil
	}
	return func() string { return slowLoadNotice(files, cacheOff) }
}

func slowLoadNotice(files []string, cacheOff bool) string {
	var size int64
	names := make([]string, 0, len(files))
	seen := map[string]bool{}
	for _, f := range files {
		if seen[f] {
			continue
		}
		seen[f] = true
		names = append(names, filepath.Base(f))
		if fi, err := os.Stat(f); err == nil && fi.Mode().IsRegular() {
			size += fi.Size()
		}
	}
	var detail []string
	if len(names) <= 4 {
		detail = append(detail, strings.Join(names, ", "))
	}
	if size > 0 {
		detail = append(detail, fmt.Sprintf("%.1f MiB of WebAssembly", float64(size)/(1<<20)))
	}
	what := words.Count(len(names), "plugin")
	if len(detail) > 0 {
		what += " (" + strings.Join(detail, "; ") + ")"
	}
	them := "them"
	if len(names) == 1 {
		them = "it"
	}
	took := ""
	if size > 0 {
		cores := goruntime.GOMAXPROCS(0)
		took = fmt.Sprintf(", about %ds on %s", max(size/int64(compileBytesPerSecond*cores), 1), words.Count(cores, "core"))
	}
	if cacheOff {
		return fmt.Sprintf("loading %s: compiling %s to machine code%s, at every start (no compilation cache)\n", printable(what), them, took)
	}
	return fmt.Sprintf("loading %s: the first start compiles %s to machine code%s; later starts read the compilation cache\n", printable(what), them, took)
}

// gateWriter writes to w until closed, then drops what it is given.
type gateWriter struct {
	mu     sync.Mutex
	w      io.Writer
	closed bool
}

func (g *gateWriter) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return len(p), nil
	}
	return g.w.Write(p)
}

func (g *gateWriter) close() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
}
