package runtime_test

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/runtime"
)

// asText is the AssemblyScript plugin plugins/text, built with npm and asc
// (the test is skipped, saying why, without node).
func asText(t testing.TB) []byte {
	t.Helper()
	w, err := os.ReadFile(wasmbuild.ASForTest(t, "plugins/text"))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// The AssemblyScript plugin gives the same outputs, byte for byte, on
// plain Extism go-sdk and on this runtime: the SDK speaks Extism's ABI,
// not something only this host understands.
func TestASSameOutputsAsExtism(t *testing.T) {
	wasm := asText(t)
	cases := []struct{ name, export, input string }{
		{"describe", "describe", ""},
		{"count", "execute", `{"toolCallId":"c1","name":"count","args":{"text":"grüß dich 😀\nzwei"}}`},
		{"lines", "execute", `{"toolCallId":"c1","name":"lines","args":{"text":"a\nb\nc","start":2,"numbered":true}}`},
		{"lines out of range", "execute", `{"toolCallId":"c1","name":"lines","args":{"text":"a","start":9}}`},
		{"find", "execute", `{"toolCallId":"c1","name":"find","args":{"text":"Ab\nab","query":"AB","ignoreCase":true}}`},
		{"diff", "execute", `{"toolCallId":"c1","name":"diff","args":{"a":"x\ny\n","b":"x\nz","context":1}}`},
		{"escapes", "execute", `{"toolCallId":"c1","name":"count","args":{"text":"\"\\\u0001\t\ud83d\ude00\u2028"}}`},
		{"prepare passes args through", "prepare_arguments", `{"name":"count","args":{"text":"t","n":12345678901234567890}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want, _, err := extismCall(t, wasm, nil, c.export, []byte(c.input))
			if err != nil {
				t.Fatalf("extism: %v", err)
			}
			p := pluginOf(t, "text.wasm", wasm, runtime.PluginOptions{})
			got, err := p.Call(context.Background(), c.export, []byte(c.input), nil)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("output differs:\n extism: %q\n ours:   %q", want, got)
			}
		})
	}
}

// Errors the SDK sets (input that is not JSON, a tool it does not have)
// read the same on both, and say what is wrong.
func TestASSameErrorAsExtism(t *testing.T) {
	wasm := asText(t)
	for _, c := range []struct{ export, input, want string }{
		{"execute", `{"toolCallId":`, "the host's input is not valid"},
		{"execute", `{"toolCallId":"c1","name":"nope","args":{}}`, `no tool "nope"`},
		{"before_tool_call", `{}`, "not a beforeToolCall hook"},
	} {
		_, _, xerr := extismCall(t, wasm, nil, c.export, []byte(c.input))
		p := pluginOf(t, "text.wasm", wasm, runtime.PluginOptions{})
		_, ourErr := p.Call(context.Background(), c.export, []byte(c.input), nil)
		ce := callError(t, ourErr)
		if xerr == nil || xerr.Error() != ce.Message || !strings.Contains(ce.Message, c.want) {
			t.Fatalf("%s %s: extism error %v, our message %q; want it to say %q", c.export, c.input, xerr, ce.Message, c.want)
		}
	}
}
