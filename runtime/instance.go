package runtime

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/sys"
)

// instance is one instantiation of a plugin's module. It serves one call
// and is closed.
type instance struct {
	p   *Plugin
	mod api.Module
	st  *callState
}

// instantiate makes a fresh instance: from the plugin's image, if it has
// one, or by running the module's initialiser.
func (p *Plugin) instantiate(ctx context.Context) (_ *instance, failed error) {
	ctx, end := p.observe(ctx, "instantiate", "", 0)
	defer func() { end(StepEnd{Err: failed}) }()
	return p.instantiateWith(ctx, p.img, false)
}

// instantiateWith makes a fresh instance, within the plugin's timeout:
// from img, or (img nil) by writing the data segments if the module is a
// template and running the module's initialiser (_initialize for
// reactors, __wasm_call_ctors, hs_init). imaging marks the initialisation
// of an image: what it does that an image cannot replay is recorded.
func (p *Plugin) instantiateWith(ctx context.Context, img *image, imaging bool) (*instance, error) {
	timeout := p.grants.initTimeout()
	ctx, cancel := withTimeout(ctx, timeout)
	defer cancel()
	limit := uint64(p.grants.MemoryPages) << 16
	st := &callState{kernel: newKernel(limit, uint64(p.grants.MaxHostAllocBytes)), p: p, ctx: ctx, imaging: imaging}
	mc := &memoryCap{limit: limit}
	if img != nil {
		mc.hint = uint64(img.pages) << 16
		if p.copyImage {
			if !p.noSpares {
				mc.reuse = img
			}
		} else {
			mc.cow = img.cow
		}
	}
	wctx := experimental.WithMemoryAllocator(context.WithValue(ctx, stateKey{}, st), mc)
	var mod api.Module
	err := p.r.recovered("instantiate", func() (err error) {
		mod, err = p.r.rt.InstantiateModule(wctx, p.m.compiled, p.grants.moduleConfig(st))
		return err
	})
	if mc.over > 0 {
		// wazero panicked (recovered above) at a memory whose initial
		// size is over the grant: the module's fault, not the host's.
		if mod != nil {
			mod.Close(context.Background())
		}
		st.release()
		return nil, &CallError{Plugin: p.name, Export: "instantiate", Err: &CapError{Cap: "MemoryPages", Limit: int64(p.grants.MemoryPages),
			Detail: fmt.Sprintf("the module declares a memory of %d pages at start", mc.over>>16)}}
	}
	if err != nil {
		st.release()
		return nil, p.callError("instantiate", ctx, timeout, st, err)
	}
	inst := &instance{p: p, mod: mod, st: st}
	if err := p.r.recovered("instantiate", func() error {
		if img != nil {
			return img.restore(mod, p.m.tmpl, mc.mapped)
		}
		if p.m.tmpl != nil {
			if err := writeSegments(mod, p.m.tmpl); err != nil {
				return err
			}
		}
		return inst.initialize(wctx)
	}); err != nil {
		inst.close()
		return nil, p.callError("instantiate", ctx, timeout, st, err)
	}
	if err := stopped(ctx, timeout); err != nil {
		inst.close()
		return nil, &CallError{Plugin: p.name, Export: "instantiate", Err: err}
	}
	return inst, nil
}

// initialize runs the module's initialisers. Their signatures were
// checked at load (hostExports).
func (inst *instance) initialize(ctx context.Context) error {
	call := func(name string, params ...uint64) (bool, error) {
		f := inst.mod.ExportedFunction(name)
		if f == nil {
			return false, nil
		}
		_, err := f.Call(ctx, params...)
		return true, err
	}
	ran, err := call("_initialize")
	if err != nil {
		return err
	}
	if !ran {
		if ran, err = call("__wasm_call_ctors"); err != nil {
			return err
		}
	}
	if !ran {
		// A WASI command: run its _start as Extism does; one that exits
		// (a Go program built without -buildmode=c-shared) is not a plugin.
		if _, err := call("_start"); err != nil {
			var exit *sys.ExitError
			// (An exit because the call's context ended is explained by
			// callError, which looks at the context first.)
			if errors.As(err, &exit) {
				return because(fmt.Sprintf("its _start exited with code %d: a plugin must be a library (a WASI reactor); build Go plugins with -buildmode=c-shared", exit.ExitCode()), ErrTrap)
			}
			return err
		}
	}
	_, err = call("hs_init", 0, 0)
	return err
}

// close closes the instance and returns its host memory. It never panics.
func (inst *instance) close() {
	_ = inst.p.r.recovered("close", func() error {
		inst.mod.Close(context.Background())
		inst.st.release()
		return nil
	})
}

// call runs one export with input.
func (inst *instance) call(ctx context.Context, export string, input []byte, onUpdate func([]byte) error, parts *[]string) ([]byte, error) {
	p, st := inst.p, inst.st
	timeout := p.grants.Timeout
	ctx, cancel := withTimeout(ctx, timeout)
	defer cancel()
	st.ctx, st.onUpdate = ctx, onUpdate
	if err := inst.input(ctx, export, timeout, input); err != nil {
		return nil, err
	}
	fn := inst.mod.ExportedFunction(export)
	var res []uint64
	err := p.r.recovered(export, func() (err error) {
		res, err = fn.Call(context.WithValue(ctx, stateKey{}, st))
		return err
	})
	if err != nil {
		return nil, p.callError(export, ctx, timeout, st, err)
	}
	if err := stopped(ctx, timeout); err != nil {
		// It returned, but after its context ended (a host function or a
		// sleep cut short may have let it finish early): not a success.
		return nil, &CallError{Plugin: p.name, Export: export, Err: err}
	}
	if int32(res[0]) != 0 {
		msg := ""
		if b, f := st.block(st.errorOff, "error"); f == nil {
			msg = string(b)
		}
		if msg == "" {
			msg = fmt.Sprintf("returned %d without an error message", int32(res[0]))
		}
		return nil, &CallError{Plugin: p.name, Export: export, Err: ErrPlugin, Message: truncate(msg, MaxMessageBytes)}
	}
	return inst.output(ctx, export, timeout, parts)
}

// callError explains a failed wazero call: a host failure first, then
// the context (a closed module is what a deadline or an abort looks like
// from inside), then a host-side fault (a cap, a broken ABI), then the
// guest's exit or trap.
func (p *Plugin) callError(export string, ctx context.Context, timeout time.Duration, st *callState, err error) *CallError {
	e := &CallError{Plugin: p.name, Export: export}
	var exit *sys.ExitError
	switch stop := stopped(ctx, timeout); {
	case errors.Is(err, ErrHost):
		e.Err = err
	case stop != nil:
		e.Err = stop
	case st.fault != nil:
		e.Err = st.fault.err
	case errors.As(err, &exit):
		e.Err = because(fmt.Sprintf("the plugin exited with code %d", exit.ExitCode()), ErrTrap)
		e.Message = truncate(strings.TrimSpace(st.stderr.String()), MaxMessageBytes)
	case errors.Is(err, ErrTrap):
		e.Err = err
		e.Message = truncate(strings.TrimSpace(st.stderr.String()), MaxMessageBytes)
	default:
		// A trap: wazero's first line names it; its Wasm stack trace
		// follows and is of no use to a model.
		first, _, _ := strings.Cut(err.Error(), "\n")
		target := ErrTrap
		if strings.HasSuffix(first, "stack overflow") {
			target = ErrCallDepth
		}
		e.Err = because(first, target)
		e.Message = truncate(strings.TrimSpace(st.stderr.String()), MaxMessageBytes)
	}
	return e
}
