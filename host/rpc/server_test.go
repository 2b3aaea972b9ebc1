package rpc_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/hosttest"
	"github.com/wasmagent/wasmagent/host/rpc"
	"github.com/wasmagent/wasmagent/host/scripted"
	"github.com/wasmagent/wasmagent/host/session"
)

type client struct {
	t   *testing.T
	in  *io.PipeWriter
	out chan map[string]any
	// pending are lines read while looking for another: a command's
	// response may come before or after the events its run sends (as in
	// pi), so waiting for one never loses the other.
	pending []map[string]any
}

func start(t *testing.T, m host.Model, tools ...host.Tool) *client {
	return startAgent(t, host.AgentOptions{Model: m, Tools: tools})
}

// startAgent serves a session whose Agent has options o.
func startAgent(t *testing.T, o host.AgentOptions) *client {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	sess := session.New(session.Options{Store: &session.FileStore{Dir: t.TempDir(), NoSync: true}, Agent: o,
		Models: []session.Model{{Info: host.ModelInfo{API: "scripted", Provider: "scripted", ID: "scripted-1"}, Model: o.Model}}})
	done := make(chan error, 1)
	go func() { done <- rpc.Serve(context.Background(), sess, inR, outW, rpc.Options{}); outW.Close() }()
	c := &client{t: t, in: inW, out: make(chan map[string]any, 1000)}
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			var v map[string]any
			if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
				t.Errorf("output line is not JSON: %q", sc.Text())
			}
			c.out <- v
		}
		close(c.out)
	}()
	t.Cleanup(func() {
		inW.Close()
		if err := <-done; err != nil {
			t.Error(err)
		}
		sess.Close()
	})
	return c
}

func (c *client) send(line string) { c.in.Write([]byte(line)) }

// next returns the next line for which keep is true.
// next returns the first line keep accepts, looking first at lines read
// before. Finding an event forgets the events before it (as a client
// that read past them would) but keeps responses; finding a response
// forgets nothing else, since the events of its run may have come first.
// Its deadline only tells a hang from slowness: a line that comes at all
// comes in well under a second on an idle machine, but under the race
// detector on a loaded one a 200 KB argument's run took 10 s, the old
// deadline (TestAskShowsCleanText failed so in make test).
func (c *client) next(keep func(map[string]any) bool) map[string]any {
	c.t.Helper()
	for i, v := range c.pending {
		if keep(v) {
			c.forget(v, i)
			return v
		}
	}
	timeout := time.After(time.Minute)
	for {
		select {
		case v, ok := <-c.out:
			if !ok {
				c.t.Fatal("output ended")
			}
			if keep(v) {
				c.forget(v, len(c.pending))
				return v
			}
			c.pending = append(c.pending, v)
		case <-timeout:
			c.t.Fatal("timed out")
		}
	}
}

// forget drops what finding v, at index i of pending (or past its end),
// has read past.
func (c *client) forget(v map[string]any, i int) {
	if v["type"] == "response" {
		if i < len(c.pending) {
			c.pending = slices.Delete(c.pending, i, i+1)
		}
		return
	}
	var kept []map[string]any
	for j, p := range c.pending {
		if j < i && p["type"] == "response" || j > i {
			kept = append(kept, p)
		}
	}
	c.pending = kept
}

func response(id string) func(map[string]any) bool {
	return func(v map[string]any) bool { return v["type"] == "response" && v["id"] == id }
}

func event(typ string) func(map[string]any) bool {
	return func(v map[string]any) bool { return v["type"] == typ }
}

// Bad input is answered with success false and a reason; the session goes
// on and answers the next command.
func TestBadInputKeepsGoing(t *testing.T) {
	c := start(t, scripted.Of(scripted.Turn{Content: host.Text("hi")}))
	for _, tc := range []struct{ line, want string }{
		{"{not json\n", "Failed to parse command"},
		{"[1,2]\n", "Failed to parse command"},
		{`{"id":"a","type":"nope"}` + "\n", "Unknown command: nope"},
		{`{"id":"b","type":"prompt"}` + "\n", `needs "message"`},
		{`{"id":"c","type":"prompt","message":7}` + "\n", `field "message"`},
		{`{"id":"d","type":"set_steering_mode","mode":"sometimes"}` + "\n", "not \"all\""},
		{`{"id":"e","type":"compact"}` + "\n", "not supported"},
		{`{"id":"f","type":"fork","entryId":"zz"}` + "\n", "Invalid entry ID for forking"}, // pi's words
		{`{"id":{"x":1},"type":"get_state"}` + "\n", `field "id"`},
		{"\n", "empty line"},
	} {
		c.send(tc.line)
		r := c.next(event("response"))
		if r["success"] != false || !strings.Contains(r["error"].(string), tc.want) {
			t.Errorf("%q: %v", tc.line, r)
		}
	}
	c.send(`{"id":"ok","type":"get_state"}` + "\r\n")
	if r := c.next(response("ok")); r["success"] != true {
		t.Fatal(r)
	}
}

// A text with U+2028 and U+2029 is one record: framing is LF only.
func TestUnicodeSeparatorsAreText(t *testing.T) {
	c := start(t, scripted.Of(scripted.Turn{Content: host.Text("ok")}))
	c.send("{\"id\":\"p\",\"type\":\"prompt\",\"message\":\"a\u2028b\u2029c\"}\n")
	if r := c.next(response("p")); r["success"] != true {
		t.Fatal(r)
	}
	c.next(event("agent_end"))
	c.send(`{"id":"m","type":"get_messages"}` + "\n")
	msgs := c.next(response("m"))["data"].(map[string]any)["messages"].([]any)
	text := msgs[0].(map[string]any)["content"].([]any)[0].(map[string]any)["text"]
	if text != "a\u2028b\u2029c" {
		t.Fatalf("%q", text)
	}
}

// A prompt while the agent works needs a streamingBehavior; with one it
// is queued, reported by queue_update, and delivered.
func TestPromptWhileStreaming(t *testing.T) {
	release := make(chan struct{})
	slow := hosttest.Tool("slow", "", func(ctx context.Context, _ string, _ json.RawMessage, _ host.UpdateFunc) (host.ToolResult, error) {
		<-release
		return host.ToolResult{Content: host.Text("slept")}, nil
	})
	c := start(t, scripted.Of(
		scripted.Turn{Content: host.Contents{host.ToolCall{ID: "s", Name: "slow", Arguments: json.RawMessage(`{}`)}}},
		scripted.Turn{Content: host.Text("after steering")},
		scripted.Turn{Content: host.Text("after follow-up")},
	), slow)
	c.send(`{"id":"1","type":"prompt","message":"go"}` + "\n")
	c.next(response("1"))
	c.next(event("tool_execution_start"))
	c.send(`{"id":"2","type":"prompt","message":"again"}` + "\n")
	if r := c.next(response("2")); r["success"] != false {
		t.Fatal(r)
	}
	c.send(`{"id":"3","type":"prompt","message":"steer me","streamingBehavior":"steer"}` + "\n")
	q := c.next(event("queue_update"))
	if q["steering"].([]any)[0] != "steer me" {
		t.Fatal(q)
	}
	c.send(`{"id":"4","type":"follow_up","message":"then this"}` + "\n")
	c.next(response("4"))
	c.send(`{"id":"5","type":"get_state"}` + "\n")
	st := c.next(response("5"))["data"].(map[string]any)
	if st["isStreaming"] != true || st["pendingMessageCount"] != float64(2) {
		t.Fatal(st)
	}
	close(release)
	end := c.next(event("agent_end"))
	var roles []string
	for _, m := range end["messages"].([]any) {
		roles = append(roles, m.(map[string]any)["role"].(string))
	}
	if strings.Join(roles, ",") != "user,assistant,toolResult,user,assistant,user,assistant" {
		t.Fatal(roles)
	}
	c.send(`{"id":"6","type":"get_last_assistant_text"}` + "\n")
	if r := c.next(response("6")); r["data"].(map[string]any)["text"] != "after follow-up" {
		t.Fatal(r)
	}
	c.send(`{"id":"7","type":"get_session_stats"}` + "\n")
	if r := c.next(response("7")); r["data"].(map[string]any)["toolCalls"] != float64(1) {
		t.Fatal(r)
	}
}

// Abort ends the run; the response comes once it has ended.
func TestAbort(t *testing.T) {
	slow := hosttest.Tool("slow", "", func(ctx context.Context, _ string, _ json.RawMessage, _ host.UpdateFunc) (host.ToolResult, error) {
		<-ctx.Done()
		return host.ToolResult{}, ctx.Err()
	})
	c := start(t, scripted.Of(scripted.Turn{Content: host.Contents{host.ToolCall{ID: "s", Name: "slow", Arguments: json.RawMessage(`{}`)}}}), slow)
	c.send(`{"id":"1","type":"prompt","message":"go"}` + "\n")
	c.next(event("tool_execution_start"))
	c.send(`{"id":"2","type":"abort"}` + "\n")
	c.next(event("agent_end"))
	if r := c.next(response("2")); r["success"] != true {
		t.Fatal(r)
	}
	c.send(`{"id":"3","type":"get_state"}` + "\n")
	if st := c.next(response("3"))["data"].(map[string]any); st["isStreaming"] != false {
		t.Fatal(st)
	}
}

// A transient model error is retried, with pi's auto_retry events.
func TestAutoRetry(t *testing.T) {
	m := scripted.Of(scripted.Turn{Throw: "429 rate limit exceeded"}, scripted.Turn{Content: host.Text("fine")})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	sess := session.New(session.Options{Agent: host.AgentOptions{Model: m}, Retry: session.RetryPolicy{Max: 2, BaseDelay: time.Millisecond}})
	go rpc.Serve(context.Background(), sess, inR, outW, rpc.Options{})
	defer inW.Close()
	go inW.Write([]byte(`{"type":"prompt","message":"go"}` + "\n"))
	sc := bufio.NewScanner(outR)
	var types []string
	for sc.Scan() {
		var v map[string]any
		json.Unmarshal(sc.Bytes(), &v)
		types = append(types, v["type"].(string))
		if v["type"] == "auto_retry_end" && v["success"] != true {
			t.Fatal(v)
		}
		if strings.Count(strings.Join(types, " "), "agent_end") == 2 {
			break
		}
	}
	// as pi: the retry's end is told right after the retried answer
	got := strings.Join(types, " ")
	if !strings.Contains(got, "agent_end auto_retry_start") || !strings.HasSuffix(got, "message_end auto_retry_end turn_end agent_end") {
		t.Fatal(got)
	}
	if msgs := sess.Messages(); len(msgs) != 2 || msgs[1].(*host.AssistantMessage).Content.TextOf() != "fine" {
		t.Fatalf("%d messages", len(msgs))
	}
}

// Images of a prompt reach the transcript as image blocks after the text.
func TestPromptWithImages(t *testing.T) {
	c := start(t, scripted.Of(scripted.Turn{Content: host.Text("a cat")}))
	c.send(`{"id":"p","type":"prompt","message":"what is it?","images":[{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}]}` + "\n")
	c.next(response("p"))
	c.next(event("agent_end"))
	c.send(`{"id":"m","type":"get_messages"}` + "\n")
	msgs := c.next(response("m"))["data"].(map[string]any)["messages"].([]any)
	content := msgs[0].(map[string]any)["content"].([]any)
	if len(content) != 2 || content[1].(map[string]any)["type"] != "image" || content[1].(map[string]any)["mimeType"] != "image/png" {
		t.Fatalf("%v", content)
	}
	c.send(`{"id":"bad","type":"prompt","message":"x","images":[{"type":"image"}]}` + "\n")
	if r := c.next(response("bad")); r["success"] != false {
		t.Fatal(r)
	}
}

// new_session, switch_session (by id prefix) and fork move between
// sessions; the transcript follows.
func TestSessionCommands(t *testing.T) {
	c := start(t, scripted.Of(scripted.Turn{Content: host.Text("one")}, scripted.Turn{Content: host.Text("two")}, scripted.Turn{Content: host.Text("three")}))
	state := func(id string) map[string]any {
		c.send(`{"id":"` + id + `","type":"get_state"}` + "\n")
		return c.next(response(id))["data"].(map[string]any)
	}
	c.send(`{"id":"p1","type":"prompt","message":"first"}` + "\n")
	c.next(event("agent_end"))
	first := state("s1")["sessionId"].(string)
	c.send(`{"id":"n","type":"new_session"}` + "\n")
	if r := c.next(response("n")); r["success"] != true || r["data"].(map[string]any)["cancelled"] != false {
		t.Fatal(r)
	}
	if st := state("s2"); st["messageCount"] != float64(0) || st["sessionId"] == first {
		t.Fatal(st)
	}
	c.send(`{"id":"p2","type":"prompt","message":"second"}` + "\n")
	c.next(event("agent_end"))
	c.send(`{"id":"sw","type":"switch_session","sessionPath":"` + first[:20] + `"}` + "\n")
	if r := c.next(response("sw")); r["success"] != true {
		t.Fatal(r)
	}
	if st := state("s3"); st["sessionId"] != first || st["messageCount"] != float64(2) {
		t.Fatal(st)
	}
	c.send(`{"id":"fm","type":"get_fork_messages"}` + "\n")
	points := c.next(response("fm"))["data"].(map[string]any)["messages"].([]any)
	entry := points[0].(map[string]any)["entryId"].(string)
	c.send(`{"id":"f","type":"fork","entryId":"` + entry + `"}` + "\n")
	if r := c.next(response("f")); r["data"].(map[string]any)["text"] != "first" {
		t.Fatal(r)
	}
	if st := state("s4"); st["sessionId"] == first || st["messageCount"] != float64(0) {
		t.Fatal(st)
	}
}
