//go:build unix

package serve

import (
	"bufio"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A client that reads slowly, but reads, gets an event larger than it can
// read within the write timeout: the timeout bounds a stream's time
// without progress, not an event's (on the old main such a client was
// dropped at that event, and again at each resumption).
func TestSlowReaderGetsLargeEvent(t *testing.T) {
	h := newHarness(t, harnessOpts{http: func(s *http.Server) {
		s.ConnState = func(c net.Conn, st http.ConnState) {
			if tc, ok := c.(*net.TCPConn); ok && st == http.StateNew {
				tc.SetWriteBuffer(8 << 10)
			}
		}
	}})
	h.server.streamWriteTimeout = 2 * time.Second
	id := h.create("")
	// Small buffers on both sides, set before the connection is made
	// (shrinking a receive buffer later makes the kernel drop segments).
	d := &net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		return c.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 8<<10) })
	}}
	client := &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
	req, _ := http.NewRequest("GET", h.http.URL+"/v1/sessions/"+id+"/events", nil)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	// The model waits (the run is aborted at the end); the prompt's
	// message_start carries it whole.
	big := strings.Repeat("z", 500<<10)
	h.must(202, "POST", "/v1/sessions/"+id+"/prompt", "", `{"message":"slow 60000 `+big+`"}`)
	// 8 KiB every 40 ms at most: 200 KB/s, so the 500 KiB event takes
	// longer than the timeout (2.56 s at least), each 32 KiB chunk a
	// twelfth of it, with room for a loaded machine to hold the reader
	// for a while.
	slow := &sseReader{resp: resp, r: bufio.NewReaderSize(readerFunc(func(p []byte) (int, error) {
		time.Sleep(40 * time.Millisecond)
		return resp.Body.Read(p[:min(len(p), 8<<10)])
	}), 64<<10)}
	got := 0
	for {
		ev, err := slow.next()
		if err != nil {
			t.Fatalf("the stream ended after %d events: %v", got, err)
		}
		got++
		if strings.Contains(ev.Data, big) {
			return // the prompt's message_start
		}
	}
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }
