package rpc_test

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/wasmagent/wasmagent/host/openai/openaitest"
)

// diffTurn is one answer of the scripted OpenAI-compatible server that
// both pi and wasmagent talk to in TestRPCMatchesPi.
type diffTurn struct {
	// Kind: "text", "thinking" (reasoning then text), "mixed" (reasoning,
	// text, reasoning, text, a call), "call" (a call to
	// a tool neither side has), "textcall" (text, then such a call),
	// "calls" (two such calls, their arguments interleaved), "badargs"
	// (a call whose arguments are not JSON), "error" (HTTP 500) or "cut"
	// (the connection drops mid-stream).
	Kind string `json:"kind"`
	Text string `json:"text,omitempty"`
	// Hold: the stream stops after its first chunk until the driver
	// releases it (or the client gives up on the request).
	Hold bool `json:"hold,omitempty"`
}

// diffServer answers the requests of each step with that step's turns in
// order (past them, a plain "done" text): a step's queued messages take
// as many turns as the side makes requests for them, and never the next
// step's.
type diffServer struct {
	srv     *httptest.Server
	mu      sync.Mutex
	steps   [][]diffTurn
	step, n int           // the current step, and its requests so far
	total   int           // requests so far (numbering the calls)
	release chan struct{} // closed to let the held stream go on
	// badArgs holds the ids of the calls whose arguments were not JSON
	badArgs map[string]bool
}

func newDiffServer(t testing.TB, steps [][]diffTurn) *diffServer {
	s := &diffServer{steps: steps, release: make(chan struct{}), badArgs: map[string]bool{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

// Step makes step i's turns the answers to the next requests.
func (s *diffServer) Step(i int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.step, s.n = i, 0
}

// Release lets the held stream go on; the next one is held again.
func (s *diffServer) BadArgs() map[string]bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.badArgs)
}

func (s *diffServer) Release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	close(s.release)
	s.release = make(chan struct{})
}

func (s *diffServer) serve(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	s.mu.Lock()
	i := s.total
	s.total++
	tr := diffTurn{Kind: "text", Text: "done"}
	if s.step < len(s.steps) && s.n < len(s.steps[s.step]) {
		tr = s.steps[s.step][s.n]
	}
	s.n++
	release := s.release
	if tr.Kind == "badargs" {
		s.badArgs[fmt.Sprintf("call_%d", i)] = true
	}
	s.mu.Unlock()
	if tr.Kind == "error" {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprintf(w, `{"error":{"message":%q,"type":"server_error"}}`, tr.Text)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	events := bytes.SplitAfter(turnBody(tr, i), []byte("\n\n"))
	for j, ev := range events {
		if len(ev) == 0 {
			continue
		}
		if tr.Kind == "cut" && j == len(events)/2 {
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler) // the connection drops
		}
		w.Write(ev)
		w.(http.Flusher).Flush()
		if j == 0 && tr.Hold {
			select {
			case <-release:
			case <-r.Context().Done():
				return
			}
		}
	}
}

// turnBody is the SSE body of turn i: its content in fragments, a usage
// chunk and [DONE].
func turnBody(tr diffTurn, i int) []byte {
	var st openaitest.Stream
	words := bytes.Fields([]byte(tr.Text))
	frag := func(add func(string) *openaitest.Stream) {
		for k, w := range words {
			if k > 0 {
				w = append([]byte(" "), w...)
			}
			add(string(w))
		}
	}
	finish := "stop"
	switch tr.Kind {
	case "thinking":
		frag(st.Reasoning)
		frag(st.Text)
	case "mixed":
		frag(st.Reasoning)
		frag(st.Text)
		st.Reasoning(" and more")
		st.Text(" and so")
		st.Call(0, fmt.Sprintf("call_%d", i), "nosuch")
		st.Args(0, `{}`)
		finish = "tool_calls"
	case "call", "textcall":
		if tr.Kind == "textcall" {
			frag(st.Text)
		}
		st.Call(0, fmt.Sprintf("call_%d", i), "nosuch")
		st.Args(0, `{"q":`)
		st.Args(0, fmt.Sprintf("%q}", tr.Text))
		finish = "tool_calls"
	case "calls":
		st.Call(0, fmt.Sprintf("call_%da", i), "nosuch")
		st.Call(1, fmt.Sprintf("call_%db", i), "other")
		st.Args(0, `{"q":`)
		st.Args(1, `{"n":[1,`)
		st.Args(0, fmt.Sprintf("%q}", tr.Text))
		st.Args(1, `2]}`)
		finish = "tool_calls"
	case "badargs":
		st.Call(0, fmt.Sprintf("call_%d", i), "nosuch")
		st.Args(0, `{"q": `+tr.Text)
		finish = "tool_calls"
	default:
		frag(st.Text)
	}
	body := st.Finish(finish).Bytes()
	usage := fmt.Sprintf(`data: {"id":"chatcmpl-T","object":"chat.completion.chunk","created":1764400001,"model":"test-model","choices":[],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`+"\n\n",
		10+i, 5+len(words), 15+i+len(words))
	done := bytes.LastIndex(body, []byte("data: [DONE]"))
	return append(append(bytes.Clone(body[:done]), usage...), body[done:]...)
}
