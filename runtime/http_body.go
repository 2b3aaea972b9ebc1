package runtime

import (
	"errors"
	"io"
	"net/http"
	"sync"
)

// What http_request holds of the host's memory is counted against the
// plugin's grant (RATIONALE.md, "Why does http_request count the
// response it reads against the memory grant?"): the request body is
// read from the plugin's block where it lies, and the response body is
// read in chunks counted beside the blocks, as directory entries are
// (kernel.held), until it is moved into the block the plugin gets.

// responseChunk is the most of a response body read at a time.
const responseChunk = 64 << 10

// response is a response body read by http_request: its chunks and
// what they count against the host memory limit until released.
type response struct {
	chunks [][]byte
	n      int64
	held   uint64
}

// readResponse reads resp's body, at most Grants.MaxHTTPResponseBytes,
// counting each chunk against the host memory limit as it is read: a
// response that cannot fit in the plugin's host memory beside its blocks
// ends the call with the MemoryPages CapError as soon as it passes it,
// before more is read (on the old main the body was read whole, up to
// MaxHTTPResponseBytes, into the Go heap, growing a slice by copies,
// and only then refused).
func (st *callState) readResponse(resp *http.Response, what string) *response {
	limit := st.p.grants.MaxHTTPResponseBytes
	r := &response{}
	if resp.Body == http.NoBody {
		// A HEAD's Content-Length (or a 204's, a 304's) says what a GET
		// would get: there is nothing to read.
		return r
	}
	if resp.ContentLength > limit {
		st.check(capFault("MaxHTTPResponseBytes", limit, "http_request %s: a response body of %d bytes (Content-Length)", what, resp.ContentLength))
	}
	if resp.ContentLength > 0 {
		st.holdResponse(r, uint64(resp.ContentLength), what)
		st.releaseResponse(r)
	}
	for {
		buf := make([]byte, min(responseChunk, limit+1-r.n))
		m, err := io.ReadFull(resp.Body, buf)
		if m > 0 {
			r.chunks = append(r.chunks, buf[:m])
			r.n += int64(m)
			if r.n > limit {
				st.releaseResponse(r)
				st.check(capFault("MaxHTTPResponseBytes", limit, "http_request %s: a response body over the limit", what))
			}
			st.holdResponse(r, uint64(m), what)
		}
		switch {
		case err == io.EOF || err == io.ErrUnexpectedEOF:
			return r
		case err != nil:
			st.releaseResponse(r)
			st.check(faultf("http_request %s: reading the response: %v", what, err))
		}
	}
}

// holdResponse counts n more bytes of r against the host memory limit,
// or ends the call when they do not fit.
func (st *callState) holdResponse(r *response, n uint64, what string) {
	r.held += n
	st.held += n
	if used := uint64(len(st.mem)) + st.blocksCost(1) + st.held; used > st.limit {
		got := r.held
		st.releaseResponse(r)
		st.check(capFault("MemoryPages", st.limit>>16, "http_request %s: a response body of %d bytes or more does not fit in the plugin's host memory of %d bytes, with %s", what, got, st.limit, st.inUse()))
	}
}

// releaseResponse gives back what r counted; it may be called again.
func (st *callState) releaseResponse(r *response) {
	st.held -= r.held
	r.held = 0
}

// guestBody is a request body read where the plugin left it, in its
// host memory, until close: the transport may go on reading a body
// after the response came (a server that answers before reading it),
// and the block is freed, and its bytes reused, once http_request is
// done with it.
type guestBody struct {
	mu     sync.Mutex
	b      []byte
	closed bool
}

var errBodyGone = errors.New("http_request: the request body is no longer readable (the host function returned)")

// reader is a new reader of the whole body (http.Request.GetBody, for
// redirects that send it again).
func (g *guestBody) reader() (io.ReadCloser, error) {
	return io.NopCloser(&guestBodyReader{g: g}), nil
}

func (g *guestBody) close() {
	g.mu.Lock()
	g.closed = true
	g.b = nil
	g.mu.Unlock()
}

type guestBodyReader struct {
	g   *guestBody
	off int
}

func (r *guestBodyReader) Read(p []byte) (int, error) {
	r.g.mu.Lock()
	defer r.g.mu.Unlock()
	if r.g.closed {
		return 0, errBodyGone
	}
	if r.off >= len(r.g.b) {
		return 0, io.EOF
	}
	n := copy(p, r.g.b[r.off:])
	r.off += n
	return n, nil
}
