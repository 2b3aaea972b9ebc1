package cli_test

import "github.com/wasmagent/wasmagent/internal/configtest"

// This package's tests wire agent.toml files that name the openai
// provider without reaching a model server: a stand-in takes its name,
// since the package does not link host/openai (host/provider).
func init() { configtest.StandInOpenAI() }
