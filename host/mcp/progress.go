package mcp

import (
	"context"
	"encoding/json"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmagent/wasmagent/host"
)

// maxPendingUpdates and maxPendingBytes bound the partial results
// waiting to be sent to a slow client, in number and in the bytes of
// their text; later ones are dropped (progress is advice, the result is
// what counts). A count alone let a call's updates, each up to the
// plugin's output cap (8 MiB by default), hold 512 MiB for a client that
// read slowly.
const maxPendingUpdates = 64

var maxPendingBytes = 8 << 20 // tests make it small

// progress turns a tool's partial results into notifications/progress,
// sent in order by one goroutine so that the plugin never waits for the
// client. Without a progress token from the client it sends nothing.
type progress struct {
	ctx   context.Context
	ss    *sdk.ServerSession
	token any

	mu      sync.Mutex
	pending []string
	bytes   int // of pending
	closed  bool
	wake    chan struct{}
	done    chan struct{}
}

func newProgress(ctx context.Context, req *sdk.CallToolRequest) *progress {
	p := &progress{ctx: ctx, ss: req.Session, token: req.Params.GetProgressToken()}
	if p.token == nil || p.ss == nil {
		return p
	}
	p.wake, p.done = make(chan struct{}, 1), make(chan struct{})
	go p.send()
	return p
}

// update is the tool's UpdateFunc.
func (p *progress) update(partial any) {
	if p.wake == nil {
		return
	}
	text := updateText(partial)
	p.mu.Lock()
	if !p.closed && len(p.pending) < maxPendingUpdates && p.bytes+len(text) <= maxPendingBytes {
		p.pending = append(p.pending, text)
		p.bytes += len(text)
	}
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// close stops taking updates and waits until those taken are sent (or the
// call is cancelled), so that progress comes before the result.
func (p *progress) close() {
	if p.wake == nil {
		return
	}
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
	<-p.done
}

func (p *progress) send() {
	defer close(p.done)
	n := 0
	for {
		p.mu.Lock()
		batch, closed := p.pending, p.closed
		p.pending, p.bytes = nil, 0
		p.mu.Unlock()
		for _, msg := range batch {
			n++
			if p.ctx.Err() != nil {
				return
			}
			p.ss.NotifyProgress(p.ctx, &sdk.ProgressNotificationParams{ProgressToken: p.token, Progress: float64(n), Message: msg})
		}
		if closed {
			p.mu.Lock()
			left := len(p.pending)
			p.mu.Unlock()
			if left == 0 {
				return
			}
			continue
		}
		select {
		case <-p.wake:
		case <-p.ctx.Done():
			return
		}
	}
}

// updateText is the text of a partial result (a plugin's update is a
// result: its content's text), or its JSON.
func updateText(partial any) string {
	raw, ok := partial.(json.RawMessage)
	if !ok {
		b, _ := json.Marshal(partial)
		raw = b
	}
	var r struct {
		Content host.Contents `json:"content"`
	}
	if json.Unmarshal(raw, &r) == nil && r.Content != nil {
		return r.Content.TextOf()
	}
	return string(raw)
}
