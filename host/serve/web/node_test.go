package web

import (
	"context"
	"os/exec"
	"testing"
	"time"
)

// TestPageLogicNode runs the Node tests of the page's scripts
// (testdata/node: the event-stream reader and reconnects, the session
// model on event streams the real loop wrote). They use node:test and
// nothing else: no npm install.
func TestPageLogicNode(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: the page's scripts are not run outside a browser (CI has Node 20)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "--test", "testdata/node/")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node --test testdata/node/: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}
