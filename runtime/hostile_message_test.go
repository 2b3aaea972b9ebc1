package runtime_test

import (
	"context"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/runtime"
)

// A host function that refuses what a plugin passed it says what was
// refused, quoting it cut to runtime.MaxMessageBytes: a URL, a method or
// a variable's name is the plugin's to make megabytes long, and the
// error goes to the model, the terminal and the session. On the old
// main, a refused URL of 1 MiB made an error of 1 MiB, at every call
// (64 KiB here, to keep the test cheap).
func TestFaultsQuotePluginStringsCut(t *testing.T) {
	p := probe(t, runtime.Grants{Hosts: []string{"granted.example"}}, 0)
	huge := strings.Repeat("a", 64<<10)
	for _, url := range []string{
		"http://not-granted.example/" + huge, // not granted
		"gopher://granted.example/" + huge,   // not http
		"http://granted.example:99999/" + huge,
		"http://%zz" + huge, // not a URL
	} {
		_, err := execute(context.Background(), p, "fetch", map[string]any{"url": url}, nil)
		if err == nil {
			t.Fatalf("%.40s…: fetched", url)
		}
		if n := len(err.Error()); n > 2*runtime.MaxMessageBytes {
			t.Errorf("%.40s…: the error is %d bytes: %.200s", url, n, err)
		}
	}
}
