package main_test

// The tests here that drive the CLI (internal/cli) in this process against
// real OpenAI-compatible servers (httptest) link the provider the command
// links: internal/cli's own tests do not (host/provider).
import (
	_ "github.com/wasmagent/wasmagent/host/openai"
	"github.com/wasmagent/wasmagent/internal/syncbuf"
)

// lockedBuffer is a bytes.Buffer safe to read while the command writes.
type lockedBuffer = syncbuf.Buffer
