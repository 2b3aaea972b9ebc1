package runtime_test

import (
	"math/rand/v2"
	"net"
	"testing"

	"github.com/wasmagent/wasmagent/runtime"
)

// The addresses the dialer refuses unless granted by address: every
// non-public IPv4 range, and each again inside the IPv6 forms that carry
// an IPv4 address (IPv4-mapped, NAT64's well-known prefix, 6to4), so that
// a plugin granted "*" cannot reach 127.0.0.1 as 64:ff9b::7f00:1 on a
// network that translates it. On the old main the NAT64, 6to4, 0.0.0.0/8,
// Teredo and site-local forms were public.
func TestPublicAddresses(t *testing.T) {
	for addr, want := range map[string]bool{
		"8.8.8.8": true, "2606:4700::1111": true, "64:ff9b::808:808": true, "2002:808:808::1": true,
		"127.0.0.1": false, "10.1.2.3": false, "172.16.0.1": false, "192.168.1.1": false, "169.254.169.254": false,
		"100.100.100.200": false, "0.0.0.0": false, "0.1.2.3": false, "255.255.255.255": false, "198.18.0.1": false,
		"::1": false, "::": false, "fd00:ec2::254": false, "fe80::1": false, "fec0::1": false, "ff02::1": false,
		"::ffff:127.0.0.1": false, "::127.0.0.1": false, "64:ff9b::7f00:1": false, "64:ff9b::a9fe:a9fe": false,
		"64:ff9b:1::a00:1": false, "2002:7f00:1::": false, "2002:a9fe:a9fe::1": false, "2001:0:4136:e378:8000:63bf:3fff:fdd2": false,
	} {
		if got := runtime.PublicIP(net.ParseIP(addr)); got != want {
			t.Errorf("publicIP(%s) = %v, want %v", addr, got, want)
		}
	}
	// Any IPv4 address is public exactly when its IPv6 forms are.
	rng := rand.New(rand.NewPCG(5, 6))
	private := 0
	for range 20000 {
		v4 := net.IPv4(byte(rng.IntN(256)), byte(rng.IntN(256)), byte(rng.IntN(256)), byte(rng.IntN(256))).To4()
		if rng.IntN(2) == 0 { // half from the ranges that matter most
			v4[0] = []byte{0, 10, 100, 127, 169, 172, 192, 198, 224, 240}[rng.IntN(10)]
		}
		want := runtime.PublicIP(v4)
		if !want {
			private++
		}
		nat64 := append(net.ParseIP("64:ff9b::").To16()[:12:12], v4...)
		sixToFour := net.ParseIP("2002::").To16()
		copy(sixToFour[2:6], v4)
		for form, ip := range map[string]net.IP{"mapped": net.IPv4(v4[0], v4[1], v4[2], v4[3]), "NAT64": nat64, "6to4": sixToFour} {
			if got := runtime.PublicIP(ip); got != want {
				t.Fatalf("%s as %s (%s): public %v, but %v as IPv4", v4, form, ip, got, want)
			}
		}
	}
	if private < 5000 {
		t.Fatalf("only %d of the addresses drawn were not public", private)
	}
}
