package config

import (
	"net/url"
	"os"
	"strings"
)

// Cluster is [cluster]: how "wasmagent serve" keeps sessions (host/cluster,
// docs/cluster.md). Without nats_url, serve runs an embedded NATS server
// with JetStream in its state directory; with it, serve joins that NATS
// cluster, and every host pointed at it serves every session.
type Cluster struct {
	// NATSURL lists the servers to connect to, comma-separated
	// (nats://, tls://; ws:// and wss:// too).
	NATSURL string `toml:"nats_url"`
	// CredsFile is a NATS credentials file (a user JWT and its nkey
	// seed); CredsEnv names an environment variable holding the same
	// text. At most one of them.
	CredsFile string `toml:"creds_file"`
	CredsEnv  string `toml:"creds_env"`
	// TLSCA is the CA bundle to verify the servers by (else the system's);
	// TLSCert and TLSKey, a client certificate, for servers that ask.
	TLSCA   string `toml:"tls_ca"`
	TLSCert string `toml:"tls_cert"`
	TLSKey  string `toml:"tls_key"`
	// Slots is how many sessions this host runs at once (default 4).
	Slots int `toml:"slots"`
	// LeaseTTL is how long a host that stops answering keeps its sessions
	// before another host takes them over (default 10s).
	LeaseTTL Duration `toml:"lease_ttl"`
	// Replicas is how many servers keep each stream (default 1; at most
	// 5, and no more than the cluster has).
	Replicas int `toml:"replicas"`
}

// Joins reports whether [cluster] names servers to join (else serve runs
// its own).
func (c Cluster) Joins() bool { return c.NATSURL != "" }

func (c *checker) checkCluster() {
	k := &c.f.Cluster
	for i, u := range strings.Split(k.NATSURL, ",") {
		u = strings.TrimSpace(u)
		if k.NATSURL == "" {
			break
		}
		p, err := url.Parse(u)
		if err != nil || p.Host == "" || !oneOf(p.Scheme, "nats", "tls", "ws", "wss") {
			c.errorf("cluster.nats_url", "server %d, %q, is not nats://host:port (or tls://, ws://, wss://)", i+1, u)
		}
		if err == nil && p.User != nil {
			c.errorf("cluster.nats_url", "server %d carries a user or password: put credentials in creds_file or creds_env", i+1)
		}
	}
	if k.CredsFile != "" && k.CredsEnv != "" {
		c.errorf("cluster.creds_env", "set creds_file or creds_env, not both")
	}
	if (k.TLSCert == "") != (k.TLSKey == "") {
		c.errorf("cluster.tls_key", "tls_cert and tls_key go together")
	}
	if !k.Joins() {
		for _, s := range [...]struct{ key, v string }{{"creds_file", k.CredsFile}, {"creds_env", k.CredsEnv}, {"tls_ca", k.TLSCA}, {"tls_cert", k.TLSCert}} {
			if s.v != "" {
				c.errorf("cluster."+s.key, "is for joining servers: set nats_url too")
			}
		}
	}
	k.CredsFile, k.TLSCA, k.TLSCert, k.TLSKey = c.abs("cluster.creds_file", k.CredsFile), c.abs("cluster.tls_ca", k.TLSCA), c.abs("cluster.tls_cert", k.TLSCert), c.abs("cluster.tls_key", k.TLSKey)
	if k.Slots < 0 {
		c.errorf("cluster.slots", "%d is negative", k.Slots)
	}
	if k.LeaseTTL.Duration < 0 {
		c.errorf("cluster.lease_ttl", "%s is negative", k.LeaseTTL.Duration)
	}
	if k.Replicas < 0 || k.Replicas > 5 {
		c.errorf("cluster.replicas", "%d is not between 1 and 5", k.Replicas)
	}
}

// ClusterCreds returns the NATS credentials [cluster] names (nil when it
// names none). An empty or unreadable source is an error naming the key.
func (f *File) ClusterCreds() ([]byte, error) {
	k := f.Cluster
	switch {
	case k.CredsEnv != "":
		v := os.Getenv(k.CredsEnv)
		if strings.TrimSpace(v) == "" {
			return nil, f.errorf("cluster.creds_env", "the environment variable %s is empty or not set", k.CredsEnv)
		}
		return []byte(v), nil
	case k.CredsFile != "":
		b, err := os.ReadFile(k.CredsFile)
		if err != nil {
			return nil, f.errorf("cluster.creds_file", "%s", fileProblem(k.CredsFile, err))
		}
		if len(strings.TrimSpace(string(b))) == 0 {
			return nil, f.errorf("cluster.creds_file", "%q is empty", k.CredsFile)
		}
		return b, nil
	}
	return nil, nil
}
