package configtest

import (
	"context"
	"sync"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/provider"
)

var standIn sync.Once

// StandInOpenAI registers, once per process, a provider named "openai"
// whose models answer every request with an error, for the tests of
// packages that wire agent.toml files naming openai but never reach a
// model server: those packages do not link host/openai, and so not
// openai-go (host/provider). A test that reaches a model server lives
// where the real provider is linked (host/openai, cmd/wasmagent). Call it
// from TestMain or an init of the test package.
func StandInOpenAI() {
	standIn.Do(func() {
		provider.Register("openai", func(o provider.Options) (host.Model, error) {
			return host.ModelFunc(func(ctx context.Context, req *host.Request, emit func(host.AssistantMessageEvent)) *host.AssistantMessage {
				return &host.AssistantMessage{Content: host.Contents{}, API: "openai-completions", Provider: "openai", Model: o.Model, StopReason: host.StopReasonError,
					ErrorMessage: "the openai provider of this test is a stand-in (internal/configtest.StandInOpenAI): a test that reaches a model server belongs where host/openai is linked"}
			}), nil
		})
	})
}
