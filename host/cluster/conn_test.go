package cluster

import (
	"errors"
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
