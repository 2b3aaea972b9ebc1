package runtime

import (
	"context"
	"fmt"
	"sync"
	"time"
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

	vars        map[string][]byte
	varBytes    int
	httpStatus  int32
	httpHeaders []byte
	logBytes    int
	updates     int
}

type stateKey struct{}

// stateOf is the callState a host function runs for: calls pass it in
// their context.
func stateOf(ctx context.Context) *callState {
	st, _ := ctx.Value(stateKey{}).(*callState)
	if st == nil {
		panic(&fault{"host function called without a wasmagent call context"})
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

// sleep is the instance's WASI nanosleep: real time, cut short when the
// call ends.
func (st *callState) sleep(ns int64) {
	if ns <= 0 {
		return
	}
	t := time.NewTimer(time.Duration(ns))
	defer t.Stop()
	select {
	case <-t.C:
	case <-st.ctx.Done():
	}
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
