package cluster

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

func TestEmbeddedServerInProcess(t *testing.T) {
	dir := t.TempDir()
	s, err := StartServer(ServerConfig{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if s.URL() != "" {
		t.Fatalf("a server without Listen has a URL: %s", s.URL())
	}
	c, err := s.Connect("test")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := c.js.CreateStream(ctx, jetstream.StreamConfig{Name: "T", Subjects: []string{"t.>"}, Storage: jetstream.FileStorage}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.js.Publish(ctx, "t.a", []byte("kept")); err != nil {
		t.Fatal(err)
	}
	c.Close()
	s.Shutdown()

	// The message survives a restart on the same directory.
	s, err = StartServer(ServerConfig{Dir: dir, Listen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown()
	c, err = Connect(ConnectConfig{URL: s.URL()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	st, err := c.js.Stream(ctx, "T")
	if err != nil {
		t.Fatal(err)
	}
	m, err := st.GetLastMsgForSubject(ctx, "t.a")
	if err != nil || string(m.Data) != "kept" {
		t.Fatalf("after restart: %v", err)
	}
}

func TestLocalClusterReplicates(t *testing.T) {
	servers, err := StartLocalCluster(t.TempDir(), 3)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, s := range servers {
			s.Shutdown()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c0, err := Connect(ConnectConfig{URL: servers[0].URL()})
	if err != nil {
		t.Fatal(err)
	}
	defer c0.Close()
	if _, err := c0.js.CreateStream(ctx, jetstream.StreamConfig{Name: "R", Subjects: []string{"r.>"}, Replicas: 3}); err != nil {
		t.Fatal(err)
	}
	if _, err := c0.js.Publish(ctx, "r.x", []byte("x")); err != nil {
		t.Fatal(err)
	}
	// Another node serves it, and still does when the first is gone.
	servers[0].Shutdown()
	c2, err := Connect(ConnectConfig{URL: servers[2].URL()})
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	var m *jetstream.RawStreamMsg
	for {
		// A request sent while the cluster elects a new leader may go
		// unanswered: each attempt has its own deadline.
		actx, acancel := context.WithTimeout(ctx, 2*time.Second)
		var st jetstream.Stream
		if st, err = c2.js.Stream(actx, "R"); err == nil {
			m, err = st.GetLastMsgForSubject(actx, "r.x")
		}
		acancel()
		if err == nil || ctx.Err() != nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil || string(m.Data) != "x" {
		t.Fatalf("from node 2 after node 0 stopped: %v", err)
	}
}
