package provider_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/provider"
)

func TestRegistry(t *testing.T) {
	var got provider.Options
	provider.Register("test-a", func(o provider.Options) (host.Model, error) {
		got = o
		return host.ModelFunc(func(context.Context, *host.Request, func(host.AssistantMessageEvent)) *host.AssistantMessage {
			return nil
		}), nil
	})
	f, ok := provider.Lookup("test-a")
	if !ok {
		t.Fatal("test-a is not registered")
	}
	if _, err := f(provider.Options{Model: "m"}); err != nil || got.Model != "m" {
		t.Fatalf("err %v, options %+v", err, got)
	}
	if _, ok := provider.Lookup("test-missing"); ok {
		t.Fatal("an unregistered name is found")
	}
	if !slices.Contains(provider.Names(), "test-a") || !slices.IsSorted(provider.Names()) {
		t.Fatalf("Names() = %q", provider.Names())
	}
	for _, c := range []struct {
		name string
		f    provider.Func
		want string
	}{
		{"test-a", f, "twice"},
		{"test-nil", nil, "nil function"},
	} {
		func() {
			defer func() {
				if r, _ := recover().(string); !strings.Contains(r, c.want) {
					t.Fatalf("Register(%q): panic %q, want one saying %q", c.name, r, c.want)
				}
			}()
			provider.Register(c.name, c.f)
		}()
	}
}

func TestRetryString(t *testing.T) {
	for _, c := range []struct {
		r    provider.Retry
		want string
	}{
		{provider.Retry{Attempt: 1, Of: 2, Status: 429, Delay: 2e9}, "rate limited (429), retry 1/2 in 2s"},
		{provider.Retry{Attempt: 2, Of: 3, Status: 503, Delay: 12.4e9}, "server error (503), retry 2/3 in 12s"},
		{provider.Retry{Attempt: 1, Of: 1, Status: 408, Delay: 250e6}, "HTTP 408, retry 1/1 in 300ms"},
		{provider.Retry{Attempt: 1, Of: 2, Delay: 1e9}, "connection failed, retry 1/2 in 1s"},
	} {
		if got := c.r.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.r, got, c.want)
		}
	}
}
