package cluster

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

func TestConnectConfigErrors(t *testing.T) {
	t.Setenv("WA_TEST_EMPTY", "")
	for _, tc := range []struct {
		cfg  ConnectConfig
		want string
	}{
		{ConnectConfig{}, "no NATS URL"},
		{ConnectConfig{URL: "nats://x", CredsFile: "a", CredsEnv: "B"}, "choose one"},
		{ConnectConfig{URL: "nats://x", CredsFile: "/nonexistent/creds"}, "credentials file"},
		{ConnectConfig{URL: "nats://x", CredsEnv: "WA_TEST_UNSET_VARIABLE"}, "WA_TEST_UNSET_VARIABLE is not set"},
		{ConnectConfig{URL: "nats://x", TokenEnv: "WA_TEST_EMPTY"}, "WA_TEST_EMPTY is not set"},
		{ConnectConfig{URL: "nats://x", CertFile: "c.pem"}, "both cert_file and key_file"},
	} {
		if _, err := Connect(tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.cfg, err, tc.want)
		}
	}
}

// A token from the environment variable named in the config; a wrong one
// is refused; nothing answering is ErrUnavailable, and the error does not
// show the URL's password.
func TestConnectToken(t *testing.T) {
	ns, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, Authorization: "s3cret", NoSigs: true, NoLog: true})
	if err != nil {
		t.Fatal(err)
	}
	ns.Start()
	defer ns.Shutdown()
	if !ns.ReadyForConnections(10 * time.Second) {
		t.Fatal("server not ready")
	}
	t.Setenv("WA_TEST_TOKEN", "s3cret")
	c, err := Connect(ConnectConfig{URL: ns.ClientURL(), TokenEnv: "WA_TEST_TOKEN"})
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	t.Setenv("WA_TEST_TOKEN", "wrong")
	if _, err := Connect(ConnectConfig{URL: ns.ClientURL(), TokenEnv: "WA_TEST_TOKEN"}); err == nil {
		t.Fatal("a wrong token was accepted")
	}
	_, err = Connect(ConnectConfig{URL: "nats://user:pw@127.0.0.1:1", Timeout: 200 * time.Millisecond})
	if !errors.Is(err, ErrUnavailable) || strings.Contains(err.Error(), "pw") {
		t.Fatalf("nothing listening: %v", err)
	}
}

// TLS: a server whose certificate a CA file vouches for is reached; a
// client without that CA refuses it.
func TestConnectTLS(t *testing.T) {
	dir := t.TempDir()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "wasmagent test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	ca := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert := tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
	ns, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, NoSigs: true, NoLog: true,
		TLS: true, TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, TLSTimeout: 2})
	if err != nil {
		t.Fatal(err)
	}
	ns.Start()
	defer ns.Shutdown()
	if !ns.ReadyForConnections(10 * time.Second) {
		t.Fatal("server not ready")
	}
	url := strings.Replace(ns.ClientURL(), "nats://", "tls://", 1)
	c, err := Connect(ConnectConfig{URL: url, CAFile: ca})
	if err != nil {
		t.Fatalf("with the CA: %v", err)
	}
	c.Close()
	if _, err := Connect(ConnectConfig{URL: url, Timeout: time.Second}); err == nil {
		t.Fatal("a server no trusted CA vouches for was accepted")
	}
}
