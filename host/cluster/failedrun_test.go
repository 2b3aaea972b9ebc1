package cluster

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/session"
)

// failingStore is a session store whose failAt-th append and the one
// after it (counted over every log it opened) fail, as a disk or a
// cluster that did not answer for a while would.
type failingStore struct {
	session.Store
	mu      sync.Mutex
	appends int
	failAt  int
}

type failingLog struct {
	session.Log
	st *failingStore
}

var errDiskGone = errors.New("the disk did not answer")

func (s *failingStore) Open(ctx context.Context, key string) (session.Log, *session.Transcript, error) {
	l, t, err := s.Store.Open(ctx, key)
	if err != nil {
		return nil, nil, err
	}
	return &failingLog{Log: l, st: s}, t, nil
}

func (l *failingLog) Append(ctx context.Context, entries ...session.Entry) error {
	l.st.mu.Lock()
	l.st.appends++
	fail := l.st.appends == l.st.failAt || l.st.appends == l.st.failAt+1
	l.st.mu.Unlock()
	if fail {
		return errDiskGone
	}
	return l.Log.Append(ctx, entries...)
}

// A run that fails for another reason than losing its session (here,
// two appends of its log in a row fail: the Agent's own catch-up at
// agent_end too) is not taken for a run that ended: the host says why,
// the session's work goes back to the queue, and the session is resumed
// from what was stored until its run ends. (It was: the runner found the
// session idle, acknowledged its work as done and said nothing, so the
// run stayed cut off mid-way. Seen as a host resumed from SIGSTOP that
// stayed silent: TestPausedHostIsFenced.)
func TestFailedRunIsResumed(t *testing.T) {
	url := startNATS(t)
	store := &failingStore{Store: &session.FileStore{Dir: t.TempDir()}}
	var mu sync.Mutex
	var warned []string
	ctx, cancel := context.WithCancel(context.Background())
	h, err := newMember(ctx, connect(t, url), memberConfig{Store: store, Options: testOptions(0), LeaseTTL: 2 * time.Second, Warn: func(s string) {
		mu.Lock()
		warned = append(warned, s)
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	h.times.retry = 50 * time.Millisecond
	done := make(chan struct{})
	go func() { h.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	for failAt := 1; failAt <= 2+2*toolCalls; failAt++ {
		// A session of its own; the store counts its appends from 0.
		id := fmt.Sprintf("0193a000-0000-7000-8000-0000000000%02x", 0xf0+failAt)
		createSession(t, store, id)
		store.mu.Lock()
		store.appends, store.failAt = 0, failAt
		store.mu.Unlock()
		mu.Lock()
		warned = nil
		mu.Unlock()
		if _, err := h.send(context.Background(), id, Command{Type: "prompt", Message: "hello"}); err != nil {
			t.Fatal(err)
		}
		// The run ends as it would have, or, when what failed was a
		// message the Agent could not go on without, with the Agent's
		// error answer naming the failure (pi's Agent ends a run that
		// threw so), stored.
		finished := func() bool {
			msgs := load(t, store, id)
			if len(msgs) == 0 {
				return false
			}
			last, ok := msgs[len(msgs)-1].(*host.AssistantMessage)
			return ok && (last.Content.TextOf() == "done: hello" ||
				last.StopReason == host.StopReasonError && strings.Contains(last.ErrorMessage, errDiskGone.Error()))
		}
		deadline := time.Now().Add(20 * time.Second)
		for !finished() && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		mu.Lock()
		said := strings.Join(warned, "\n")
		mu.Unlock()
		if !finished() {
			t.Fatalf("append %d failed: the run never ended: %d messages stored; the host said:\n%s", failAt, len(load(t, store, id)), said)
		}
		// What the host says follows the run's end by a moment.
		for !strings.Contains(said, errDiskGone.Error()) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
			mu.Lock()
			said = strings.Join(warned, "\n")
			mu.Unlock()
		}
		if !strings.Contains(said, errDiskGone.Error()) || !strings.Contains(said, "resumed") {
			t.Errorf("append %d failed: the host said %q, not what failed and what became of the session", failAt, said)
		}
	}
}
