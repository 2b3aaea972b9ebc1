package hosttest_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/wasmagent/wasmagent/host/hosttest"
)

func TestEnvInt(t *testing.T) {
	const name = "WASMAGENT_HOSTTEST_ENVINT"
	for _, c := range []struct {
		set  string
		want int
	}{{"", 7}, {"0", 0}, {"42", 42}} {
		t.Setenv(name, c.set)
		if got := hosttest.EnvInt(t, name, 7); got != c.want {
			t.Errorf("%s=%q: got %d, want %d", name, c.set, got, c.want)
		}
	}
	for _, bad := range []string{"-1", "x", "1.5", " 3"} {
		t.Setenv(name, bad)
		ft := &fatalT{TB: t}
		func() {
			defer func() { recover() }()
			hosttest.EnvInt(ft, name, 7)
		}()
		if ft.msg == "" {
			t.Errorf("%s=%q: accepted", name, bad)
		}
	}
}

// fatalT records a Fatalf instead of ending the test.
type fatalT struct {
	testing.TB
	msg string
}

func (f *fatalT) Helper() {}
func (f *fatalT) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	panic(f.msg)
}

func TestBufferConcurrent(t *testing.T) {
	var b hosttest.Buffer
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				b.Write([]byte("ab"))
				_ = b.String()
			}
		}()
	}
	wg.Wait()
	if got := len(b.String()); got != 8*100*2 {
		t.Fatalf("%d bytes written, want %d", got, 1600)
	}
}
