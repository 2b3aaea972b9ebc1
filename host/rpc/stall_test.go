package rpc_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/rpc"
	"github.com/wasmagent/wasmagent/host/scripted"
	"github.com/wasmagent/wasmagent/host/session"
)

// stallSession is a session whose model streams its answer slowly, token
// by token, so that a run is going when the client misbehaves.
func stallSession(t *testing.T, store *session.FileStore) *session.Session {
	m := scripted.New(&scripted.Script{ChunkTokens: 1, Turns: []scripted.Turn{{ChunkDelayMs: 5, Content: host.Contents{host.TextContent{Text: "one two three four five six seven eight nine ten eleven twelve"}}}}})
	return session.New(session.Options{Store: store, Agent: host.AgentOptions{Model: m},
		Models: []session.Model{{Info: host.ModelInfo{API: "scripted", Provider: "scripted", ID: "scripted-1"}, Model: m}}})
}

// A client that stops reading stdout cannot keep Serve from ending: told
// to stop (its ctx done: SIGTERM) or with its input ended, Serve aborts
// the run and returns once the grace is over, though the output is never
// read (on the old main it blocked for ever on the pipe, and so did the
// process).
func TestStalledClientCannotHoldServe(t *testing.T) {
	for _, how := range []string{"ctx", "input"} {
		t.Run(how, func(t *testing.T) {
			sess := stallSession(t, &session.FileStore{Dir: t.TempDir(), NoSync: true})
			defer sess.Close()
			inR, inW := io.Pipe()
			_, outW := io.Pipe() // nobody reads it
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() {
				done <- rpc.Serve(ctx, sess, inR, outW, rpc.Options{StopGrace: 50 * time.Millisecond})
			}()
			go func() {
				io.WriteString(inW, `{"id":"p","type":"prompt","message":"hi"}`+"\n")
				if how == "input" {
					inW.Close()
					return
				}
				// More commands than the pipe holds, then the signal.
				io.WriteString(inW, `{"id":"s","type":"get_state"}`+"\n")
				time.Sleep(20 * time.Millisecond)
				cancel()
			}()
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("Serve: %v", err)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("Serve did not return while its client did not read")
			}
		})
	}
}

// A client that reads but closes its input while a run streams gets every
// line up to the run's agent_end, and the session keeps the messages that
// ended, as pi's process does at the end of its input.
func TestInputClosedMidRun(t *testing.T) {
	store := &session.FileStore{Dir: t.TempDir(), NoSync: true}
	sess := stallSession(t, store)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- rpc.Serve(context.Background(), sess, inR, outW, rpc.Options{}); outW.Close() }()
	io.WriteString(inW, `{"id":"p","type":"prompt","message":"hi"}`+"\n")
	var types []string
	sc := bufio.NewScanner(outR)
	for sc.Scan() {
		var v struct{ Type string }
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("not JSON: %q", sc.Text())
		}
		types = append(types, v.Type)
		if v.Type == "message_update" && len(types) > 0 {
			inW.Close()
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if len(types) == 0 || types[len(types)-1] != "agent_end" {
		t.Fatalf("the output ended with %v, want agent_end last", types[max(0, len(types)-3):])
	}
	checkAborted(t, store, sess)
}

// A client that dies (its end of stdout closed) ends Serve with the write's
// error, and its run is aborted and recorded as pi's process records an
// abort: the prompt and the aborted answer, not a run failed by a write
// (on the old main the write's error failed the run at the prompt's
// message_start, so the prompt the client was told was accepted was never
// recorded, and Serve went on reading commands).
func TestClientDiesMidRun(t *testing.T) {
	store := &session.FileStore{Dir: t.TempDir(), NoSync: true}
	sess := stallSession(t, store)
	inR, inW := io.Pipe()
	defer inW.Close()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- rpc.Serve(context.Background(), sess, inR, outW, rpc.Options{}) }()
	io.WriteString(inW, `{"id":"p","type":"prompt","message":"hi"}`+"\n")
	line, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	outR.Close() // the client is gone
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "closed pipe") {
			t.Fatalf("Serve: %v, want the write's error", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("Serve did not end when its client went (first line %q)", line)
	}
	checkAborted(t, store, sess)
}

// checkAborted checks that sess's file holds the prompt and an aborted
// answer.
func checkAborted(t *testing.T, store *session.FileStore, sess *session.Session) {
	t.Helper()
	file := sess.State().SessionFile
	sess.Close()
	tr, err := store.Load(context.Background(), file)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range tr.Branch(tr.Leaf()) {
		switch m := e.Message.(type) {
		case *host.UserMessage:
			got = append(got, "user")
		case *host.AssistantMessage:
			got = append(got, "assistant:"+string(m.StopReason))
		}
	}
	if strings.Join(got, " ") != "user assistant:aborted" {
		t.Fatalf("the session keeps %v, want the prompt and the aborted answer", got)
	}
}
