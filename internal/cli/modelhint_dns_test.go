package cli

import (
	"strconv"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host/config"
)

// A base_url whose host does not resolve gets a hint of its own, and a
// typo of a known server's host (one letter dropped, doubled or swapped
// with its neighbour, for every host) is answered with the host meant; a
// host near none gets no guess. It shared "cannot be reached: is the
// server running" with a refused connection.
func TestModelHintUnresolvedHost(t *testing.T) {
	f := &config.File{Path: "agent.toml", Model: config.Model{Provider: "openai", Name: "m"}}
	hint := modelHint(f)
	say := func(host string) string {
		return hint("cannot resolve the host name "+strconv.Quote(host)+": no such host (POST https://"+host+"/v1/chat/completions)", false)
	}
	tried := 0
	for _, host := range config.KnownHosts() {
		for i := 1; i < len(host)-1; i++ {
			for _, typo := range []string{host[:i] + host[i+1:], host[:i] + host[i:i+1] + host[i:], host[:i-1] + host[i:i+1] + host[i-1:i] + host[i+1:]} {
				if typo == host || strings.Count(typo, ".") != strings.Count(host, ".") {
					continue
				}
				tried++
				if got := say(typo); !strings.Contains(got, "hint: the host name "+strconv.Quote(typo)+" does not resolve (did you mean "+strconv.Quote(host)+"?)") {
					t.Fatalf("%s for %s: %q", typo, host, got)
				}
			}
		}
	}
	if got := say("my-gpu-box.lan"); !strings.Contains(got, `the host name "my-gpu-box.lan" does not resolve: check base_url's host`) || strings.Contains(got, "did you mean") {
		t.Fatalf("a host near none: %q", got)
	}
	if tried < 200 {
		t.Fatalf("only %d typos tried", tried)
	}
}
