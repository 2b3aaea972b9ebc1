package serve

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

func TestSessionsQuota(t *testing.T) {
	h := newHarness(t, harnessOpts{tokens: twoTokens(t), quota: Quota{Sessions: 2}})
	a1 := h.create(tokenA)
	h.create(tokenA)
	code, data, hdr := h.do("POST", "/v1/sessions", tokenA, "")
	if code != 429 || !strings.Contains(string(data), "2 sessions") || !strings.Contains(string(data), "delete one") || hdr.Get("Retry-After") == "" {
		t.Errorf("past the sessions quota: %d %s (Retry-After %q)", code, data, hdr.Get("Retry-After"))
	}
	h.create(tokenB) // another token's quota is its own
	h.must(204, "DELETE", "/v1/sessions/"+a1, tokenA, "")
	h.create(tokenA)
}

func TestRunsQuota(t *testing.T) {
	h := newHarness(t, harnessOpts{tokens: twoTokens(t), quota: Quota{Runs: 1}})
	a1, a2 := h.create(tokenA), h.create(tokenA)
	ev := h.openEvents(a1, tokenA, "")
	defer ev.close()
	h.must(202, "POST", "/v1/sessions/"+a1+"/prompt", tokenA, `{"message":"call 1 400"}`)
	ev.until(t, "tool_execution_start")
	code, data, hdr := h.do("POST", "/v1/sessions/"+a2+"/prompt", tokenA, `{"message":"x"}`)
	if code != 429 || hdr.Get("Retry-After") == "" || !strings.Contains(string(data), "at most 1 run at once for this token") {
		t.Fatalf("second run: %d %s (Retry-After %q)", code, data, hdr.Get("Retry-After"))
	}
	// Steering the running one is not a new run.
	h.must(202, "POST", "/v1/sessions/"+a1+"/steer", tokenA, `{"message":"more"}`)
	b := h.create(tokenB)
	h.must(202, "POST", "/v1/sessions/"+b+"/prompt", tokenB, `{"message":"x"}`)
	ev.until(t, "agent_end")
	h.waitIdle(a1, tokenA)
	h.must(202, "POST", "/v1/sessions/"+a2+"/prompt", tokenA, `{"message":"x"}`)
}

func TestToolCallsQuota(t *testing.T) {
	h := newHarness(t, harnessOpts{quota: Quota{ToolCallsPerMinute: 3}})
	id := h.create("")
	ev := h.openEvents(id, "", "")
	defer ev.close()
	h.must(202, "POST", "/v1/sessions/"+id+"/prompt", "", `{"message":"call 5"}`)
	blocked, ran := 0, 0
	for _, e := range ev.until(t, "agent_end") {
		var x struct {
			Type    string
			IsError bool
			Result  struct{ Content []struct{ Text string } }
		}
		json.Unmarshal([]byte(e.Data), &x)
		if x.Type != "tool_execution_end" {
			continue
		}
		if x.IsError && strings.Contains(x.Result.Content[0].Text, "3 tool calls per minute") {
			blocked++
		} else {
			ran++
		}
	}
	if ran != 3 || blocked != 2 {
		t.Fatalf("%d calls ran, %d blocked; want 3 and 2", ran, blocked)
	}
	h.waitIdle(id, "")
	code, data, hdr := h.do("POST", "/v1/sessions/"+id+"/prompt", "", `{"message":"again"}`)
	secs, _ := strconv.Atoi(hdr.Get("Retry-After"))
	if code != 429 || secs < 1 || secs > 60 || !strings.Contains(string(data), "tool calls per minute") {
		t.Fatalf("prompt past the tool-call quota: %d %s (Retry-After %q)", code, data, hdr.Get("Retry-After"))
	}
}

func TestSizeCaps(t *testing.T) {
	h := newHarness(t, harnessOpts{server: func(o *Options) { o.MaxBodyBytes, o.MaxPromptBytes = 4096, 1000 }})
	id := h.create("")
	big := strings.Repeat("x", 1001)
	h.mustError(413, "too_large", "POST", "/v1/sessions/"+id+"/prompt", "", `{"message":"`+big+`"}`)
	h.mustError(413, "too_large", "POST", "/v1/sessions/"+id+"/steer", "", `{"message":"x","images":[{"type":"image","mimeType":"image/png","data":"`+big+`"}]}`)
	h.mustError(413, "too_large", "POST", "/v1/sessions", "", `{"systemPrompt":"`+big+`"}`)
	h.mustError(413, "too_large", "POST", "/v1/sessions/"+id+"/prompt", "", `{"message":"`+strings.Repeat("y", 5000)+`"}`)
	h.must(202, "POST", "/v1/sessions/"+id+"/prompt", "", `{"message":"`+big[:1000]+`"}`)
}

// A client that sees its session idle (GET says not streaming, as pi's
// isStreaming after agent_end) may start the next run at once: the
// finishing run is not counted against the runs quota.
func TestRunsQuotaFreeWhenIdle(t *testing.T) {
	h := newHarness(t, harnessOpts{tokens: twoTokens(t), quota: Quota{Runs: 1}})
	a, b := h.create(tokenA), h.create(tokenA)
	for i := range 30 {
		h.must(202, "POST", "/v1/sessions/"+a+"/prompt", tokenA, `{"message":"x"}`)
		h.waitIdle(a, tokenA)
		if code, data, _ := h.do("POST", "/v1/sessions/"+b+"/prompt", tokenA, `{"message":"y"}`); code != 202 {
			t.Fatalf("run %d: another session's prompt once the first was idle: %d %s", i, code, data)
		}
		h.waitIdle(b, tokenA)
		a, b = b, a
	}
}
