package cli

import (
	"errors"
	"fmt"
	"net"
	"syscall"

	"github.com/wasmagent/wasmagent/internal/connlimit"
)

// listen listens on addr for the command that the flag names (--addr,
// --http), saying in words why it cannot: another process on the port,
// an address this machine does not have, a port below 1024 without the
// right. The connections it holds open are bounded (connlimit's
// defaults: 4096 in all, 1024 from one address).
func listen(flag, addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	switch {
	case err == nil:
		return connlimit.Listen(ln, listenLimits, "the server at "+flag+" "+addr), nil
	case errors.Is(err, syscall.EADDRINUSE):
		return nil, fmt.Errorf("%s %s: something else listens there already: stop it, or give another port", flag, addr)
	case errors.Is(err, syscall.EADDRNOTAVAIL):
		return nil, fmt.Errorf("%s %s: this machine has no such address (127.0.0.1 is this machine only; 0.0.0.0 is every interface)", flag, addr)
	case errors.Is(err, syscall.EACCES):
		return nil, fmt.Errorf("%s %s: permission denied (ports below 1024 need privileges: use a higher one)", flag, addr)
	}
	return nil, fmt.Errorf("%s %s: %w", flag, addr, err)
}

// listenLimits bound the connections of every server listen makes (the
// zero value: connlimit's defaults); tests make them small.
var listenLimits connlimit.Limits
