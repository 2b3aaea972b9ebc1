package cluster

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"regexp"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Conn is a connection to NATS with JetStream: to an embedded server
// ([Server.Connect]) or to an existing cluster ([Connect]).
type Conn struct {
	nc *nats.Conn
	js jetstream.JetStream
}

// ConnectConfig says how to join an existing NATS cluster.
type ConnectConfig struct {
	// URL is one server or several, comma-separated:
	// "nats://n1:4222,nats://n2:4222" ("tls://" requires TLS).
	URL string
	// Name names this connection in the servers' monitoring.
	Name string
	// CredsFile is a NATS credentials file (a user JWT and its nkey seed).
	CredsFile string
	// CredsEnv names an environment variable holding such a file's text;
	// the variable's name is configured, never its value.
	CredsEnv string
	// TokenEnv names an environment variable holding an auth token.
	TokenEnv string
	// CAFile is a PEM bundle of the CAs trusted for the servers'
	// certificates; CertFile and KeyFile a client certificate, for servers
	// that verify clients. Any of them turns TLS on.
	CAFile, CertFile, KeyFile string
	// Timeout bounds connecting; default 5s.
	Timeout time.Duration
}

// Connect joins an existing NATS cluster. It fails when no server
// answers, or when the credentials or certificates cannot be read.
func Connect(cfg ConnectConfig) (*Conn, error) {
	opts, err := connectOptions(cfg)
	if err != nil {
		return nil, err
	}
	nc, err := nats.Connect(cfg.URL, opts...)
	if err != nil {
		return nil, fmt.Errorf("cluster: connect to %s: %w", redactURL(cfg.URL), unavailable(err))
	}
	return newConn(nc)
}

func connectOptions(cfg ConnectConfig) ([]nats.Option, error) {
	if cfg.URL == "" {
		return nil, errors.New("cluster: no NATS URL")
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	opts := []nats.Option{nats.Name(cfg.Name), nats.Timeout(timeout), nats.MaxReconnects(-1)}
	switch {
	case cfg.CredsFile != "" && cfg.CredsEnv != "":
		return nil, errors.New("cluster: credentials from a file and from an environment variable: choose one")
	case cfg.CredsFile != "":
		if _, err := os.Stat(cfg.CredsFile); err != nil {
			return nil, fmt.Errorf("cluster: credentials file: %w", err)
		}
		opts = append(opts, nats.UserCredentials(cfg.CredsFile))
	case cfg.CredsEnv != "":
		v, ok := os.LookupEnv(cfg.CredsEnv)
		if !ok || v == "" {
			return nil, fmt.Errorf("cluster: credentials: environment variable %s is not set", cfg.CredsEnv)
		}
		opts = append(opts, nats.UserCredentialBytes([]byte(v)))
	}
	if cfg.TokenEnv != "" {
		v, ok := os.LookupEnv(cfg.TokenEnv)
		if !ok || v == "" {
			return nil, fmt.Errorf("cluster: token: environment variable %s is not set", cfg.TokenEnv)
		}
		opts = append(opts, nats.Token(v))
	}
	if cfg.CAFile != "" {
		opts = append(opts, nats.RootCAs(cfg.CAFile))
	}
	if (cfg.CertFile == "") != (cfg.KeyFile == "") {
		return nil, errors.New("cluster: a client certificate needs both cert_file and key_file")
	}
	if cfg.CertFile != "" {
		opts = append(opts, nats.ClientCert(cfg.CertFile, cfg.KeyFile))
	}
	return opts, nil
}

// redactURL drops user information from a URL list for messages.
func redactURL(s string) string {
	return userInfo.ReplaceAllString(s, "://")
}

func newConn(nc *nats.Conn) (*Conn, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("cluster: JetStream: %w", err)
	}
	return &Conn{nc: nc, js: js}, nil
}

// Close closes the connection at once; what a Log had not been told was
// stored may or may not be.
func (c *Conn) Close() { c.nc.Close() }

// randomToken returns 32 random hex digits.
func randomToken() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

var userInfo = regexp.MustCompile(`://[^/@,]*@`)
