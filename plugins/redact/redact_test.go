package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/internal/plugintest"
	"github.com/wasmagent/wasmagent/runtime"
	"github.com/wasmagent/wasmagent/sdk"
	"github.com/wasmagent/wasmagent/sdk/sdktest"
)

// secrets are made here rather than written out, so no scanner mistakes
// the repository for a leak. Each is {pattern name, secret, text around it}.
func secrets() [][3]string {
	r := func(s string, n int) string { return strings.Repeat(s, n) }
	key := "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n" + r("QUFB", 16) + "\n-----END OPENSSH PRIVATE KEY-----"
	rsa := "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA" + r("x7Yz", 12) + "\n-----END RSA PRIVATE KEY-----"
	jwt := "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
	return [][3]string{
		{"private-key", key, "cat ~/.ssh/id_ed25519\n%s\n"},
		{"private-key", rsa, "%s"},
		{"aws-access-key-id", "AKIA" + r("Q7", 8), "AWS_ACCESS_KEY_ID=%s\n"},
		{"aws-secret-access-key", r("wJalrXUtnFEMI/K7MDENG+bPxRfiCY", 1) + "EXAMPLEKEY", "aws_secret_access_key = %s\n"},
		{"github-token", "ghp_" + r("a1B2c3D4e5F6", 3), "token: %s"},
		{"github-token", "github_pat_11ABCDEFG0" + r("xY9_", 15), "GH=%s"},
		{"gitlab-token", "glpat-" + r("Ab3_", 5), "private-token: %s"},
		{"slack-token", "xoxb-" + r("1234567890-", 2) + "AbCdEfGh", "SLACK_BOT_TOKEN=%s"},
		{"slack-webhook", "https://hooks.slack.com/services/T000/B000/" + r("XXXX", 6), "webhook %s posted"},
		{"openai-key", "sk-proj-" + r("Zx9_", 10), "OPENAI_API_KEY=%s"},
		{"stripe-key", "sk_live_" + r("4eC3", 6), "stripe: %s"},
		{"google-api-key", "AIza" + r("SyD-", 8) + "abc", "key=%s&q=x"},
		{"jwt", jwt, "Cookie: session=%s;"},
		{"bearer-token", "abcDEF123456ghiJKL789", "Authorization: Bearer %s\n"},
		{"basic-auth-url", "hunter22", "git clone https://alice:%s@git.example.com/repo.git"},
		{"password-assignment", "Tr0ub4dor&3x", "DB_PASSWORD=%s\n"},
		{"password-assignment", "s3cr3t-value-42", `{"client_secret": "%s"}`},
	}
}

// Every known secret shape is gone after redaction, and the count per
// pattern is reported.
func TestSecretsCorpus(t *testing.T) {
	r, err := newRedactor("", true)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range secrets() {
		text := fmt.Sprintf(s[2], s[1])
		counts := map[string]int{}
		out := r.redact(text, counts)
		if strings.Contains(out, s[1]) || strings.Contains(out, s[1][len(s[1])/2:]) {
			t.Errorf("%s survived: %q", s[0], out)
		}
		if counts[s[0]] == 0 || !strings.Contains(out, "[REDACTED:"+s[0]+"]") {
			t.Errorf("%s: counts %v, output %q", s[0], counts, out)
		}
	}
}

// Ordinary text, code, hashes and identifiers pass untouched.
func TestCleanCorpus(t *testing.T) {
	clean := []string{
		"The password must be at least 12 characters long.",
		"password = os.Getenv(\"DB_PASSWORD\")",
		"secret := readSecret(path)",
		"token count: 12345",
		"sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		"commit 9fceb02d0ae598e95dc970b74767f19372d61af8",
		"uuid 123e4567-e89b-12d3-a456-426614174000",
		"func skipTest(t *testing.T) { t.Skip(\"slow\") }",
		"See https://github.com/wasmagent/wasmagent/issues/12 and https://example.com/path?x=1",
		"-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----",
		"AKIA is the prefix of AWS access key ids.",
		"Authorization: Bearer <token>",
		"export API_KEY=$API_KEY",
		"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
		"eyJ is how base64 JSON starts",
		"ghp_ tokens start with ghp_",
	}
	r, _ := newRedactor("", true)
	for _, s := range clean {
		counts := map[string]int{}
		if out := r.redact(s, counts); out != s || len(counts) > 0 {
			t.Errorf("changed %q into %q (%v)", s, out, counts)
		}
	}
}

func TestHook(t *testing.T) {
	h := sdktest.Host{Config: map[string]string{"patterns": `[{"name":"employee-id","regex":"EMP-[0-9]{6}"}]`}}
	tok := "ghp_" + strings.Repeat("Xy12", 9)
	res := sdk.Text("found " + tok + " and EMP-123456").WithDetails(map[string]any{"path": "a.env", "raw": "token=" + tok})
	out, err := h.AfterToolCall("read", map[string]string{"path": "a.env"}, res)
	if err != nil {
		t.Fatal(err)
	}
	if got := out.Content[0].Text; got != "found [REDACTED:github-token] and [REDACTED:employee-id]" {
		t.Fatalf("content %q", got)
	}
	details := string(out.Details.(json.RawMessage))
	if strings.Contains(details, tok) || !strings.Contains(details, `"redacted":{"employee-id":1,"github-token":2}`) || !strings.Contains(details, `"path":"a.env"`) {
		t.Fatalf("details %s", details)
	}
	// Nothing to redact: the result is left alone.
	out, err = h.AfterToolCall("read", nil, sdk.Text("nothing here"))
	if err != nil || out.Content != nil || out.Details != nil {
		t.Fatalf("clean result: %+v %v", out, err)
	}
}

func TestBadPatterns(t *testing.T) {
	for _, c := range []struct{ patterns, want string }{
		{`[{"name":"x","regex":"("}]`, "patterns[0] (x):"},
		{`[{"regex":"abc"}]`, "patterns[0]: no name"},
		{`[{"name":"all","regex":".*"}]`, "matches the empty string"},
		{`[{"name":"g","regex":"a(b)","group":2}]`, "group 2 does not exist"},
		{`[{"name":"x","re":"a"}]`, `unknown field "re"`},
	} {
		h := sdktest.Host{Config: map[string]string{"patterns": c.patterns}}
		if _, err := h.Describe(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.patterns, err, c.want)
		}
	}
}

func TestThroughTheHost(t *testing.T) {
	p := plugintest.Load(t, "plugins/redact", runtime.Grants{})
	if p.AfterToolCall() == nil {
		t.Fatal("redact is not an after hook")
	}
}

func FuzzRedact(f *testing.F) {
	for _, s := range secrets() {
		f.Add(fmt.Sprintf(s[2], s[1]))
	}
	r, _ := newRedactor("", true)
	f.Fuzz(func(t *testing.T, s string) {
		counts := map[string]int{}
		out := r.redact(s, counts)
		// Redacting twice changes nothing more.
		again := map[string]int{}
		if r.redact(out, again) != out || len(again) > 0 {
			t.Fatalf("not idempotent: %q → %q (%v)", s, out, again)
		}
	})
}
