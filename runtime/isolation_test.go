package runtime_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/wasmagent/wasmagent/runtime"
)

type seen struct {
	Counter int    `json:"counter"`
	Residue string `json:"residue"`
	Var     string `json:"var"`
}

func callState(t *testing.T, p *runtime.Plugin, mark string) seen {
	t.Helper()
	r, err := execute(context.Background(), p, "state", map[string]any{"mark": mark}, nil)
	if err != nil {
		t.Error(err)
		return seen{}
	}
	var s seen
	if err := json.Unmarshal([]byte(text(r)), &s); err != nil {
		t.Errorf("state result %q: %v", text(r), err)
	}
	return s
}

// Each call runs in a fresh instance: no global, no memory and no Extism
// variable survives from one call to the next, with or without a pool.
func TestSecondCallNeverSeesFirst(t *testing.T) {
	for _, pool := range []int{0, 1, 4} {
		t.Run(fmt.Sprintf("pool=%d", pool), func(t *testing.T) {
			p := probe(t, runtime.Grants{}, pool)
			for i := range 5 {
				if s := callState(t, p, fmt.Sprintf("call-%d", i)); s != (seen{}) {
					t.Fatalf("call %d saw state left by an earlier call: %+v", i, s)
				}
			}
		})
	}
}

// 16 concurrent calls run on 16 distinct instances: none sees another's
// input, globals, memory or variables.
func TestParallelCallsAreIsolated(t *testing.T) {
	p := probe(t, runtime.Grants{}, 4)
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			if s := callState(t, p, fmt.Sprintf("mark-%02d", i)); s != (seen{}) {
				t.Errorf("call %d saw another call's state: %+v", i, s)
			}
		}()
		go func() {
			defer wg.Done()
			want := fmt.Sprintf("input of call %d", i)
			r, err := execute(context.Background(), p, "echo", map[string]any{"text": want}, nil)
			if err != nil {
				t.Error(err)
				return
			}
			if text(r) != want {
				t.Errorf("call %d got %q", i, text(r))
			}
		}()
	}
	wg.Wait()
}

// A call that fails leaves nothing behind either.
func TestFailedCallLeavesNothing(t *testing.T) {
	p := probe(t, runtime.Grants{}, 1)
	if _, err := execute(context.Background(), p, "panic", struct{}{}, nil); err == nil {
		t.Fatal("panic tool did not fail")
	}
	if s := callState(t, p, "after"); s != (seen{}) {
		t.Fatalf("state after a failed call: %+v", s)
	}
}
