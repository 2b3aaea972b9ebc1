package rpc

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/eventwire"
	"github.com/wasmagent/wasmagent/host/session"
)

// MaxLine is the longest command line read (images travel inline).
const MaxLine = 64 << 20

// Server translates pi's RPC commands into session commands and the
// session's events into JSON lines.
type Server struct {
	sess *session.Session
	ui   *approver
	out  *lineWriter
}

// Options configure Serve. The zero value is pi's event lines within
// eventwire's default budget.
type Options struct {
	// Events bound what the agent's message_update lines cost, as for
	// "wasmagent run --json" (agent.toml [events]; docs/events.md).
	Events eventwire.Options
	// StopGrace is how long Serve, once told to end (ctx done or the
	// input ended), waits for the client to take a line of output; zero
	// is DefaultStopGrace. Past it, the rest of the output is dropped, so
	// that a client that stopped reading cannot keep Serve from
	// returning.
	StopGrace time.Duration
}

// Serve reads commands from in until it ends or ctx is done, answering and
// streaming events to out. A bad line gets a failed response and the
// session goes on; only an error writing out ends Serve early. At the end
// a run still going is aborted and waited for.
//
// While Serve runs, the session's Agent asks hooks' questions through the
// client (an extension_ui_request "confirm", answered by an
// extension_ui_response); it replaces the Agent's approver, and leaves
// none when it returns.
//
// The agent's events are written through an [eventwire.Encoder] with
// o.Events, so that a message's updates stay within its byte budget;
// the session's own events (queue_update, auto_retry_*) and responses
// are written as they are.
func Serve(ctx context.Context, sess *session.Session, in io.Reader, out io.Writer, o Options) error {
	grace := o.StopGrace
	if grace <= 0 {
		grace = DefaultStopGrace
	}
	s := &Server{sess: sess, out: newLineWriter(out)}
	defer s.out.stop()
	s.ui = &approver{write: s.write}
	sess.Agent().SetApprover(s.ui)
	enc := eventwire.New(s.write, o.Events)
	unsubscribe := sess.Subscribe(func(ctx context.Context, e session.Event) error {
		var err error
		if he, ok := e.(host.Event); ok {
			err = enc.Event(ctx, he)
		} else {
			var line []byte
			if line, err = session.MarshalEvent(e); err == nil {
				err = s.write(line)
			}
		}
		if err != nil && s.out.gone(err) {
			// A client that is gone does not fail the run: Serve sees the
			// failure and ends, aborting the run as the end of its input
			// would, so that the session records it as pi's would.
			return nil
		}
		return err
	})
	defer func() {
		// The client may have stopped reading: what it does not take
		// within the grace is dropped, so that the run's end and this
		// return never wait on it.
		s.out.ending(grace)
		sess.Abort()
		sess.Wait(context.Background())
		sess.Agent().SetApprover(nil)
		unsubscribe()
		s.out.flush() // the run's last lines, before the process may exit
	}()
	lines := make(chan []byte)
	readErr := make(chan error, 1)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		err := readLines(in, lines, stop)
		s.out.ending(grace) // the main loop may be blocked writing: see below
		readErr <- err
	}()
	// A command's answer blocked by a client that does not read must not
	// keep Serve from seeing its input or ctx end.
	stopWrites := context.AfterFunc(ctx, func() { s.out.ending(grace) })
	defer stopWrites()
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-readErr:
			if err == io.EOF {
				return nil
			}
			return err
		case <-s.out.failed:
			return fmt.Errorf("writing to the client: %w", s.out.failure())
		case line := <-lines:
			if err := s.handle(ctx, line); err != nil {
				if ctx.Err() != nil || errors.Is(err, errStopped) {
					return nil // told to end; the client took no more
				}
				return err
			}
		}
	}
}

// readLines splits in on LF only (U+2028 and U+2029 are text inside JSON
// strings), passing each line on without its LF. A line longer than
// MaxLine is passed on as nil after being skipped.
func readLines(in io.Reader, lines chan<- []byte, stop <-chan struct{}) error {
	r := bufio.NewReaderSize(in, 64<<10)
	var buf []byte
	tooLong := false
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			buf = append(buf, chunk...)
			if len(buf) > MaxLine {
				tooLong, buf = true, nil
			}
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err != nil && (len(buf) == 0 && !tooLong):
			return err
		}
		var line []byte
		if !tooLong {
			line = bytesTrimLF(buf)
		}
		select {
		case lines <- line:
		case <-stop:
			return io.EOF
		}
		buf, tooLong = nil, false
		if err != nil {
			return err
		}
	}
}

func bytesTrimLF(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		return b[:n-1]
	}
	return b
}

func (s *Server) write(line []byte) error { return s.out.write(line) }

// response is pi's RpcResponse.
type response struct {
	ID      json.RawMessage `json:"id,omitempty"`
	Type    string          `json:"type"`
	Command string          `json:"command"`
	Success bool            `json:"success"`
	Data    any             `json:"data,omitempty"`
	Error   string          `json:"error,omitempty"`
}

func (s *Server) respond(c Command, data any, err error) error {
	r := response{ID: c.ID, Type: "response", Command: c.Type, Success: err == nil, Data: data}
	if err != nil {
		r.Data, r.Error = nil, err.Error()
	}
	line, merr := host.MarshalJS(r)
	if merr != nil {
		line, _ = host.MarshalJS(response{ID: c.ID, Type: "response", Command: c.Type, Error: "response does not encode: " + merr.Error()})
	}
	return s.write(line)
}

// nullData marks a success whose data is JSON null (pi's cycle_model with
// one model).
type nullData struct{}

func (nullData) MarshalJSON() ([]byte, error) { return []byte("null"), nil }

func (s *Server) handle(ctx context.Context, line []byte) error {
	if line == nil {
		return s.respond(Command{Type: "parse"}, nil, fmt.Errorf("Failed to parse command: line longer than %d bytes", MaxLine))
	}
	c, err := DecodeCommand(line)
	if err != nil {
		cmd := c
		if cmd.Type == "" {
			cmd.Type = "parse"
		}
		return s.respond(cmd, nil, fmt.Errorf("Failed to parse command: %v", err))
	}
	if c.Type == "extension_ui_response" {
		if err := s.ui.answer(c); err != nil {
			return s.respond(c, nil, err)
		}
		return nil // as pi: an answer that lands gets no response
	}
	data, err := s.dispatch(ctx, c)
	return s.respond(c, data, err)
}

var errUnsupported = errors.New("not supported by wasmagent")

func (s *Server) dispatch(ctx context.Context, c Command) (any, error) {
	sess := s.sess
	switch c.Type {
	case "prompt", "steer", "follow_up":
		m, err := userMessage(c)
		if err != nil {
			return nil, err
		}
		switch c.Type {
		case "steer":
			return nil, sess.Steer(ctx, m)
		case "follow_up":
			return nil, sess.FollowUp(ctx, m)
		}
		err = sess.Prompt(ctx, m, session.Behavior(c.StreamingBehavior))
		if errors.Is(err, session.ErrBusy) {
			return nil, errors.New("Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message.") // pi's words
		}
		return nil, err
	case "abort":
		sess.Abort()
		return nil, sess.Wait(ctx)
	case "new_session":
		return map[string]bool{"cancelled": false}, sess.NewSession(ctx, c.ParentSession)
	case "switch_session":
		if c.SessionPath == "" {
			return nil, errors.New(`switch_session needs "sessionPath"`)
		}
		return map[string]bool{"cancelled": false}, sess.Switch(ctx, c.SessionPath)
	case "fork":
		text, err := sess.ForkAt(ctx, c.EntryID)
		if errors.Is(err, session.ErrNoEntry) || errors.Is(err, session.ErrNotForking) {
			return nil, errors.New("Invalid entry ID for forking") // pi's words
		}
		return object{{"text", text}, {"cancelled", false}}, err
	case "get_fork_messages":
		points := sess.ForkPoints()
		if points == nil {
			points = []session.ForkPoint{}
		}
		return object{{"messages", points}}, nil
	case "get_state":
		return stateJSON(sess.State()), nil
	case "get_messages":
		msgs := sess.Messages()
		if msgs == nil {
			msgs = []host.Message{}
		}
		return object{{"messages", msgs}}, nil
	case "get_last_assistant_text":
		text, ok := sess.LastAssistantText()
		if !ok {
			return object{}, nil // pi's {text: undefined}
		}
		return object{{"text", text}}, nil
	case "get_session_stats":
		return statsJSON(sess), nil
	case "set_session_name":
		if c.Name == nil {
			return nil, errors.New(`set_session_name needs "name"`)
		}
		return nil, sess.SetName(ctx, *c.Name)
	case "get_available_models":
		var out []modelJSON
		for _, m := range sess.Models() {
			out = append(out, toModelJSON(m))
		}
		if out == nil {
			out = []modelJSON{}
		}
		return object{{"models", out}}, nil
	case "set_model":
		if !hasModel(sess, c.Provider, c.ModelID) {
			return nil, fmt.Errorf("Model not found: %s/%s", c.Provider, c.ModelID) // pi's words
		}
		m, err := sess.SetModel(ctx, c.Provider, c.ModelID)
		if err != nil {
			return nil, err
		}
		return toModelJSON(m), nil
	case "cycle_model":
		return cycleModel(ctx, sess)
	case "set_thinking_level":
		return nil, sess.SetThinkingLevel(ctx, c.Level)
	case "set_steering_mode":
		return nil, sess.SetSteeringMode(host.QueueMode(c.Mode))
	case "set_follow_up_mode":
		return nil, sess.SetFollowUpMode(host.QueueMode(c.Mode))
	case "set_auto_retry":
		if c.Enabled == nil {
			return nil, errors.New(`set_auto_retry needs "enabled"`)
		}
		sess.SetAutoRetry(*c.Enabled)
		return nil, nil
	case "abort_retry":
		sess.AbortRetry()
		return nil, nil
	case "get_commands":
		// wasmagent has no extension commands, prompt templates or skills.
		return object{{"commands", []any{}}}, nil
	case "compact", "set_auto_compaction":
		return nil, fmt.Errorf("%s: %w (wasmagent does not compact context)", c.Type, errUnsupported)
	case "bash", "abort_bash":
		return nil, fmt.Errorf("%s: %w (shell commands run only as sandboxed tool plugins)", c.Type, errUnsupported)
	case "export_html":
		return nil, fmt.Errorf("%s: %w (use \"wasmagent sessions export\" for Markdown or JSONL)", c.Type, errUnsupported)
	case "cycle_thinking_level":
		level, err := sess.CycleThinkingLevel(ctx)
		return map[string]string{"level": level}, err
	case "clone":
		return nil, fmt.Errorf("%s: %w", c.Type, errUnsupported)
	}
	return nil, fmt.Errorf("Unknown command: %s", c.Type)
}

func userMessage(c Command) (*host.UserMessage, error) {
	if c.Message == nil {
		return nil, fmt.Errorf(`%s needs "message"`, c.Type)
	}
	content := host.Contents{host.TextContent{Text: *c.Message}}
	for _, img := range c.Images {
		content = append(content, img)
	}
	m := &host.UserMessage{Content: content, Timestamp: nowMillis()}
	if len(c.images) == 0 {
		return m, nil
	}
	// The client's images as it wrote them, as pi passes them on.
	text, _ := json.Marshal(*c.Message)
	b := append([]byte(`{"role":"user","content":[{"type":"text","text":`), text...)
	b = append(b, '}')
	for _, img := range c.images {
		b = append(append(b, ','), img...)
	}
	b = strconv.AppendInt(append(b, `],"timestamp":`...), m.Timestamp, 10)
	given, err := host.DecodeMessage(append(b, '}'))
	if um, ok := given.(*host.UserMessage); ok && err == nil {
		return um, nil
	}
	return m, nil
}

func hasModel(sess *session.Session, provider, id string) bool {
	for _, m := range sess.Models() {
		if m.Info.Provider == provider && m.Info.ID == id {
			return true
		}
	}
	return false
}

func cycleModel(ctx context.Context, sess *session.Session) (any, error) {
	models := sess.Models()
	if len(models) < 2 {
		return nullData{}, nil
	}
	st := sess.State()
	next := models[0]
	for i, m := range models {
		if st.Model != nil && m.Info == st.Model.Info {
			next = models[(i+1)%len(models)]
		}
	}
	m, err := sess.SetModel(ctx, next.Info.Provider, next.Info.ID)
	if err != nil {
		return nil, err
	}
	return object{{"model", toModelJSON(m)}, {"thinkingLevel", st.ThinkingLevel}, {"isScoped", false}}, nil
}
