package serve

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
)

// TestHammer: two tokens drive sessions at once — create, watch, prompt,
// steer, read, list, delete some mid-run — and every session left has a
// whole transcript, every deleted one is gone, and no stream saw an id
// twice or out of order.
func TestHammer(t *testing.T) {
	h := newHarness(t, harnessOpts{tokens: twoTokens(t)})
	const perToken = 8
	type result struct {
		id, token string
		deleted   bool
	}
	results := make(chan result, 2*perToken)
	var wg sync.WaitGroup
	for _, tok := range []string{tokenA, tokenB} {
		for k := range perToken {
			wg.Add(1)
			go func() {
				defer wg.Done()
				id := h.create(tok)
				ev := h.openEvents(id, tok, "")
				defer ev.close()
				h.must(202, "POST", "/v1/sessions/"+id+"/prompt", tok, fmt.Sprintf(`{"message":"call %d 5"}`, 1+k%3))
				h.do("POST", "/v1/sessions/"+id+"/steer", tok, `{"message":"steer"}`)
				h.do("GET", "/v1/sessions", tok, "")
				h.do("GET", "/v1/sessions/"+id+"/messages", tok, "")
				del := rand.IntN(3) == 0
				if del {
					h.must(204, "DELETE", "/v1/sessions/"+id, tok, "")
				}
				last := 0
				for {
					e, err := ev.next()
					if err != nil {
						break // a deleted session's stream ends
					}
					var n int
					fmt.Sscan(e.ID, &n)
					if n != last+1 {
						t.Errorf("session %s: id %d after %d", id, n, last)
					}
					last = n
					if eventType(e.Data) == "agent_end" && !del {
						break
					}
				}
				results <- result{id, tok, del}
			}()
		}
	}
	wg.Wait()
	close(results)
	for r := range results {
		if r.deleted {
			h.must(404, "GET", "/v1/sessions/"+r.id, r.token, "")
			continue
		}
		info := h.waitIdle(r.id, r.token)
		var msgs struct{ Messages []struct{ Role string } }
		json.Unmarshal(h.must(200, "GET", "/v1/sessions/"+r.id+"/messages", r.token, ""), &msgs)
		// A steer may land before the first model request (then the model
		// answers it and calls no tool): at least user, user, assistant.
		if n := len(msgs.Messages); n < 3 || msgs.Messages[n-1].Role != "assistant" || info.MessageCount != n {
			t.Errorf("session %s: %d messages (info %d), last %+v", r.id, n, info.MessageCount, msgs.Messages[n-1])
		}
	}
}
