package runtime

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/tetratelabs/wazero/sys"
)

// callState is everything one instance has besides its Wasm state: its
// host memory, the context of the call it serves, what it logged to
// stderr, its variables and its last HTTP response. An instance serves one
// call, so a callState never carries anything from one call to another.
type callState struct {
	kernel
	p        *Plugin
	ctx      context.Context // the current call's; sleeps and HTTP end with it
	fault    *fault          // the first host-side fault, the cause of a trap
	stderr   headBuffer
	onUpdate func([]byte) error

	imaging      bool   // the instance's initialisation is being imaged
	unreplayable string // what that initialisation did that an image cannot replay

	vars        map[string][]byte
	varBytes    int
	httpStatus  int32
	httpHeaders []byte

	// What the call did in host functions, against the caps of its grants.
	logBytes      int
	updates       int
	updateBytes   int64
	varWriteBytes int64
	httpRequests  int
	disk          diskUse // what it added to its writable grants (diskcap.go)
	openFiles     int     // files and directories it holds open (MaxOpenFiles)
	openRefused   bool    // an open was refused for MaxOpenFiles
	wasiErrno     uint16  // the errno for the EIO of a refused file operation (wasiGuard)
	hostCalls     int     // Extism and wasmagent host functions called (for tests)
	observed      Observed

	// readdirFromStart is set during an fd_readdir from cookie 0, which
	// rewinds its directory (dirents.go).
	readdirFromStart bool
}

type stateKey struct{}

// stateOf is the callState a host function runs for: calls pass it in
// their context.
func stateOf(ctx context.Context) *callState {
	st, _ := ctx.Value(stateKey{}).(*callState)
	if st == nil {
		panic(&fault{because("host function called without a wasmagent call context", ErrHost)})
	}
	return st
}

// check raises f, if any, as the call's fault.
func (st *callState) check(f *fault) {
	if f == nil {
		return
	}
	if st.fault == nil {
		st.fault = f
	}
	panic(f)
}

// sawFiles records that the instance read something in a granted
// directory (Observed.Files): the initialisation of an image that does
// so cannot be replayed.
func (st *callState) sawFiles(what string) {
	st.observed.Files = true
	st.cannotReplay(what)
}

// cannotReplay records, during the initialisation of an image, something
// an image cannot replay in later instances.
func (st *callState) cannotReplay(what string) {
	if st.imaging && st.unreplayable == "" {
		st.unreplayable = what
	}
}

// enter is the start of every host function: a call whose context has
// ended stops here, so a guest calling host functions in a tight loop
// stops at its deadline, whatever the fuel count says. The guest sees an
// exit, as from wasmagent.tick; the call's error comes from its context.
func (st *callState) enter() {
	if err := st.ctx.Err(); err != nil {
		code := sys.ExitCodeContextCanceled
		if errors.Is(err, context.DeadlineExceeded) {
			code = sys.ExitCodeDeadlineExceeded
		}
		panic(sys.NewExitError(code))
	}
}

// sleep is the instance's WASI nanosleep: real time, cut short when the
// call ends, and then the call stops (the guest never sees a sleep that
// ended early as one that completed).
func (st *callState) sleep(ns int64) {
	if ns > 0 {
		t := time.NewTimer(time.Duration(ns))
		defer t.Stop()
		select {
		case <-t.C:
		case <-st.ctx.Done():
		}
	}
	st.enter()
}

// random is the instance's WASI random source: crypto/rand, read in
// chunks, stopping when the call ends (one random_get may ask for as much
// as the whole memory grant).
type random struct {
	st  *callState
	src io.Reader
}

func (r random) Read(p []byte) (int, error) {
	const chunk = 1 << 20
	n := 0
	for n < len(p) {
		r.st.enter()
		m, err := r.src.Read(p[n:min(len(p), n+chunk)])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// headBuffer keeps the first headBytes bytes written to it: a plugin's
// stderr, whose start (a Go panic's message, say) is shown in the error
// when the plugin crashes.
type headBuffer struct {
	mu      sync.Mutex
	buf     []byte
	dropped int
}

const headBytes = 4096

func (b *headBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := min(len(p), headBytes-len(b.buf))
	b.buf = append(b.buf, p[:n]...)
	b.dropped += len(p) - n
	return len(p), nil
}

func (b *headBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dropped > 0 {
		return string(b.buf) + fmt.Sprintf("… (%d more bytes)", b.dropped)
	}
	return string(b.buf)
}
