package main_test

import (
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

// plugin hook runs a hook once and prints its decision; mistakes on the
// command line are usage errors saying what is wrong. The raw test plugin
// answers with the configuration value named after each export.
func TestPluginHook(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and plugins")
	}
	raw := wasmbuild.ForTest(t, "internal/testplugins/raw")
	desc := `describe={"abi":1,"name":"raw","hooks":["beforeToolCall","afterToolCall"]}`
	out, errOut, code := run(t, "plugin", "hook", "--config", desc, "--config", `before_tool_call={"block":true,"reason":"no"}`, raw, "before", "write", `{"path":"/x"}`)
	if code != 0 || strings.TrimSpace(out) != `{"block":true,"reason":"no"}` {
		t.Fatalf("before: %d %q %q", code, out, errOut)
	}
	out, errOut, code = run(t, "plugin", "hook", "--config", desc, "--config", `after_tool_call={"content":[{"type":"text","text":"redacted"}],"isError":false}`, "--is-error",
		raw, "after", "read", `{}`, `{"content":[{"type":"text","text":"secret"}]}`)
	if code != 0 || strings.TrimSpace(out) != `{"content":[{"type":"text","text":"redacted"}],"isError":false}` {
		t.Fatalf("after: %d %q %q", code, out, errOut)
	}
	_, errOut, code = run(t, "plugin", "hook", "--config", desc, "--config", "before_tool_call.error=refused by policy", raw, "before", "write", `{}`)
	if code != 1 || !strings.Contains(errOut, "refused by policy") {
		t.Fatalf("a failing hook: %d %q", code, errOut)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{raw, "before", "write", `[1]`}, "not a JSON object"},
		{[]string{raw, "after", "read", `{}`, `{"content":[],"extra":1}`}, "RESULT_JSON"},
		{[]string{raw, "sideways", "read", `{}`}, "usage"},
		{[]string{"--dir", "nocolon", raw, "before", "t", `{}`}, "write HOST:GUEST"},
		{[]string{"--config", `describe={"abi":1,"name":"raw","tools":[{"name":"t","description":"d"}]}`, raw, "before", "t", `{}`}, "is not a beforeToolCall hook"},
	} {
		_, errOut, code := run(t, append([]string{"plugin", "hook"}, c.args...)...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
}
