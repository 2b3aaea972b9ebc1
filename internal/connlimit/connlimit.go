// Package connlimit bounds the TCP connections a server holds open: in
// all, and from one client address. Past either bound a new connection is
// never handed to the server: it is answered at once with an HTTP 503
// that names the bound, and closed.
//
// Go's server holds every connection it accepts, with a goroutine and
// its buffers, until the client closes it or a timeout ends it; its
// timeouts bound how long one connection lasts, not how many there are.
// Without a bound, one client opening connections (slowly sending their
// headers, or idle between requests) takes the process's descriptors,
// which its sessions, journals and plugins need too, and its memory.
package connlimit

import (
	"fmt"
	"io"
	"net"
	"sync"
	"time"
)

// Defaults of Limits.
const (
	// DefaultTotal is the most connections at once (but at most half the
	// process's open-file limit: the other half is the sessions', the
	// journals' and the plugins').
	DefaultTotal = 4096
	// DefaultPerAddr is the most connections at once from one address.
	DefaultPerAddr = 1024
)

// Limits bound the connections of one server. Zero is the default;
// negative is no bound.
type Limits struct {
	Total   int
	PerAddr int
}

// resolve is l with its defaults, the total bounded by the open-file
// limit (nofile, 0 when unknown).
func (l Limits) resolve(nofile uint64) Limits {
	if l.Total == 0 {
		l.Total = DefaultTotal
		if nofile > 0 && nofile/2 < uint64(l.Total) {
			l.Total = max(int(nofile/2), 1)
		}
	}
	if l.PerAddr == 0 {
		l.PerAddr = DefaultPerAddr
	}
	return l
}

// MaxRefusing bounds the refused connections being answered at once (each
// is given a second to read its 503); past it, a refused connection is
// closed without an answer, so that a flood of them costs no more
// descriptors than this.
const MaxRefusing = 64

// Listen returns ln bounded by l: Accept hands on connections while they
// are within l, and answers the others itself. A connection counts until
// it is closed. name says whose bound it is in the refusal ("wasmagent
// serve").
func Listen(ln net.Listener, l Limits, name string) net.Listener {
	return &listener{Listener: ln, l: l.resolve(openFileLimit()), name: name, per: map[string]int{}}
}

type listener struct {
	net.Listener
	l    Limits
	name string

	mu       sync.Mutex
	total    int
	per      map[string]int // open connections by client address
	refusing int
}

func (ln *listener) Accept() (net.Conn, error) {
	for {
		c, err := ln.Listener.Accept()
		if err != nil {
			return nil, err
		}
		addr := c.RemoteAddr().String()
		if host, _, err := net.SplitHostPort(addr); err == nil {
			addr = host
		}
		why, answer := ln.admit(addr)
		if why == "" {
			return &conn{Conn: c, ln: ln, addr: addr}, nil
		}
		if !answer {
			c.Close()
			continue
		}
		go ln.refuse(c, why)
	}
}

// admit counts a connection from addr, or says which bound it is over
// and whether to answer it.
func (ln *listener) admit(addr string) (why string, answer bool) {
	ln.mu.Lock()
	defer ln.mu.Unlock()
	switch {
	case ln.l.Total >= 0 && ln.total >= ln.l.Total:
		why = fmt.Sprintf("%s holds %d connections, its most at once; close idle ones or try again later", ln.name, ln.l.Total)
	case ln.l.PerAddr >= 0 && ln.per[addr] >= ln.l.PerAddr:
		why = fmt.Sprintf("%s holds %d connections from %s, its most from one address; close idle ones or try again later", ln.name, ln.l.PerAddr, addr)
	default:
		ln.total++
		ln.per[addr]++
		return "", false
	}
	if ln.refusing >= MaxRefusing {
		return why, false
	}
	ln.refusing++
	return why, true
}

func (ln *listener) release(addr string) {
	ln.mu.Lock()
	defer ln.mu.Unlock()
	ln.total--
	if ln.per[addr]--; ln.per[addr] <= 0 {
		delete(ln.per, addr)
	}
}

// refuse answers a connection over a bound with a 503 and closes it,
// after reading what the client sent meanwhile (closing with unread bytes
// resets the connection, and the client may lose the answer).
func (ln *listener) refuse(c net.Conn, why string) {
	defer func() {
		c.Close()
		ln.mu.Lock()
		ln.refusing--
		ln.mu.Unlock()
	}()
	msg := "503 Service Unavailable: " + why + "\n"
	c.SetDeadline(time.Now().Add(time.Second))
	if _, err := fmt.Fprintf(c, "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nRetry-After: 1\r\nContent-Length: %d\r\n\r\n%s", len(msg), msg); err != nil {
		return
	}
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
	}
	io.Copy(io.Discard, io.LimitReader(c, 64<<10))
}

// conn is an admitted connection: closing it gives its place back, once.
type conn struct {
	net.Conn
	ln   *listener
	addr string
	once sync.Once
}

func (c *conn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.ln.release(c.addr) })
	return err
}
