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
	return servers, nil
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
