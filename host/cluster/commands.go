package cluster

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"

	"github.com/wasmagent/wasmagent/host"
)

// Command is one session command as it travels on the session's command
// subject: pi's RPC command of that type, restricted to the fields the
// four cluster commands use.
type Command struct {
	// Type is "prompt", "steer", "follow_up" or "abort".
	Type string `json:"type"`
	// Message is the user's text (not for abort).
	Message string `json:"message,omitempty"`
	// Images go with Message.
	Images []host.ImageContent `json:"images,omitempty"`
	// StreamingBehavior says what a prompt does while a run is active:
	// "steer", "followUp", or "" (refused).
	StreamingBehavior string `json:"streamingBehavior,omitempty"`
	// ID is the client's id for the command: a command sent twice with
	// one ID (a retried request) is taken once. Empty: a fresh id.
	ID string `json:"id,omitempty"`
}

// MaxCommand bounds an encoded command (images travel inline); the
// stream's max_msg_size is set from it.
const MaxCommand = 8 << 20

// maxCommandID bounds Command.ID.
const maxCommandID = 128

// Errors of Send.
var (
	ErrBadCommand = errors.New("bad command")
)

// DecodeCommand decodes and checks one command from the stream (or from a
// client): unknown fields are refused, as every field is known.
func DecodeCommand(data []byte) (Command, error) {
	var c Command
	if len(data) > MaxCommand {
		return c, fmt.Errorf("%w: %d bytes, more than %d", ErrBadCommand, len(data), MaxCommand)
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(&c); err != nil {
		return Command{}, fmt.Errorf("%w: %v", ErrBadCommand, err)
	}
	if d.More() {
		return Command{}, fmt.Errorf("%w: more than one JSON value", ErrBadCommand)
	}
	if err := c.check(); err != nil {
		return Command{}, err
	}
	return c, nil
}

// check says what is wrong with c, if anything.
func (c Command) check() error {
	switch c.Type {
	case "prompt", "steer", "follow_up":
		if c.Message == "" && len(c.Images) == 0 {
			return fmt.Errorf("%w: %s needs \"message\"", ErrBadCommand, c.Type)
		}
	case "abort":
		if c.Message != "" || len(c.Images) > 0 {
			return fmt.Errorf("%w: abort takes no message", ErrBadCommand)
		}
	case "":
		return fmt.Errorf("%w: missing \"type\"", ErrBadCommand)
	default:
		return fmt.Errorf("%w: type %q is not prompt, steer, follow_up or abort", ErrBadCommand, c.Type)
	}
	switch c.StreamingBehavior {
	case "", "steer", "followUp":
	default:
		return fmt.Errorf("%w: streamingBehavior %q is not \"steer\" or \"followUp\"", ErrBadCommand, c.StreamingBehavior)
	}
	if c.StreamingBehavior != "" && c.Type != "prompt" {
		return fmt.Errorf("%w: streamingBehavior is for prompt only", ErrBadCommand)
	}
	for i, img := range c.Images {
		if img.Data == "" || img.MimeType == "" {
			return fmt.Errorf("%w: images[%d]: want {\"type\":\"image\",\"data\":base64,\"mimeType\"}", ErrBadCommand, i)
		}
	}
	if len(c.ID) > maxCommandID {
		return fmt.Errorf("%w: id: %d bytes, more than %d", ErrBadCommand, len(c.ID), maxCommandID)
	}
	for i := 0; i < len(c.ID); i++ {
		if c.ID[i] < 0x21 || c.ID[i] > 0x7e {
			return fmt.Errorf("%w: id: byte %d is not printable ASCII", ErrBadCommand, i)
		}
	}
	return nil
}

// Sent says where a command landed.
type Sent struct {
	Seq       uint64 // its sequence in the command stream
	Duplicate bool   // a command with its id was already there
}

// send publishes c on session id's command subject, then marks the
// session as having work. A command with the ID of one already in the
// stream's duplicate window is not stored twice.
func send(ctx context.Context, js jetstream.JetStream, id string, c Command, hdr nats.Header) (Sent, error) {
	if err := checkID(id); err != nil {
		return Sent{}, fmt.Errorf("%w: %v", ErrBadCommand, err)
	}
	if err := c.check(); err != nil {
		return Sent{}, err
	}
	if c.ID == "" {
		c.ID = nuid.Next()
	}
	data, err := json.Marshal(c)
	if err != nil {
		return Sent{}, err
	}
	if len(data) > MaxCommand {
		return Sent{}, fmt.Errorf("%w: %d bytes, more than %d", ErrBadCommand, len(data), MaxCommand)
	}
	m := nats.NewMsg(cmdSubject(id))
	m.Data = data
	for k, v := range hdr {
		m.Header[k] = v
	}
	ack, err := js.PublishMsg(ctx, m, jetstream.WithMsgID(id+"/"+c.ID), jetstream.WithExpectStream(cmdStream))
	if err != nil {
		return Sent{}, unavailableOp("storing the command", err)
	}
	if err := markWork(ctx, js, id); err != nil {
		return Sent{}, err
	}
	return Sent{Seq: ack.Sequence, Duplicate: ack.Duplicate}, nil
}

// replyHeader names the subject the host applying a command answers on
// (reply.go); a command stored without one, or whose sender is gone, is
// applied all the same.
const replyHeader = "Wa-Reply"

// pendingCommand is a command read back from the stream.
type pendingCommand struct {
	Command
	Seq   uint64
	Time  int64  // when it was stored, Unix ms: its user message's timestamp
	Reply string // where to answer, if anywhere
	Quota int    // the sender's tool calls per minute (0: none)
}

// readCommands returns session id's commands after seq, in order.
func readCommands(ctx context.Context, js jetstream.JetStream, id string, after uint64) ([]pendingCommand, error) {
	s, err := js.Stream(ctx, cmdStream)
	if err != nil {
		return nil, unavailableOp("reading commands", err)
	}
	last, err := s.GetLastMsgForSubject(ctx, cmdSubject(id))
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, unavailableOp("reading commands", err)
	}
	if last.Sequence <= after {
		return nil, nil
	}
	var out []pendingCommand
	for seq := after + 1; seq <= last.Sequence; {
		m, err := s.GetMsg(ctx, seq, jetstream.WithGetMsgSubject(cmdSubject(id)))
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			break
		}
		if err != nil {
			return nil, unavailableOp("reading commands", err)
		}
		c, derr := DecodeCommand(m.Data)
		if derr == nil {
			out = append(out, pendingCommand{c, m.Sequence, m.Time.UnixMilli(), m.Header.Get(replyHeader), quotaOf(m.Header)})
		}
		seq = m.Sequence + 1
	}
	return out, nil
}

// quotaOf reads the tool calls per minute a command carries.
func quotaOf(h nats.Header) int {
	n, err := strconv.Atoi(h.Get(quotaHeader))
	if err != nil || n < 0 {
		return 0
	}
	return n
}
