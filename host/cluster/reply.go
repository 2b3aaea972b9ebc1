package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/nats-io/nats.go"

	"github.com/wasmagent/wasmagent/host/serve"
	"github.com/wasmagent/wasmagent/host/session"
)

// reply is what the host applying a command answers its sender: nothing
// for success, else the error and its kind.
type reply struct {
	Error string `json:"error,omitempty"`
	Code  string `json:"code,omitempty"` // "busy", "invalid", or "" for another failure
}

// answer replies to c's sender, if it waits.
func (r *runner) answer(c pendingCommand, err error) {
	if c.Reply == "" {
		return
	}
	var rep reply
	if err != nil {
		rep.Error = err.Error()
		switch {
		case errors.Is(err, session.ErrBusy):
			rep.Code = "busy"
		case errors.Is(err, ErrBadCommand):
			rep.Code = "invalid"
		}
	}
	data, _ := json.Marshal(rep)
	r.h.js.Conn().Publish(c.Reply, data)
}

// replyError is the error a reply says, in serve's terms.
func replyError(data []byte) error {
	var rep reply
	if err := json.Unmarshal(data, &rep); err != nil {
		return fmt.Errorf("cluster: a host answered a command with %.80q: %v", data, err)
	}
	switch {
	case rep.Error == "":
		return nil
	case rep.Code == "busy":
		return fmt.Errorf("%w (a prompt needs streamingBehavior \"steer\" or \"followUp\" now)", serve.ErrBusy)
	case rep.Code == "invalid":
		return &serve.InvalidError{Msg: strings.TrimPrefix(rep.Error, ErrBadCommand.Error()+": ")}
	}
	return errors.New(rep.Error)
}

// sendAndWait stores c for session id and, if wait, waits up to
// ReplyWait for the host running the session to answer. No answer in
// time is not an error: the command is stored, and runs when a host is
// free.
func (s *Service) sendAndWait(ctx context.Context, id string, c Command, quota int, wait bool) error {
	hdr := nats.Header{}
	if quota > 0 {
		hdr.Set(quotaHeader, strconv.Itoa(quota))
	}
	if !wait {
		_, err := send(ctx, s.h.js, id, c, hdr)
		return httpError(err)
	}
	nc := s.h.js.Conn()
	inbox := nats.NewInbox()
	sub, err := nc.SubscribeSync(inbox)
	if err != nil {
		return httpError(unavailableOp("waiting for the command's answer", err))
	}
	defer sub.Unsubscribe()
	hdr.Set(replyHeader, inbox)
	if _, err := send(ctx, s.h.js, id, c, hdr); err != nil {
		return httpError(err)
	}
	wctx, cancel := context.WithTimeout(ctx, s.o.ReplyWait)
	defer cancel()
	m, err := sub.NextMsgWithContext(wctx)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return nil // stored; no host has taken it yet
	}
	return replyError(m.Data)
}
