package serve_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host/serve"
	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/internal/words"
)

// A quota's 429 says its limit in words that agree with it, for every
// quota the servers raise (read from their sources) and any limit: a token
// allowed one run at once was told "at most 1 runs at once".
func TestQuotaErrorInWords(t *testing.T) {
	root, err := wasmbuild.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	what := regexp.MustCompile(`QuotaError\{What: "([^"]+)"`)
	seen := map[string]bool{}
	for _, dir := range []string{"host/serve", "host/cluster"} {
		files, _ := filepath.Glob(filepath.Join(root, dir, "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			b, _ := os.ReadFile(f)
			for _, m := range what.FindAllStringSubmatch(string(b), -1) {
				seen[m[1]] = true
			}
		}
	}
	if len(seen) < 4 {
		t.Fatalf("only %d quotas found: %v", len(seen), seen)
	}
	plural := regexp.MustCompile(`^((?:[a-z]+ )*?[a-z]{2,}s)\b(.*)$`)
	for w := range seen {
		m := plural.FindStringSubmatch(w)
		if m == nil {
			t.Fatalf("%q has no plural noun", w)
		}
		for _, limit := range []int{0, 1, 2, 7, 1500} {
			got := (&serve.QuotaError{What: w, Limit: limit}).Error()
			want := "at most " + words.Count(limit, strings.TrimSuffix(m[1], "s")+"|"+m[1]) + m[2] + " for this token"
			if !strings.Contains(got, want) {
				t.Errorf("%q, limit %d: %q, want %q", w, limit, got, want)
			}
		}
	}
}
