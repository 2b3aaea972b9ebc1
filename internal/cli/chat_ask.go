package cli

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/internal/safetext"
	"github.com/wasmagent/wasmagent/internal/words"
)

// chat answers hooks' questions itself: a host.PromptApprover with no In
// prints each question as a note, and the chat's loop hands it the next
// line typed (handle), so that a line typed while a question is pending is
// its answer, not a steer. Ctrl-C aborts the run, which declines it.

// setApprover gives the agent a fresh approver: its "always" answers hold
// until the session or the configuration changes.
func (c *chatSession) setApprover() {
	p := &host.PromptApprover{Out: questionWriter{c.r}}
	c.approver = p
	c.a.SetApprover(host.ApproverFunc(func(ctx context.Context, q host.Question) (bool, error) {
		c.setAsking(true)
		defer c.setAsking(false)
		return p.Approve(ctx, shown(q))
	}))
}

// The most of a question's text and of the call's arguments shown: a
// hook or a model must not flood the terminal the user answers on.
const (
	maxQuestionText = 1000
	maxQuestionArgs = 2000
)

// shown is q as the user sees it: its text and the arguments clipped, the
// arguments on one line.
func shown(q host.Question) host.Question {
	q.Text = clip(q.Text, maxQuestionText)
	if a := compactJSON(q.Args); len([]rune(a)) > maxQuestionArgs {
		q.Args = json.RawMessage(clip(a, maxQuestionArgs) + " (" + words.Count(len(q.Args), "byte") + ")")
	} else {
		q.Args = json.RawMessage(a)
	}
	return q
}

// answer hands line to a pending question and says whether one took it.
func (c *chatSession) answer(line string) bool {
	return c.approver != nil && c.approver.Answer(line)
}

func (c *chatSession) setAsking(b bool) {
	if c.console != nil {
		c.console.setAsking(b)
	}
}

// questionWriter shows what the approver writes (a question, "declined")
// as notes, not dim: the hook's text and the model's arguments made
// printable, and in raw mode drawn above the prompt.
type questionWriter struct{ r *plainRenderer }

func (w questionWriter) Write(p []byte) (int, error) {
	if s := strings.Trim(string(p), "\n "); s != "" {
		w.r.noteStyled(noBidi(printable(s)))
	}
	return len(p), nil
}

// noBidi drops the bidi controls (safetext.IsBidiControl) from what a
// question shows: they can make a terminal show the arguments in another
// order than they run ("Trojan Source"), and the user approves what is
// shown.
func noBidi(s string) string {
	return strings.Map(func(r rune) rune {
		if safetext.IsBidiControl(r) {
			return -1
		}
		return r
	}, s)
}
