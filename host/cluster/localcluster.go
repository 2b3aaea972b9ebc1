package cluster

import (
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"time"
)

// StartLocalCluster starts n embedded servers on loopback, joined by
// routes into one JetStream cluster, each storing under dir/node-<i>
// and listening for clients on a free port ([Server.URL]). It returns
// once the cluster has a JetStream leader. It is meant for tests and
// benchmarks: production clusters are NATS servers run on their own.
func StartLocalCluster(dir string, n int) ([]*Server, error) {
	if n < 1 {
		return nil, errors.New("cluster: a local cluster needs at least one node")
	}
	// The routes must be known before the nodes start (a JetStream cluster
	// requires configured routes), so the ports are reserved first; the
	// short window in which another process could take one is retried.
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		servers, err := startLocalCluster(dir, n, attempt)
		if err == nil {
			return servers, nil
		}
		lastErr = err
	}
	return nil, lastErr
}

func startLocalCluster(dir string, n, attempt int) ([]*Server, error) {
	ports, err := freePorts(n)
	if err != nil {
		return nil, err
	}
	name := "wasmagent-local-" + randomToken()[:6]
	var servers []*Server
	stop := func() {
		for _, s := range servers {
			s.Shutdown()
		}
	}
	for i := 0; i < n; i++ {
		rc := &RouteConfig{Name: name, Listen: "127.0.0.1:" + strconv.Itoa(ports[i])}
		for j, p := range ports {
			if j != i {
				rc.Routes = append(rc.Routes, "nats-route://127.0.0.1:"+strconv.Itoa(p))
			}
		}
		if n == 1 {
			rc = nil
		}
		s, err := StartServer(ServerConfig{
			Dir:     filepath.Join(dir, fmt.Sprintf("try-%d", attempt), fmt.Sprintf("node-%d", i)),
			Name:    fmt.Sprintf("%s-n%d", name, i),
			Listen:  "127.0.0.1:0",
			Cluster: rc,
		})
		if err != nil {
			stop()
			return nil, err
		}
		servers = append(servers, s)
	}
	for _, s := range servers {
		if err := s.WaitJetStream(30 * time.Second); err != nil {
			stop()
			return nil, err
		}
	}
	if n > 1 {
		if err := waitPeers(servers, 30*time.Second); err != nil {
			stop()
			return nil, err
		}
	}
	return servers, nil
}

// waitPeers waits until the meta leader counts every node as a peer a
// replicated stream can be placed on (online, with JetStream, its stats
// received): JetStream answers before that, and a stream of as many
// replicas as nodes made meanwhile is refused ("no suitable peers for
// placement"), which a loaded machine made likely.
func waitPeers(servers []*Server, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		most := 0
		for _, s := range servers {
			most = max(most, len(s.ns.JetStreamClusterPeers()))
		}
		if most == len(servers) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("cluster: the meta leader counts %d of %d nodes as JetStream peers after %s: %w", most, len(servers), timeout, ErrUnavailable)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// freePorts reserves n loopback ports and releases them for use.
func freePorts(n int) ([]int, error) {
	var ports []int
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("cluster: a free loopback port: %w", err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
