package runtime

import (
	"math/rand/v2"
	"net"
	"slices"
	"strings"
	"testing"
)

// The dialer lets a connection to an internal address through exactly
// when a grant names that address (or "localhost", for loopback) with
// the port connected to: the port a grant names, or 80 and 443 when it
// names none. Generated grants (addresses and names, with ports or not)
// and dials (internal and public addresses, granted ports and others)
// are judged against that rule. On the old main the port was not looked
// at: a plugin granted "127.0.0.1:11434" beside "*" reached 127.0.0.1's
// ports 80 and 443 through any name that resolves to it.
func TestDialGuardNamesAddressAndPort(t *testing.T) {
	internal := []string{"127.0.0.1", "::1", "10.0.0.5", "192.168.1.20", "169.254.169.254", "fd00::7"}
	public := []string{"8.8.8.8", "2606:4700::1111"}
	names := append(slices.Clone(internal), "localhost", "example.com", "*", "*.example.com")
	ports := []string{"", "80", "443", "8080", "11434"}
	rng := rand.New(rand.NewPCG(5, 19))
	for range 3000 {
		var grants []string
		for range 1 + rng.IntN(3) {
			name, port := names[rng.IntN(len(names))], ports[rng.IntN(len(ports))]
			g := name
			if net.ParseIP(name) != nil && net.ParseIP(name).To4() == nil {
				g = "[" + name + "]"
			}
			if port != "" {
				g += ":" + port
			}
			grants = append(grants, g)
		}
		pl := &Plugin{}
		for _, g := range grants {
			p, err := parseHostPattern(g)
			if err != nil {
				t.Fatalf("grant %q: %v", g, err)
			}
			pl.hosts = append(pl.hosts, p)
		}
		addrs := append(slices.Clone(internal), public...)
		ip := addrs[rng.IntN(len(addrs))]
		port := []string{"80", "443", "8080", "11434", "22"}[rng.IntN(5)]
		want := slices.Contains(public, ip)
		for _, p := range pl.hosts {
			admits := port == p.port || p.port == "" && (port == "80" || port == "443")
			named := net.ParseIP(p.name) != nil && net.ParseIP(p.name).Equal(net.ParseIP(ip)) ||
				p.name == "localhost" && net.ParseIP(ip).IsLoopback()
			want = want || admits && named
		}
		err := pl.dialGuard("tcp", net.JoinHostPort(ip, port), nil)
		if (err == nil) != want {
			t.Fatalf("grants %q, dial %s port %s: err = %v, want allowed %v", grants, ip, port, err, want)
		}
		if named := "refused to connect to " + net.JoinHostPort(ip, port) + ":"; err != nil && !strings.HasPrefix(err.Error(), named) {
			t.Fatalf("the refusal does not name the address and port: %v", err)
		}
	}
}
