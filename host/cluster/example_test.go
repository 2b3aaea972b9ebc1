package cluster_test

import (
	"context"
	"fmt"
	"os"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/cluster"
	"github.com/wasmagent/wasmagent/host/session"
)

// An embedded server storing in a state directory, and sessions kept in
// it: the single-machine deployment.
func Example() {
	dir, _ := os.MkdirTemp("", "wasmagent-state-")
	defer os.RemoveAll(dir)
	srv, err := cluster.StartServer(cluster.ServerConfig{Dir: dir})
	if err != nil {
		panic(err)
	}
	defer srv.Shutdown()
	conn, err := srv.Connect("example")
	if err != nil {
		panic(err)
	}
	defer conn.Close()
	ctx := context.Background()
	store, err := cluster.NewStore(ctx, conn, cluster.StoreConfig{Holder: "host-a"})
	if err != nil {
		panic(err)
	}

	h := session.Header{ID: "0190c0de-0000-7000-8000-000000000001", Timestamp: "2026-12-01T10:00:00.000Z", Cwd: "/work"}
	hello := session.Entry{Type: session.TypeMessage, ID: "a1", Timestamp: h.Timestamp,
		Message: &host.UserMessage{Content: host.Text("hello")}}
	log, err := store.Create(ctx, h, []session.Entry{hello})
	if err != nil {
		panic(err)
	}
	// Another opener is refused while this log holds the session.
	_, _, err = store.Open(ctx, h.ID)
	fmt.Println(err)
	log.Close()

	all, _ := store.List(ctx)
	fmt.Println(all[0].ID, all[0].Messages, all[0].First)
	// Output:
	// session 0190c0de-0000-7000-8000-000000000001 is in use by host-a; two processes never write one session
	// 0190c0de-0000-7000-8000-000000000001 1 hello
}
