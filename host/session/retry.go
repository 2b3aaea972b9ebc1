package session

import (
	"context"
	"regexp"
	"time"

	"github.com/wasmagent/wasmagent/host"
)

// RetryPolicy is pi's auto-retry: a run that ends on a transient model
// error (overloaded, rate limited, 5xx, connection lost) is continued
// again after BaseDelay, 2×BaseDelay, 4×… up to Max times. The failed
// message leaves the Agent's transcript; in the log the retry becomes a
// sibling branch of it, so a reload sees only the retried answer.
type RetryPolicy struct {
	Max       int // 0: no retries
	BaseDelay time.Duration
}

// DefaultRetry is pi's default: three retries from two seconds.
var DefaultRetry = RetryPolicy{Max: 3, BaseDelay: 2 * time.Second}

type retryState struct {
	off    bool
	cancel context.CancelFunc
	// attempt is the retry under way whose end is not told yet (0: none):
	// as pi, its auto_retry_end follows the first assistant message that
	// did not fail (retried), else the run's end.
	attempt int
}

// transient matches the error texts pi retries: pi-coding-agent 0.73.1's
// list (_isRetryableError), and the words wasmagent's own adapters use
// for the same failures (529, a connection reset or closed mid-response,
// a response cut off).
var transient = regexp.MustCompile(`(?i)overloaded|provider.?returned.?error|rate.?limit|too many requests|429|500|502|503|504|service.?unavailable|server.?error|internal.?error|network.?error|connection.?error|connection.?refused|connection.?lost|websocket.?closed|websocket.?error|other side closed|fetch failed|upstream.?connect|reset before headers|socket hang up|ended without|http2 request did not get a response|timed? out|timeout|terminated|retry delay` +
	`|\b529\b|connection.?reset|ECONNRESET|connection closed|cut off`)

// where is the request a model adapter names at the end of its error
// text, "(POST https://host/v1/chat/completions, redirected to …, 3
// attempts)" (host/openai, docs/model-errors.md). It is left out of the
// match: a URL's path or host (".../500/...", "ratelimit.example") says
// nothing about whether the failure was transient.
var where = regexp.MustCompile(`\s\((?:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) [^()\s]+(?:, redirected to [^()\s]+)?(?:, \d+ attempts)?\)$`)

// isTransient reports whether an error text is one pi retries.
func isTransient(text string) bool {
	return transient.MatchString(where.ReplaceAllString(text, ""))
}

// SetAutoRetry turns auto-retry on or off.
func (s *Session) SetAutoRetry(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.retry.off = !on
}

// AbortRetry cancels a retry being waited for; the run ends with the
// error it had.
func (s *Session) AbortRetry() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.retry.cancel != nil {
		s.retry.cancel()
	}
}

// retrying runs f, then continues the run while it ended on a transient
// error and the policy allows.
func (s *Session) retrying(ctx context.Context, f func(context.Context) error) error {
	err := f(ctx)
	p := s.opts.Retry
	for attempt := 1; ; attempt++ {
		failed := s.transientFailure()
		s.mu.Lock()
		off := s.retry.off || p.Max <= 0
		s.mu.Unlock()
		if err != nil || failed == "" || off || ctx.Err() != nil {
			if n := s.takeRetry(); n > 0 {
				end := AutoRetryEndEvent{Success: failed == "" && err == nil, Attempt: n}
				if !end.Success {
					end.FinalError = failed
				}
				s.emit(ctx, end)
			}
			return err
		}
		if attempt > p.Max {
			s.takeRetry()
			s.emit(ctx, AutoRetryEndEvent{Attempt: attempt - 1, FinalError: failed})
			return nil
		}
		delay := p.BaseDelay << (attempt - 1)
		s.emit(ctx, AutoRetryStartEvent{Attempt: attempt, MaxAttempts: p.Max, DelayMs: delay.Milliseconds(), ErrorMessage: failed})
		// as pi: the failed message leaves the transcript as the wait
		// begins (get_state's messageCount during it), cancelled or not
		s.dropLast()
		if !s.wait(ctx, delay) {
			s.takeRetry()
			s.emit(ctx, AutoRetryEndEvent{Attempt: attempt, FinalError: "Retry cancelled"})
			return nil
		}
		s.mu.Lock()
		s.retry.attempt = attempt
		s.mu.Unlock()
		err = s.agent.Continue(ctx)
	}
}

// takeRetry returns the retry whose end is not told yet, and forgets it.
func (s *Session) takeRetry() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.retry.attempt
	s.retry.attempt = 0
	return n
}

// retriedAnswer tells, as pi, the end of a retry at the first assistant
// message after it that did not fail.
func (s *Session) retriedAnswer(ctx context.Context, e host.Event) error {
	end, ok := e.(host.MessageEndEvent)
	if !ok {
		return nil
	}
	if m, ok := end.Message.(*host.AssistantMessage); !ok || m.StopReason == host.StopReasonError {
		return nil
	}
	if n := s.takeRetry(); n > 0 {
		return s.emit(ctx, AutoRetryEndEvent{Success: true, Attempt: n})
	}
	return nil
}

// transientFailure returns the error text of a last assistant message
// that failed transiently, or "".
func (s *Session) transientFailure() string {
	msgs := s.agent.State().Messages
	if len(msgs) == 0 {
		return ""
	}
	m, ok := msgs[len(msgs)-1].(*host.AssistantMessage)
	if !ok || m.StopReason != host.StopReasonError || !isTransient(m.ErrorMessage) {
		return ""
	}
	return m.ErrorMessage
}

func (s *Session) wait(ctx context.Context, d time.Duration) bool {
	ctx, cancel := context.WithCancel(ctx)
	s.mu.Lock()
	s.retry.cancel = cancel
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.retry.cancel = nil
		s.mu.Unlock()
		cancel()
	}()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// dropLast removes the failed message from the Agent and moves the leaf
// back to its parent, so the retry branches off beside it.
func (s *Session) dropLast() {
	msgs := s.agent.State().Messages
	s.agent.SetMessages(msgs[:len(msgs)-1])
	s.mu.Lock()
	defer s.mu.Unlock()
	s.persisted--
	for _, e := range s.entries {
		if e.ID == s.leaf {
			s.leaf = e.ParentID
			break
		}
	}
}
