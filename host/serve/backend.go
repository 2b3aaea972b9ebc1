package serve

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/internal/words"
)

// Backend is the session layer the HTTP server talks to: the commands of
// host/session, per owner, and a journal of each session's events. The
// local backend ([Local]) keeps sessions in host/session's file store on
// this machine; another (host/cluster) may keep them in a replicated
// stream. The server depends on this interface only, and a backend knows
// nothing of HTTP.
//
// Contract:
//
//  1. Ownership. Every call carries the caller ([Caller]): its owner (the
//     name of the bearer token, or [LocalOwner] when auth is off) and its
//     quotas. A session belongs to the owner that created it, forever. A
//     session of another owner does not exist for the caller: every call
//     on it fails with [ErrNotFound], exactly as for an id never made, so
//     that ids leak nothing.
//  2. Ids. Session ids are the session header's id (a UUIDv7, as pi's);
//     event ids are opaque strings the backend makes, unique within a
//     session and stable for its life, across restarts (the local
//     backend: decimal sequence numbers from 1). Clients hand them back
//     only through [Backend.Events]' after argument.
//  3. Events. A session's events are exactly the JSON objects "wasmagent
//     run --json" prints (host/eventwire, within its byte budget, and the
//     session's own queue_update and auto_retry_* events), in the order
//     the session emitted them. Each is in the session's journal before
//     any stream delivers it: a client that saw event N can always resume
//     after N. A stream delivers every event after the one it starts from,
//     once each, in order, and then follows the session live; it reads at
//     its own pace (a slow client delays nobody and loses nothing). Each
//     event carries the time the session emitted it, kept with it, so a
//     replay can draw a past run's timeline.
//  4. Durability. A session is stored from its first message (the file
//     store creates the file then); one created and never prompted may be
//     forgotten when the process stops. Messages are durable at their
//     message_end (host/session's rule 1). Journal events survive the
//     death of the process as soon as a stream may see them, and the
//     death of the machine at the end of each run (fsync at agent_end).
//  5. Commands. Command runs one of pi's RPC commands — prompt, steer,
//     follow_up, abort — with the same JSON and semantics (docs/rpc.md):
//     a prompt returns once accepted and its run goes on in the
//     background, its events in the journal; abort returns when the run
//     has stopped.
//  6. Disconnects. A caller that goes away (its ctx done, its stream
//     closed) changes nothing in the session: runs go on without
//     watchers; their events wait in the journal.
//  7. Quotas. The backend enforces the caller's [Quota], since it holds
//     the counts: Create fails with a [*QuotaError] when the owner has
//     Sessions sessions; a prompt when it has Runs runs going or has used
//     its tool calls for the minute; a tool call past ToolCallsPerMinute
//     is blocked (the model is told why) and the run goes on.
//  8. Stopping. After Drain is called, Create and every command that
//     would start or extend a run fail with [ErrDraining]; abort and every
//     read still work. Drain waits for running runs to end until its ctx
//     is done, then aborts those left (their sessions record the tool
//     calls cut short as interrupted, docs/sessions.md) and waits for
//     them to stop. Close releases everything; calls after it fail.
type Backend interface {
	Create(ctx context.Context, c Caller, req CreateRequest) (SessionInfo, error)
	List(ctx context.Context, c Caller) ([]SessionInfo, error)
	Get(ctx context.Context, c Caller, id string) (SessionInfo, error)
	Delete(ctx context.Context, c Caller, id string) error
	Messages(ctx context.Context, c Caller, id string) ([]host.Message, error)
	Command(ctx context.Context, c Caller, id string, cmd Command) error
	// Events opens a stream of the session's events after the event id
	// after ("" for all of them, from the first).
	Events(ctx context.Context, c Caller, id, after string) (Stream, error)
	Drain(ctx context.Context) error
	Close() error
}

// Stream is a session's events from one point on.
type Stream interface {
	// Next returns the next event, waiting for it until ctx is done (then
	// it returns ctx's error and loses nothing: the next call returns the
	// same event). It returns [ErrGone] once the session is deleted or the
	// backend closed, after every event before that.
	Next(ctx context.Context) (Event, error)
	Close() error
}

// Event is one event of a session's journal.
type Event struct {
	ID   string    // opaque, see Backend's contract rule 2
	Data []byte    // one JSON object, as "wasmagent run --json" prints it
	Time time.Time // when the session emitted it (zero: unknown)
}

// LocalOwner owns every session when the server runs without tokens.
const LocalOwner = "local"

// Caller is who makes a call: the owner of the sessions it sees, and its
// quotas.
type Caller struct {
	Owner string
	Quota Quota
}

// Quota bounds what one owner may do; a zero field is no bound.
type Quota struct {
	Sessions           int // sessions kept at once
	Runs               int // runs going at once
	ToolCallsPerMinute int // tool calls started in any 60 s
}

// CreateRequest is the body of POST /v1/sessions; every field may be
// empty.
type CreateRequest struct {
	Name         string     `json:"name,omitempty"`
	SystemPrompt *string    `json:"systemPrompt,omitempty"` // nil: agent.toml's
	Model        *ModelSpec `json:"model,omitempty"`        // nil: agent.toml's first
}

// ModelSpec names one of the models agent.toml configures.
type ModelSpec struct {
	Provider string `json:"provider"`
	ModelID  string `json:"modelId"`
}

// Command is one session command: pi's RpcCommand prompt, steer,
// follow_up or abort (Type), with the fields those use.
type Command struct {
	Type              string              `json:"-"`
	Message           *string             `json:"message,omitempty"`
	Images            []host.ImageContent `json:"images,omitempty"`
	StreamingBehavior string              `json:"streamingBehavior,omitempty"`
}

// SessionInfo describes a session, as GET /v1/sessions/{id} returns it.
type SessionInfo struct {
	ID           string     `json:"id"`
	Name         string     `json:"name,omitempty"`
	Created      time.Time  `json:"created"`
	Modified     time.Time  `json:"modified"`
	MessageCount int        `json:"messageCount"`
	FirstMessage string     `json:"firstMessage,omitempty"`
	Model        *ModelSpec `json:"model,omitempty"`
	IsStreaming  bool       `json:"isStreaming"`
	// LastEventID is the id of the session's last event ("" when none):
	// GET …/events with Last-Event-ID set to it follows only what comes.
	LastEventID string `json:"lastEventId,omitempty"`
}

// Errors of a Backend. The server maps them to HTTP statuses.
var (
	ErrNotFound = errors.New("no such session")                                          // 404
	ErrBusy     = errors.New("the agent is working: wait for it to finish, or abort it") // 409
	ErrDraining = errors.New("the server is stopping and takes no new runs")             // 503
	ErrGone     = errors.New("the session's event stream has ended")                     // end of SSE
	ErrClosed   = errors.New("the backend is closed")                                    // 503
)

// InvalidError says a request is wrong: which field, and why (400).
type InvalidError struct {
	Field string // JSON field, "" for the whole body
	Msg   string
}

func (e *InvalidError) Error() string {
	if e.Field == "" {
		return e.Msg
	}
	return fmt.Sprintf("%s: %s", e.Field, e.Msg)
}

// QuotaError says a quota is used up (429), and when to try again.
type QuotaError struct {
	What       string // "sessions", "runs at once", "tool calls per minute"
	Limit      int
	RetryAfter time.Duration // zero: no time can be told
}

func (e *QuotaError) Error() string {
	msg := fmt.Sprintf("quota exceeded: at most %s for this token", quotaWords(e.Limit, e.What))
	if e.What == "sessions" {
		msg += " (delete one to make room)"
	}
	return msg
}

// quotaWords is limit and what, a plural ("tool calls per minute"), in
// words that agree: "1 tool call per minute".
func quotaWords(limit int, what string) string {
	ws := strings.Fields(what)
	for i, w := range ws {
		if len(w) > 2 && strings.HasSuffix(w, "s") {
			many := strings.Join(ws[:i+1], " ")
			return strings.TrimSpace(words.Count(limit, strings.TrimSuffix(many, "s")+"|"+many) + " " + strings.Join(ws[i+1:], " "))
		}
	}
	return fmt.Sprintf("%d %s", limit, what)
}

// sessionsRetry is the Retry-After of the sessions quota: no wait frees
// a session, but every 429 tells clients when to ask again.
const sessionsRetry = time.Minute
