package runtime

import (
	"fmt"
	goruntime "runtime"
)

// recovered runs f and turns a panic in it into an error matching
// [ErrHost]: no module, however broken, makes the host panic. The panic
// and its stack are logged, since they point at a bug in wasmagent or
// wazero. what names the step for the log.
func (r *Runtime) recovered(what string, f func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			buf := make([]byte, 16<<10)
			buf = buf[:goruntime.Stack(buf, false)]
			r.log.Error("runtime: recovered from a panic", "step", what, "panic", fmt.Sprint(v), "stack", string(buf))
			err = because(fmt.Sprintf("%s: the host failed (recovered from a panic: %v)", what, v), ErrHost)
		}
	}()
	return f()
}

// goSafely runs f on a new goroutine that recovers from a panic, logging
// it: a goroutine of the runtime never takes the process down.
func (r *Runtime) goSafely(what string, f func()) {
	go func() {
		_ = r.recovered(what, func() error { f(); return nil })
	}()
}
