package cluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// ServerConfig configures an embedded NATS server with JetStream.
type ServerConfig struct {
	// Dir holds JetStream's files (required). It is created with mode
	// 0700 when absent.
	Dir string
	// Name names the server in its cluster; default: "wasmagent-" and a
	// random suffix.
	Name string
	// Listen is the client address, "127.0.0.1:4222" or "127.0.0.1:0" for
	// a free port. Empty: no listener; connect in process only
	// ([Server.Connect]).
	Listen string
	// Cluster joins other embedded servers through routes; nil: a single
	// server.
	Cluster *RouteConfig
	// MaxPayload bounds one message, in bytes; default 8 MiB (NATS's own
	// default is 1 MiB, too small for a tool result carrying an image).
	MaxPayload int32
	// SyncAlways makes JetStream fsync every write, as the file store
	// does, so that appends survive a crash of the machine; by default it
	// fsyncs every two minutes (appends survive the death of the process,
	// and in a cluster the other replicas make up for a machine).
	SyncAlways bool
	// StartTimeout bounds the wait for the server to accept connections;
	// default 10s.
	StartTimeout time.Duration
}

// RouteConfig makes an embedded server a node of a JetStream cluster.
type RouteConfig struct {
	Name   string   // the cluster's name, the same on every node
	Listen string   // this node's route address, "127.0.0.1:6222"
	Routes []string // the other nodes' route addresses, "nats-route://host:port"
}

// DefaultMaxPayload is the embedded server's message size bound.
const DefaultMaxPayload = 8 << 20

// Server is an embedded NATS server with JetStream, storing on files.
type Server struct {
	ns *server.Server
}

// StartServer starts an embedded server and waits until it accepts
// connections. A cluster node returns before the cluster has a JetStream
// leader: [Server.WaitJetStream] waits for one.
func StartServer(cfg ServerConfig) (*Server, error) {
	opts, err := serverOptions(cfg)
	if err != nil {
		return nil, err
	}
	ns, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("cluster: embedded NATS server: %w", err)
	}
	ns.Start()
	timeout := cfg.StartTimeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	if !ns.ReadyForConnections(timeout) {
		ns.Shutdown()
		ns.WaitForShutdown()
		return nil, fmt.Errorf("cluster: embedded NATS server (JetStream in %s) did not start within %s", cfg.Dir, timeout)
	}
	return &Server{ns: ns}, nil
}

func serverOptions(cfg ServerConfig) (*server.Options, error) {
	if cfg.Dir == "" {
		return nil, errors.New("cluster: embedded NATS server: no state directory for JetStream")
	}
	dir, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("cluster: state directory: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("cluster: state directory: %w", err)
	}
	opts := &server.Options{
		ServerName: cfg.Name,
		JetStream:  true,
		StoreDir:   dir,
		MaxPayload: cfg.MaxPayload,
		SyncAlways: cfg.SyncAlways,
		NoSigs:     true,
		NoLog:      true,
	}
	if opts.ServerName == "" {
		opts.ServerName = "wasmagent-" + randomToken()[:8]
	}
	if opts.MaxPayload <= 0 {
		opts.MaxPayload = DefaultMaxPayload
	}
	if cfg.Listen == "" {
		opts.DontListen = true
	} else if opts.Host, opts.Port, err = hostPort(cfg.Listen); err != nil {
		return nil, fmt.Errorf("cluster: listen address %q: %w", cfg.Listen, err)
	}
	if c := cfg.Cluster; c != nil {
		if c.Name == "" {
			return nil, errors.New("cluster: a cluster node needs the cluster's name")
		}
		opts.Cluster.Name = c.Name
		if opts.Cluster.Host, opts.Cluster.Port, err = hostPort(c.Listen); err != nil {
			return nil, fmt.Errorf("cluster: route address %q: %w", c.Listen, err)
		}
		for _, r := range c.Routes {
			u, err := url.Parse(r)
			if err != nil || u.Host == "" {
				return nil, fmt.Errorf("cluster: route %q is not a URL like nats-route://host:port", r)
			}
			opts.Routes = append(opts.Routes, u)
		}
	}
	return opts, nil
}

func hostPort(addr string) (string, int, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, err
	}
	p, err := strconv.Atoi(port)
	if err != nil || p < 0 || p > 65535 {
		return "", 0, fmt.Errorf("port %q is not a number from 0 to 65535", port)
	}
	if p == 0 {
		p = server.RANDOM_PORT
	}
	return host, p, nil
}

// URL is the server's client URL, or "" when it has no listener.
func (s *Server) URL() string {
	if s.ns.Addr() == nil {
		return ""
	}
	return s.ns.ClientURL()
}

// RouteURL is the address other nodes route to, or "" for a single server.
func (s *Server) RouteURL() string {
	a := s.ns.ClusterAddr()
	if a == nil {
		return ""
	}
	return "nats-route://" + a.String()
}

// Name is the server's name in its cluster.
func (s *Server) Name() string { return s.ns.Name() }

// WaitJetStream waits until JetStream answers on this server: for a
// cluster node, until the cluster has elected its meta leader.
func (s *Server) WaitJetStream(timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	c, err := s.Connect("wasmagent-wait")
	if err != nil {
		return err
	}
	defer c.Close()
	for {
		// A request sent before the cluster formed is never answered:
		// each attempt gets its own short deadline.
		actx, acancel := context.WithTimeout(ctx, time.Second)
		_, err := c.js.AccountInfo(actx)
		acancel()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("cluster: JetStream on %s not ready within %s (%v): %w", s.Name(), timeout, err, ErrUnavailable)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Connect connects to this server in process (no socket).
func (s *Server) Connect(name string) (*Conn, error) {
	nc, err := nats.Connect("", nats.InProcessServer(s.ns), nats.Name(name), nats.MaxReconnects(-1))
	if err != nil {
		return nil, fmt.Errorf("cluster: connect to the embedded server: %w", err)
	}
	return newConn(nc)
}

// Shutdown stops the server and waits until its files are closed.
func (s *Server) Shutdown() {
	s.ns.Shutdown()
	s.ns.WaitForShutdown()
}
