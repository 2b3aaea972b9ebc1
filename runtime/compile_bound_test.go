package runtime_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

// Code shapes whose compilation by wazero takes minutes (its time grows
// with the square of a function's blocks, loops and ifs, or faster) are
// refused at load, in milliseconds, with a message that says why: on the
// old main, 10,000 nested loops in 30 KB held a CPU for 2 minutes and
// 40,000 sequential ifs for 3. Shapes just under the bounds load.
func TestCompileTimeIsBounded(t *testing.T) {
	ifs := func(n int) []byte { return ops(bytes.Repeat(ops(i32c(1), []byte{0x04, 0x40, 0x01, 0x0b}), n), i32c(0)) }
	nested := func(op byte, n int) []byte {
		return ops(bytes.Repeat([]byte{op, 0x40}, n), bytes.Repeat([]byte{0x0b}, n), i32c(0))
	}
	funcs := func(k int, body []byte) []byte {
		m := map[string]wasmbuild.Func{}
		for i := range k {
			m[string(rune('a'+i))] = wasmbuild.Func{Results: []byte{wasmbuild.I32}, Body: body}
		}
		return module(m, 1)
	}
	for _, c := range []struct {
		name string
		wasm []byte
		want string // "" for: loads
	}{
		{"40,000 sequential ifs", module(execute0(ifs(40_000)), 1), "more than 10000 blocks, loops and ifs"},
		{"10,001 nested loops", module(execute0(nested(0x03, 10_001)), 1), "more than 10000 blocks, loops and ifs"},
		{"1,000,000 nested blocks", module(execute0(nested(0x02, 1_000_000)), 1), "more than 10000 blocks, loops and ifs"},
		{"4 functions of 9,000 ifs", funcs(4, ifs(9000)), "too many blocks, loops and ifs"},
		{"3 functions of 2,000 ifs", funcs(3, ifs(2000)), ""},
	} {
		start := time.Now()
		_, err := rt(t).Compile(context.Background(), c.name+".wasm", c.wasm)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
		t.Logf("%s: %v (%v)", c.name, err, time.Since(start))
	}
}
