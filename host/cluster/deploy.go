package cluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Deployment says where the service's JetStream is: an existing NATS
// cluster to join (Join.URL set), or an embedded server storing in
// StateDir — one code path for both.
type Deployment struct {
	// Join joins an existing NATS cluster when its URL is set.
	Join ConnectConfig
	// StateDir holds the embedded server's files (StateDir/nats) when
	// Join.URL is empty.
	StateDir string
}

// Embedded reports whether d runs its own server.
func (d Deployment) Embedded() bool { return d.Join.URL == "" }

// Start connects as d says (starting the embedded server if need be),
// makes the session store when o.Store is nil, and starts the service.
// Close stops all of it.
func Start(ctx context.Context, d Deployment, o ServiceOptions) (*Service, error) {
	var closers []func()
	fail := func(err error) (*Service, error) {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
		return nil, err
	}
	var conn *Conn
	if d.Embedded() {
		if d.StateDir == "" {
			return nil, errors.New("cluster: the embedded server needs a state directory")
		}
		// One machine has no other replica to make up for it: every
		// append is fsynced, as the file store does (docs/cluster.md).
		srv, err := StartServer(ServerConfig{Dir: filepath.Join(d.StateDir, "nats"), SyncAlways: true})
		if err != nil {
			return nil, err
		}
		closers = append(closers, srv.Shutdown)
		if err := srv.WaitJetStream(serverWait); err != nil {
			return fail(err)
		}
		if conn, err = srv.Connect(hostName()); err != nil {
			return fail(err)
		}
	} else {
		if d.Join.Name == "" {
			d.Join.Name = hostName()
		}
		var err error
		if conn, err = Connect(d.Join); err != nil {
			return nil, err
		}
	}
	closers = append(closers, conn.Close)
	s, err := NewService(ctx, conn, o)
	if err != nil {
		return fail(err)
	}
	s.mu.Lock()
	for i := len(closers) - 1; i >= 0; i-- {
		s.closers = append(s.closers, closers[i])
	}
	s.mu.Unlock()
	return s, nil
}

// serverWait bounds the wait for the embedded server's JetStream.
const serverWait = 30 * time.Second

// NewService starts the service over c. With o.Store nil, it makes the
// JetStream session store ([NewStore]) with o's replicas and lease TTL.
// Closing the service leaves c open.
func NewService(ctx context.Context, c *Conn, o ServiceOptions) (*Service, error) {
	if o.LeaseTTL <= 0 {
		o.LeaseTTL = DefaultLeaseTTL
	}
	if o.Store == nil {
		st, err := NewStore(ctx, c, StoreConfig{Replicas: o.Replicas, LeaseTTL: o.LeaseTTL, Holder: hostName()})
		if err != nil {
			return nil, err
		}
		o.Store = st
	}
	return newService(ctx, c.js, o)
}

// hostName names this process in leases and connections.
func hostName() string {
	h, _ := os.Hostname()
	return fmt.Sprintf("wasmagent serve on %s pid %d", h, os.Getpid())
}
