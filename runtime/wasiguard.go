package runtime

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

// MaxPathBytes bounds a path a plugin passes to a WASI function (Linux's
// PATH_MAX): a longer one fails with ENAMETOOLONG before wazero reads
// it. wazero copies a path and cleans it, and os.Root splits it into its
// components, a string header each: a path of 64 MiB, "a/a/a…", made
// the host allocate about 1 GiB for one call (RATIONALE.md, "Why are
// paths and open files capped at the WASI boundary?").
const MaxPathBytes = 4096

// MaxOpenFiles bounds the files and directories one instance holds open
// at once, its granted directories included: each is a descriptor of the
// host process, and a plugin opening files in a loop could otherwise
// take all of them (the process's limit is often 1,024 to 20,000), and
// the host could then open nothing, a connection included. One more
// fails with EMFILE ("too many open files").
const MaxOpenFiles = 1024

// The WASI errnos (wasi_snapshot_preview1's numbering) the host sets
// itself: wazero's file layer knows none but EIO of these.
const (
	wasiEDQUOT       = 19
	wasiEIO          = 29
	wasiEMFILE       = 33
	wasiENAMETOOLONG = 37
)

// wasiGuard wraps a WASI function of wazero's: it refuses a path longer
// than MaxPathBytes, and turns the EIO of an operation the host refused
// into the errno the host chose (callState.wasiErrno): EDQUOT for the
// disk caps (diskcap.go), EMFILE for MaxOpenFiles.
type wasiGuard struct {
	fn       api.GoModuleFunction
	pathLens []int // the indexes of the path length parameters
	errnos   bool  // the host may choose its errno
	readdir  bool  // fd_readdir: whether it reads from cookie 0 is noted (dirents.go)
}

func (g wasiGuard) Call(ctx context.Context, mod api.Module, stack []uint64) {
	for _, i := range g.pathLens {
		if uint32(stack[i]) > MaxPathBytes {
			stack[0] = wasiENAMETOOLONG
			return
		}
	}
	st, _ := ctx.Value(stateKey{}).(*callState)
	if g.readdir && st != nil {
		st.readdirFromStart = stack[3] == 0
		defer func() { st.readdirFromStart = false }()
	}
	if !g.errnos || st == nil {
		g.fn.Call(ctx, mod, stack)
		return
	}
	st.wasiErrno = 0
	g.fn.Call(ctx, mod, stack)
	if st.wasiErrno != 0 && stack[0] == wasiEIO {
		stack[0] = uint64(st.wasiErrno)
	}
}

// wasiRefusing are the WASI functions whose file operations the host may
// refuse: those that add to a file or create one.
var wasiRefusing = []string{"fd_write", "fd_pwrite", "fd_allocate", "fd_filestat_set_size", "path_open",
	"path_create_directory", "path_symlink", "path_link"}

// instantiateWASI adds wazero's WASI to rt, each function that takes a
// path or may be refused wrapped by wasiGuard.
func instantiateWASI(ctx context.Context, rt wazero.Runtime) error {
	// wazero's own functions, to wrap: from a compiled copy of the module.
	orig := rt.NewHostModuleBuilder(wasi_snapshot_preview1.ModuleName)
	wasi_snapshot_preview1.NewFunctionExporter().ExportFunctions(orig)
	compiled, err := orig.Compile(ctx)
	if err != nil {
		return err
	}
	defer compiled.Close(ctx)
	b := rt.NewHostModuleBuilder(wasi_snapshot_preview1.ModuleName)
	wasi_snapshot_preview1.NewFunctionExporter().ExportFunctions(b)
	for name, def := range compiled.ExportedFunctions() {
		g := wasiGuard{errnos: slices.Contains(wasiRefusing, name), readdir: name == "fd_readdir"}
		for i, p := range def.ParamNames() {
			if strings.HasSuffix(p, "path_len") && !strings.HasPrefix(p, "result.") {
				g.pathLens = append(g.pathLens, i)
			}
		}
		if !g.errnos && !g.readdir && g.pathLens == nil {
			continue
		}
		fn, ok := def.GoFunction().(api.GoModuleFunction)
		if !ok {
			return fmt.Errorf("wazero's WASI function %s is not a Go function", name)
		}
		g.fn = fn
		b.NewFunctionBuilder().
			WithGoModuleFunction(g, def.ParamTypes(), def.ResultTypes()).
			WithName(def.Name()).
			WithParameterNames(def.ParamNames()...).
			WithResultNames(def.ResultNames()...).
			Export(name)
	}
	_, err = b.Instantiate(ctx)
	return err
}

// opened counts a file the instance opened, or refuses it past
// MaxOpenFiles (the first refusal of the call is logged).
func (st *callState) opened() experimentalsys.Errno {
	if st.openFiles >= MaxOpenFiles {
		st.wasiErrno = wasiEMFILE
		if !st.openRefused {
			st.openRefused = true
			st.p.r.log.Warn("runtime: a file was not opened: the instance holds runtime.MaxOpenFiles open already", "plugin", st.p.name, "open", st.openFiles)
		}
		return experimentalsys.EIO // made EMFILE by wasiGuard
	}
	st.openFiles++
	return 0
}

// Close gives the descriptor back once: wazero keeps a file whose close
// failed in its table, and the guest may close it again.
func (f stopFile) Close() experimentalsys.Errno {
	if *f.counted {
		*f.counted = false
		f.st.openFiles--
	}
	f.st.releaseDirents(f.dirents)
	return f.File.Close()
}
