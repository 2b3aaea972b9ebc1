//go:build unix

package writedeadline_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/internal/writedeadline"
)

// server serves, over a real TCP connection with a small send buffer,
// a handler that writes msg through writedeadline with timeout (in one
// Write, or in Pieces each flushed, as an event stream writes) and
// sends what the last write or flush returned on done.
func server(t *testing.T, msg []byte, timeout time.Duration, flushEach bool) (addr string, done <-chan error) {
	t.Helper()
	ch := make(chan error, 1)
	s := httptest.NewUnstartedServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w := writedeadline.New(rw, timeout)
		w.Header().Set("Content-Length", fmt.Sprint(len(msg)))
		var err error
		if flushEach {
			for b := msg; len(b) > 0 && err == nil; b = b[min(len(b), 1000):] {
				if _, err = w.Write(b[:min(len(b), 1000)]); err == nil {
					err = w.FlushError()
				}
			}
		} else if _, err = w.Write(msg); err == nil {
			err = w.FlushError()
		}
		ch <- err
	}))
	s.Config.ConnState = func(c net.Conn, st http.ConnState) {
		if tc, ok := c.(*net.TCPConn); ok && st == http.StateNew {
			tc.SetWriteBuffer(8 << 10)
		}
	}
	s.Start()
	t.Cleanup(s.Close)
	return s.Listener.Addr().String(), ch
}

// dial connects with a small receive buffer, set before the connection
// is made (shrinking it later makes the kernel drop segments), and sends
// a GET.
func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	d := &net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		return c.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 8<<10) })
	}}
	conn, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "GET / HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
	return conn
}

// A client that reads slowly, but reads, gets a message that takes it
// several times the deadline to read: each piece has its own (with one
// deadline for the whole message it would be cut off at the first).
func TestSlowReaderGetsWholeMessage(t *testing.T) {
	for _, flushEach := range []bool{false, true} {
		t.Run(fmt.Sprintf("flush each %v", flushEach), func(t *testing.T) {
			t.Parallel()
			// 8 KiB every 40 ms at most: 200 KB/s, so the 512 KiB take
			// longer than the deadline (2.56 s at least), each piece a
			// twelfth of it, with room for a loaded machine to hold the
			// reader for a while.
			msg := bytes.Repeat([]byte("0123456789abcdef"), 512<<10/16)
			addr, done := server(t, msg, 2*time.Second, flushEach)
			conn := dial(t, addr)
			res, err := http.ReadResponse(bufio.NewReaderSize(conn, 8<<10), nil)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			buf := make([]byte, 8<<10)
			for {
				time.Sleep(40 * time.Millisecond)
				n, err := res.Body.Read(buf)
				got.Write(buf[:n])
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("cut off after %d of %d bytes: %v", got.Len(), len(msg), err)
				}
			}
			if !bytes.Equal(got.Bytes(), msg) {
				t.Fatalf("got %d bytes, want the %d written", got.Len(), len(msg))
			}
			if err := <-done; err != nil {
				t.Fatalf("the handler's write failed: %v", err)
			}
		})
	}
}

// A client that stops reading is cut off: the handler's write fails with
// a timeout soon after the deadline, instead of blocking for as long as
// the client holds the connection.
func TestStoppedReaderIsCutOff(t *testing.T) {
	for _, flushEach := range []bool{false, true} {
		t.Run(fmt.Sprintf("flush each %v", flushEach), func(t *testing.T) {
			// Far more than the two sockets' buffers hold.
			msg := bytes.Repeat([]byte("x"), 4<<20)
			addr, done := server(t, msg, 200*time.Millisecond, flushEach)
			dial(t, addr) // and never read
			select {
			case err := <-done:
				if !errors.Is(err, os.ErrDeadlineExceeded) {
					t.Fatalf("the write to a client that stopped reading returned %v, want a timeout", err)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("the write to a client that stopped reading still blocks after 100 times its deadline")
			}
		})
	}
}
