package cli_test

import (
	"net"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/internal/cli"
)

// serve and mcp --http on a port something else holds say so in words,
// naming the flag and the address, not as the system's bind error.
func TestListenOnABusyPort(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr := ln.Addr().String()
	cfg := scriptedConfig(t, `{"turns":[]}`)
	for _, args := range [][]string{
		{"serve", "--config", cfg, "--addr", addr},
		{"mcp", "--config", cfg, "--http", addr},
	} {
		_, errOut, code := runCLI(t, args...)
		if code != cli.ExitFailed || !strings.Contains(errOut, addr+": something else listens there already") || strings.Contains(errOut, "bind:") {
			t.Errorf("%s: exit %d, %q", args[0], code, errOut)
		}
	}
}
