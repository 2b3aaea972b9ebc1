package session_test

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/scripted"
	"github.com/wasmagent/wasmagent/host/session"
)

// Commands from many goroutines while runs go on (run it with -race): the
// session stays consistent, and the file holds exactly the transcript.
func TestSessionHammer(t *testing.T) {
	ctx := context.Background()
	turns := make([]scripted.Turn, 200)
	for i := range turns {
		turns[i] = scripted.Turn{Content: host.Text(fmt.Sprintf("answer %d", i))}
	}
	s := session.New(opts(t, t.TempDir(), scripted.Of(turns...)))
	defer s.Close()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 10 {
				m := &host.UserMessage{Content: host.Text(fmt.Sprintf("g%d-%d", g, i))}
				switch i % 3 {
				case 0:
					s.Prompt(ctx, m, session.FollowUp)
				case 1:
					s.Prompt(ctx, m, session.Steer)
				default:
					s.SetName(ctx, m.Content.TextOf())
				}
				s.State()
				s.Messages()
				s.ForkPoints()
			}
		}()
	}
	wg.Wait()
	for n := 0; s.Busy() || s.State().PendingMessageCount > 0; n++ {
		if n > 100 {
			t.Fatalf("queued messages never delivered: %+v", s.State())
		}
		s.Wait(ctx)
		if !s.Busy() && s.State().PendingMessageCount > 0 {
			s.Continue(ctx)
		}
	}
	s.Wait(ctx)
	want := mustJSON(t, s.Messages())
	data, _ := os.ReadFile(s.State().SessionFile)
	tr, err := session.Decode(data)
	if err != nil || len(tr.Warnings) > 0 {
		t.Fatalf("%v %v", err, tr.Warnings)
	}
	if got := mustJSON(t, tr.View(tr.Leaf()).Messages); got != want {
		t.Fatalf("file\n%s\nmemory\n%s", got, want)
	}
}
