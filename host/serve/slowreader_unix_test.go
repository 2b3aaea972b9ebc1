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

// A client that asks for a large answer (a session's transcript) and
// stops reading is cut off once the answer makes no progress for the
// write timeout, and the handler returns, freeing what it holds. On the
// old main only event streams had a write deadline, and the server none
// (streams last): the handler held the answer and its goroutine until
// the connection died.
func TestStalledReaderOfAnswerIsCut(t *testing.T) {
	returned := make(chan string, 16)
	h := newHarness(t, harnessOpts{
		http: func(s *http.Server) {
			s.ConnState = func(c net.Conn, st http.ConnState) {
				if tc, ok := c.(*net.TCPConn); ok && st == http.StateNew {
					tc.SetWriteBuffer(8 << 10)
				}
			}
		},
		wrap: func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				next.ServeHTTP(w, r)
				returned <- r.URL.Path
			})
		},
	})
	h.server.streamWriteTimeout = 300 * time.Millisecond
	id := h.create("")
	// A prompt of 256 KiB, answered in a word ("slept").
	big := strings.Repeat("z", 256<<10)
	h.must(202, "POST", "/v1/sessions/"+id+"/prompt", "", `{"message":"slow 1 `+big+`"}`)
	ev := h.openEvents(id, "", "")
	ev.until(t, "agent_end")
	ev.close()
	drain := func() {
		for {
			select {
			case <-returned:
			default:
				return
			}
		}
	}
	drain()
	d := &net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		return c.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 8<<10) })
	}}
	addr := strings.TrimPrefix(h.http.URL, "http://")
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	path := "/v1/sessions/" + id + "/messages"
	if _, err := c.Write([]byte("GET " + path + " HTTP/1.1\r\nHost: " + addr + "\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	// Never read. A safety bound, many times the write timeout: the
	// handler returns well within it, or never.
	for deadline := time.After(20 * time.Second); ; {
		select {
		case p := <-returned:
			if p == path {
				if line, _ := bufio.NewReader(c).ReadString('\n'); !strings.Contains(line, " 200 ") {
					t.Fatalf("GET %s: %q, want 200", path, line)
				}
				return
			}
		case <-deadline:
			t.Fatalf("the handler of %s still writes to a client that stopped reading, 20 s on (write timeout 300 ms)", path)
		}
	}
}
