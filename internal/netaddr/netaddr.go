// Package netaddr holds the address checks every door that listens shares
// (wasmagent mcp --http, wasmagent serve).
package netaddr

import (
	"net"
	"strings"
)

// IsLoopback reports whether host — a name or an IP address, IPv6 with or
// without brackets — is "localhost" or a loopback address.
func IsLoopback(host string) bool {
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
