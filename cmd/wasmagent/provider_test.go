package main_test

// The tests here that drive the CLI (internal/cli) in this process against
// real OpenAI-compatible servers (httptest) link the provider the command
// links: internal/cli's own tests do not (host/provider).
import (
	"bytes"
	"sync"

	_ "github.com/wasmagent/wasmagent/host/openai"
)

// lockedBuffer is a bytes.Buffer safe to read while the command writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
