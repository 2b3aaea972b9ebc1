package runtime

import (
	"bytes"
	"context"
	"runtime/debug"
	"sync"
	"testing"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

// growModule's export "grow" grows its memory one page at a time from a
// single page until the grant refuses, then writes to every 4 KiB of it.
func growModule() []byte {
	body := []byte{
		0x02, 0x40, 0x03, 0x40, // block loop
		0x41, 0x01, 0x40, 0x00, 0x41, 0x7f, 0x46, 0x0d, 0x01, // grow 1; == -1: br_if out
		0x0c, 0x00, 0x0b, 0x0b, // br loop; end end
		0x02, 0x40, 0x03, 0x40, // block loop
		0x20, 0x00, 0x3f, 0x00, 0x41, 0x10, 0x74, 0x4f, 0x0d, 0x01, // i >= size<<16: br_if out
		0x20, 0x00, 0x41, 0x01, 0x3a, 0x00, 0x00, // mem[i] = 1
		0x20, 0x00, 0x41, 0x80, 0x20, 0x6a, 0x21, 0x00, // i += 4096
		0x0c, 0x00, 0x0b, 0x0b, // br loop; end end
		0x41, 0x00, // return 0
	}
	return wasmbuild.Module{
		Funcs:       []wasmbuild.Func{{Results: []byte{wasmbuild.I32}, Locals: []byte{wasmbuild.I32}, Body: body}},
		Exports:     map[string]uint32{"grow": 0},
		MemoryPages: 1,
	}.Encode()
}

// Calls at the concurrency cap, each filling its linear memory (grown
// from one page) and its host memory (with its input) to the grant, stay
// within the bound of SECURITY.md row 3: per running call, twice the
// memory grant and 1 MiB, plus its call stack (which these calls hardly
// use). On the old main, memories that started small grew on
// the Go heap by copying, and 8 such calls at a 32 MiB grant peaked at
// 590–700 MiB against 512.
func TestGrowthMemoryBound(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's shadow memory is not what the bound is about")
	}
	if !resetPeakRSS() {
		t.Skip("needs Linux /proc/self/clear_refs")
	}
	const (
		calls = 4
		pages = 512 // 32 MiB
		grant = int64(pages) << 16
		heap  = 1 << 20 // mmapThreshold: a memory's start on the Go heap
		stack = 4 << 20 // per call: its call stack, instance and call state
	)
	r, err := New(context.Background(), Options{CacheDir: "off", MaxConcurrentCalls: calls})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close(context.Background())
	m, err := r.Compile(context.Background(), "grow.wasm", growModule())
	if err != nil {
		t.Fatal(err)
	}
	p, err := r.NewPlugin(m, PluginOptions{Grants: Grants{MemoryPages: pages, MaxInputBytes: int(grant)}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	input := bytes.Repeat([]byte{1}, int(grant)-64<<10) // fills the host memory
	if _, err := p.Call(context.Background(), "grow", input, nil); err != nil {
		t.Fatal(err) // once, to warm up what is shared
	}
	debug.FreeOSMemory()
	resetPeakRSS()
	base, _ := peakRSS()
	var wg sync.WaitGroup
	for range 2 * calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := p.Call(context.Background(), "grow", input, nil); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	peak, _ := peakRSS()
	bound := base + calls*(2*(grant+heap)+stack)
	t.Logf("peak RSS %d MiB over a base of %d MiB: %d MiB per call at the cap; bound %d MiB", peak>>20, base>>20, (peak-base)/calls>>20, bound>>20)
	if peak > bound {
		t.Fatalf("peak RSS %d MiB is over the bound of %d MiB", peak>>20, bound>>20)
	}
}
