package host

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
)

// PromptApprover is an interactive [Approver] for a terminal or any line
// stream: it writes the question to Out and reads one line from In —
// "y"/"yes" approves, "n"/"no" (or anything else) declines, "a"/"always"
// approves and approves every later question about the same tool for as
// long as this PromptApprover lives (a chat session). Questions are asked
// one at a time, in the order they come; a question whose context ends
// before a line arrives is declined, and a line typed when no question is
// pending is ignored, so a late answer never answers the next question.
//
// In is read by one goroutine of the approver's own, started on the first
// question; it ends when In does. A front end that reads the terminal
// itself (a chat reading prompts and steering) leaves In nil and hands
// lines over with Answer instead.
type PromptApprover struct {
	In  io.Reader // nil: lines come through Answer
	Out io.Writer

	ask    sync.Mutex // one question at a time
	mu     sync.Mutex
	always map[string]bool
	reads  bool        // the reader has started
	want   chan string // the pending question's answer, nil when none
	eof    bool
}

var _ Approver = (*PromptApprover)(nil)

// Approve implements Approver.
func (p *PromptApprover) Approve(ctx context.Context, q Question) (bool, error) {
	p.ask.Lock()
	defer p.ask.Unlock()
	p.mu.Lock()
	if p.always[q.ToolCall.Name] {
		p.mu.Unlock()
		fmt.Fprintf(p.Out, "%s asks: %s — approved (always for %s)\n", q.Hook, q.Text, q.ToolCall.Name)
		return true, nil
	}
	if p.eof {
		p.mu.Unlock()
		return false, io.EOF
	}
	p.start()
	want := make(chan string, 1)
	p.want = want
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		p.want = nil
		p.mu.Unlock()
	}()
	fmt.Fprintf(p.Out, "%s asks: %s\n  %s %s\n  allow? [y]es / [n]o / [a]lways for %s this session: ", q.Hook, q.Text, q.ToolCall.Name, q.Args, q.ToolCall.Name)
	select {
	case line, ok := <-want:
		if !ok {
			return false, io.EOF
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			return true, nil
		case "a", "always":
			p.mu.Lock()
			if p.always == nil {
				p.always = map[string]bool{}
			}
			p.always[q.ToolCall.Name] = true
			p.mu.Unlock()
			return true, nil
		}
		return false, nil
	case <-ctx.Done():
		fmt.Fprintln(p.Out, "\n  (no answer: declined)")
		return false, ctx.Err()
	}
}

// Answer hands line to the question waiting for one and reports whether
// there was such a question; a front end that owns the terminal passes
// each line here first and treats it as its own when Answer says false.
func (p *PromptApprover) Answer(line string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.want == nil {
		return false
	}
	p.want <- line // buffered: never blocks
	p.want = nil
	return true
}

// start starts the reader once, if there is an In; p.mu is held.
func (p *PromptApprover) start() {
	if p.reads || p.In == nil {
		return
	}
	p.reads = true
	go p.read()
}

// read hands each line to the pending question, if any, and drops it
// otherwise.
func (p *PromptApprover) read() {
	sc := bufio.NewScanner(p.In)
	for sc.Scan() {
		p.Answer(sc.Text())
	}
	p.mu.Lock()
	p.eof = true
	if p.want != nil {
		close(p.want)
		p.want = nil
	}
	p.mu.Unlock()
}
