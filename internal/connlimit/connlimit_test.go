package connlimit

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// serveLimited serves a handler answering "ok" on a loopback port behind
// Listen(l), and returns the address and the listener.
func serveLimited(t *testing.T, l Limits) (string, *listener) {
	t.Helper()
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := Listen(raw, l, "the test server").(*listener)
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok") })}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	return raw.Addr().String(), ln
}

// client is one connection of the test, kept alive between requests.
type client struct {
	c net.Conn
	r *bufio.Reader
}

// open connects from 127.0.0.from and sends a request: it reports
// whether the server answered it (true) or refused the connection with
// a 503 (false, with the refusal's text).
func open(t *testing.T, addr string, from int) (*client, bool, string) {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(from))}}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Skipf("cannot connect from 127.0.0.%d: %v", from, err)
	}
	cl := &client{c: c, r: bufio.NewReader(c)}
	c.SetDeadline(time.Now().Add(30 * time.Second)) // a safety bound, not a measure
	fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	resp, err := http.ReadResponse(cl.r, nil)
	if err != nil {
		t.Fatalf("from 127.0.0.%d: %v", from, err)
	}
	body := make([]byte, 4096)
	n, _ := resp.Body.Read(body)
	resp.Body.Close()
	switch resp.StatusCode {
	case 200:
		return cl, true, ""
	case 503:
		c.Close()
		return nil, false, string(body[:n])
	}
	t.Fatalf("from 127.0.0.%d: status %d", from, resp.StatusCode)
	return nil, false, ""
}

// settle waits until the listener counts total connections (the server
// closes its side of a connection when it reads the client's close).
func settle(t *testing.T, ln *listener, total int) {
	t.Helper()
	for i := 0; ; i++ {
		ln.mu.Lock()
		got := ln.total
		ln.mu.Unlock()
		if got == total {
			return
		}
		if i > 10000 {
			t.Fatalf("the listener counts %d connections, want %d", got, total)
		}
		time.Sleep(time.Millisecond)
	}
}

// Connections past either bound are refused with a 503 naming it, and
// one closed gives its place back. Without the bound the server held as
// many as the client opened (each with a goroutine, buffers and a
// descriptor, kept by idle keep-alives for 2 minutes).
func TestBoundsAreKept(t *testing.T) {
	addr, ln := serveLimited(t, Limits{Total: 5, PerAddr: 3})
	var kept []*client
	for range 3 {
		c, ok, why := open(t, addr, 1)
		if !ok {
			t.Fatalf("a connection within the bounds refused: %s", why)
		}
		kept = append(kept, c)
	}
	if _, ok, why := open(t, addr, 1); ok || !strings.Contains(why, "3 connections from 127.0.0.1") {
		t.Fatalf("a 4th connection from one address: admitted %v, %q; want a refusal naming the bound", ok, why)
	}
	for range 2 {
		c, ok, why := open(t, addr, 2)
		if !ok {
			t.Fatalf("a connection within the bounds refused: %s", why)
		}
		kept = append(kept, c)
	}
	if _, ok, why := open(t, addr, 3); ok || !strings.Contains(why, "5 connections, its most") {
		t.Fatalf("a 6th connection: admitted %v, %q; want a refusal naming the bound", ok, why)
	}
	kept[0].c.Close()
	settle(t, ln, 4)
	if _, ok, why := open(t, addr, 3); !ok {
		t.Fatalf("a connection after one closed: %s", why)
	}
}

// Generated sequences of opens and closes from 4 addresses, under
// generated bounds: each open is admitted exactly when the model of the
// counts says it is within both bounds (WASMAGENT_CONNLIMIT_N sequences,
// default 4).
func TestBoundsProperty(t *testing.T) {
	n := 4
	if v, err := strconv.Atoi(os.Getenv("WASMAGENT_CONNLIMIT_N")); err == nil {
		n = v
	}
	for seed := range n {
		r := rand.New(rand.NewPCG(uint64(seed), 7))
		l := Limits{Total: 1 + r.IntN(8), PerAddr: 1 + r.IntN(5)}
		addr, ln := serveLimited(t, l)
		type held struct {
			c    *client
			from int
		}
		var conns []held
		per := map[int]int{}
		for step := range 40 {
			if len(conns) > 0 && r.IntN(3) == 0 {
				i := r.IntN(len(conns))
				conns[i].c.c.Close()
				per[conns[i].from]--
				conns = append(conns[:i], conns[i+1:]...)
				settle(t, ln, len(conns))
				continue
			}
			from := 1 + r.IntN(4)
			want := len(conns) < l.Total && per[from] < l.PerAddr
			c, ok, why := open(t, addr, from)
			if ok != want {
				t.Fatalf("seed %d step %d, bounds %+v, %d open (%v), from 127.0.0.%d: admitted %v (%s), want %v", seed, step, l, len(conns), per, from, ok, why, want)
			}
			if ok {
				conns = append(conns, held{c, from})
				per[from]++
			}
		}
		for _, h := range conns {
			h.c.c.Close()
		}
	}
}

// The defaults: 4096 in all, at most half the open-file limit; 1024 from
// one address; negative is no bound.
func TestDefaults(t *testing.T) {
	for _, c := range []struct {
		l      Limits
		nofile uint64
		want   Limits
	}{
		{Limits{}, 0, Limits{DefaultTotal, DefaultPerAddr}},
		{Limits{}, 1 << 20, Limits{DefaultTotal, DefaultPerAddr}},
		{Limits{}, 1024, Limits{512, DefaultPerAddr}},
		{Limits{}, 1, Limits{1, DefaultPerAddr}},
		{Limits{Total: 10, PerAddr: -1}, 4, Limits{10, -1}},
	} {
		if got := c.l.resolve(c.nofile); got != c.want {
			t.Errorf("%+v with %d files: %+v, want %+v", c.l, c.nofile, got, c.want)
		}
	}
}
