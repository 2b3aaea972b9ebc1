package host

import (
	"errors"
	"sync"
)

// streamResponse is pi's streamAssistantResponse: it builds the request,
// streams the model's answer as message_start/update/end and returns the
// final message, which is also the last message of r.c.
func (r *run) streamResponse() (*AssistantMessage, error) {
	req, err := r.request()
	if err != nil {
		return nil, err
	}
	if r.cfg.Model == nil { // after the transform and the converter, as in pi
		return nil, ErrNoModel
	}
	s := &responseStream{r: r}
	ctx, end := observe(r.cfg.Observer, r.ctx, r.modelStage())
	final, err := safely("model", func() (*AssistantMessage, error) {
		return r.cfg.Model.Stream(ctx, req, s.handle), nil
	})
	defer func() { end(modelEnd(s.final, final, err)) }()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	if err != nil {
		return nil, err
	}
	if s.err != nil {
		return nil, s.err
	}
	if s.final != nil {
		return s.final, nil
	}
	if final == nil {
		return nil, errors.New("model returned no message")
	}
	return final, s.end(final)
}

func (r *run) request() (*Request, error) {
	messages := r.c.Messages
	var err error
	if r.cfg.TransformContext != nil {
		messages, err = safely("TransformContext", func() ([]Message, error) {
			return r.cfg.TransformContext(r.ctx, messages)
		})
		if err != nil {
			return nil, err
		}
	}
	if r.cfg.ConvertToLLM != nil {
		messages, err = safely("ConvertToLLM", func() ([]Message, error) {
			return r.cfg.ConvertToLLM(r.ctx, messages)
		})
		if err != nil {
			return nil, err
		}
	} else {
		messages = DefaultConvertToLLM(messages)
	}
	return &Request{
		SystemPrompt: r.c.SystemPrompt,
		Messages:     messages,
		Tools:        ToolSpecs(r.c.Tools),
		Reasoning:    r.cfg.Reasoning,
	}, nil
}

// responseStream maps the model's events onto agent events (docs/loop.md 5.3).
type responseStream struct {
	r *run

	mu      sync.Mutex
	partial *AssistantMessage // nil until "start"
	final   *AssistantMessage // set by "done"/"error"
	err     error             // the sink's
	closed  bool              // Stream returned, or the message ended
}

func (s *responseStream) handle(e AssistantMessageEvent) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.err != nil {
		return
	}
	switch {
	case e.Type == StreamStart && e.Partial != nil:
		// A second start is a new message_start, its partial appended
		// after the first (which stays in the run's transcript): pi does
		// the same.
		s.partial = e.Partial.Clone()
		s.r.c.Messages = append(s.r.c.Messages, s.partial)
		s.err = s.r.em.emit(MessageStartEvent{Message: s.partial.Clone()})
	case e.isBlockEvent() && s.partial != nil:
		if e.Partial != nil {
			s.partial = e.Partial.Clone()
			s.r.c.Messages[len(s.r.c.Messages)-1] = s.partial
		}
		s.err = s.r.em.emit(MessageUpdateEvent{AssistantMessageEvent: e, Message: s.partial.Clone()})
	case e.Type == StreamDone && e.Message != nil, e.Type == StreamError && e.Error != nil:
		final := e.Message
		if e.Type == StreamError {
			final = e.Error
		}
		s.closed = true
		s.final = final
		s.err = s.end(final)
	}
}

// end records the final message and emits its message_end (and its
// message_start when the model sent no "start").
func (s *responseStream) end(final *AssistantMessage) error {
	if s.partial != nil {
		s.r.c.Messages[len(s.r.c.Messages)-1] = final
		return s.r.em.emit(MessageEndEvent{Message: final})
	}
	s.r.c.Messages = append(s.r.c.Messages, final)
	start := final.Clone()
	return s.r.emitAll(MessageStartEvent{Message: start}, MessageEndEvent{Message: final})
}
