package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultMaxMessageBytes bounds one JSON-RPC message on stdio when
// ServeStdio is given no bound.
const DefaultMaxMessageBytes = 4 << 20

// ServeStdio serves one session on newline-delimited JSON-RPC (the MCP
// stdio transport) until in ends or ctx is cancelled. maxMessage bounds one
// line (zero: DefaultMaxMessageBytes). A line that is not JSON, not a
// JSON-RPC message, a batch, or too long gets a JSON-RPC error and the
// session goes on: a client never ends the server but by closing in.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer, maxMessage int) error {
	if maxMessage <= 0 {
		maxMessage = DefaultMaxMessageBytes
	}
	c := newLineConn(in, out, maxMessage)
	ss, err := s.srv.Connect(ctx, lineTransport{c}, nil)
	if err != nil {
		return err
	}
	stop := context.AfterFunc(ctx, func() { ss.Close() })
	defer stop()
	err = ss.Wait()
	if errors.Is(err, io.EOF) || ctx.Err() != nil {
		return nil
	}
	return err
}

type lineTransport struct{ c *lineConn }

func (t lineTransport) Connect(context.Context) (sdk.Connection, error) { return t.c, nil }

// lineConn is the stdio connection: one JSON-RPC message a line. Unlike
// the SDK's own, it answers a bad line instead of ending the session.
type lineConn struct {
	out      io.Writer
	writeMu  sync.Mutex
	incoming chan jsonrpc.Message
	readErr  chan error
	closed   chan struct{}
	once     sync.Once

	// running holds the ids of the requests read and not yet answered:
	// at the end of the input they are answered before the session ends,
	// so that "wasmagent mcp < requests" answers every request. A request
	// reusing a running id is refused here: the SDK would not answer it,
	// and the count of answers would never come back to zero.
	mu       sync.Mutex
	running  map[any]bool  // jsonrpc.ID.Raw(): int64 or string
	answered chan struct{} // signalled when a running request is answered
}

func newLineConn(in io.Reader, out io.Writer, max int) *lineConn {
	c := &lineConn{out: out, incoming: make(chan jsonrpc.Message), readErr: make(chan error, 1), closed: make(chan struct{}), running: map[any]bool{}, answered: make(chan struct{}, 1)}
	go c.readLoop(bufio.NewReaderSize(in, 64<<10), max)
	return c
}

// readLoop reads lines until the input ends, answering bad ones itself.
func (c *lineConn) readLoop(r *bufio.Reader, max int) {
	for {
		line, size, err := readLine(r, max)
		if len(bytes.TrimSpace(line)) > 0 || size > max {
			msg, bad := decodeLine(line, size, max)
			if bad == nil {
				bad = c.start(msg, line)
			}
			if bad != nil {
				c.writeRaw(bad)
			} else {
				select {
				case c.incoming <- msg:
				case <-c.closed:
					return
				}
			}
		}
		if err != nil {
			c.drain()
			c.readErr <- err
			return
		}
	}
}

// start records a request as running, or returns the error response
// when its id is already running. line is the request as read.
func (c *lineConn) start(msg jsonrpc.Message, line []byte) []byte {
	req, ok := msg.(*jsonrpc.Request)
	if !ok || !req.IsCall() {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.running[req.ID.Raw()] {
		return errorLine(rawID(line), jsonrpc.CodeInvalidRequest, "this id is in use by a request still running: use a new id")
	}
	c.running[req.ID.Raw()] = true
	return nil
}

// finish marks the request answered by msg, if msg is a response, as no
// longer running. It is called before the response is written: a client
// may reuse the id as soon as it reads the response.
func (c *lineConn) finish(msg jsonrpc.Message) {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok {
		return
	}
	c.mu.Lock()
	delete(c.running, resp.ID.Raw())
	c.mu.Unlock()
	select {
	case c.answered <- struct{}{}:
	default:
	}
}

// drain waits until every request read has been answered, or the
// connection is closed.
func (c *lineConn) drain() {
	for {
		c.mu.Lock()
		n := len(c.running)
		c.mu.Unlock()
		if n <= 0 {
			return
		}
		select {
		case <-c.answered:
		case <-c.closed:
			return
		}
	}
}

// readLine reads up to the next newline. A line longer than max is read
// to its end and dropped; size says how long it was (at least).
func readLine(r *bufio.Reader, max int) (line []byte, size int, err error) {
	for {
		frag, err := r.ReadSlice('\n')
		size += len(frag)
		if size <= max+1 { // +1: the newline
			line = append(line, frag...)
		} else {
			line = nil
		}
		if err != bufio.ErrBufferFull {
			return bytes.TrimRight(line, "\r\n"), size, err
		}
	}
}

// decodeLine decodes one line, or returns the error response to send.
func decodeLine(line []byte, size, max int) (jsonrpc.Message, []byte) {
	if size > max+1 {
		return nil, errorLine(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("the message is over %d bytes, this server's limit", max))
	}
	line = bytes.TrimSpace(line)
	if !json.Valid(line) {
		return nil, errorLine(nil, jsonrpc.CodeParseError, "the line is not JSON")
	}
	if line[0] == '[' {
		return nil, errorLine(nil, jsonrpc.CodeInvalidRequest, "JSON-RPC batches are not supported: send one message a line")
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		return nil, errorLine(rawID(line), jsonrpc.CodeInvalidRequest, "not a JSON-RPC 2.0 message: "+err.Error())
	}
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		if id, bad := inexactID(line); bad {
			return nil, errorLine(id, jsonrpc.CodeInvalidRequest, "a numeric id must be an integer below 2^53 in magnitude: use a string or such an integer")
		}
	}
	return msg, nil
}

// inexactID reports whether a request's id is a number the SDK cannot
// echo as sent (it keeps ids as int64 read through float64): 1.5 would
// be answered as 1 and collide with request 1. Integers below 2^53 (a
// JavaScript client's safe integers) are exact in both.
func inexactID(line []byte) (json.RawMessage, bool) {
	id := rawID(line)
	if len(id) == 0 || id[0] == '"' || id[0] == 'n' {
		return id, false
	}
	f, err := strconv.ParseFloat(string(id), 64)
	return id, err != nil || f != math.Trunc(f) || math.Abs(f) >= 1<<53
}

// rawID is a message's id as sent, or nil.
func rawID(line []byte) json.RawMessage {
	var head struct {
		ID json.RawMessage `json:"id"`
	}
	json.Unmarshal(line, &head)
	return head.ID
}

// errorLine is a JSON-RPC error response; id is echoed when it is a
// string or a number, else null.
func errorLine(id json.RawMessage, code int64, msg string) []byte {
	if len(id) == 0 || (id[0] != '"' && (id[0] < '0' || id[0] > '9') && id[0] != '-') {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: code, Message: msg}})
	return b
}

func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case msg := <-c.incoming:
		return msg, nil
	case err := <-c.readErr:
		c.readErr <- err // every later Read sees it too
		return nil, err
	case <-c.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	c.finish(msg) // even if the write fails: no answer will come later
	if err := ctx.Err(); err != nil {
		return err
	}
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encoding a message: %w", err)
	}
	return c.writeRaw(b)
}

func (c *lineConn) writeRaw(b []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err := c.out.Write(append(b, '\n'))
	return err
}

func (c *lineConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

func (c *lineConn) SessionID() string { return "" }
