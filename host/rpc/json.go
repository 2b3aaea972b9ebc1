package rpc

import (
	"cmp"
	"time"

	"github.com/wasmagent/wasmagent/host/session"
)

func nowMillis() int64 { return time.Now().UnixMilli() }

// modelJSON is pi's Model, with what wasmagent knows of it.
type modelJSON struct {
	ID            string   `json:"id"`
	Name          string   `json:"name"`
	API           string   `json:"api"`
	Provider      string   `json:"provider"`
	BaseURL       string   `json:"baseUrl"`
	Reasoning     bool     `json:"reasoning"`
	Input         []string `json:"input"`
	Cost          costJSON `json:"cost"`
	ContextWindow int      `json:"contextWindow"`
	MaxTokens     int      `json:"maxTokens"`
}

type costJSON struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite"`
}

// toModelJSON describes m as pi does a model of models.json: what the
// configuration does not say (the context window, the answer's length)
// is pi's default for such a model. It reasons: wasmagent passes every
// thinking level on as the model's reasoning effort.
func toModelJSON(m session.Model) modelJSON {
	return modelJSON{ID: m.Info.ID, Name: m.Info.ID, API: m.Info.API, Provider: m.Info.Provider, BaseURL: m.BaseURL,
		Reasoning: true, Input: []string{"text", "image"}, ContextWindow: piContextWindow, MaxTokens: cmp.Or(m.MaxTokens, piMaxTokens)}
}

// pi's defaults for a models.json model that does not say
// (pi-coding-agent's model registry).
const (
	piContextWindow = 128000
	piMaxTokens     = 16384
)

// stateJSON is pi's get_state answer, its members in pi's order; then
// autoRetryEnabled, which pi's has not.
func stateJSON(st session.State) object {
	var model any
	if st.Model != nil {
		model = toModelJSON(*st.Model)
	}
	out := object{
		{"model", model},
		{"thinkingLevel", st.ThinkingLevel},
		{"isStreaming", st.IsStreaming},
		{"isCompacting", false},
		{"steeringMode", st.SteeringMode},
		{"followUpMode", st.FollowUpMode},
	}
	if f := cmp.Or(st.SessionFile, st.NewFile); f != "" {
		out = append(out, field{"sessionFile", f}) // pi names the file before it writes it
	}
	out = append(out, field{"sessionId", st.SessionID})
	if st.SessionName != "" {
		out = append(out, field{"sessionName", st.SessionName})
	}
	return append(out,
		field{"autoCompactionEnabled", false},
		field{"messageCount", st.MessageCount},
		field{"pendingMessageCount", st.PendingMessageCount},
		field{"autoRetryEnabled", st.AutoRetry},
	)
}

// statsJSON is pi's get_session_stats answer, its members in pi's order.
func statsJSON(sess *session.Session) object {
	st := sess.State()
	c := sess.Stats()
	var out object
	if f := cmp.Or(st.SessionFile, st.NewFile); f != "" {
		out = append(out, field{"sessionFile", f})
	}
	return append(out,
		field{"sessionId", st.SessionID},
		field{"userMessages", c.UserMessages},
		field{"assistantMessages", c.AssistantMessages},
		field{"toolCalls", c.ToolCalls},
		field{"toolResults", c.ToolResults},
		field{"totalMessages", c.TotalMessages},
		field{"tokens", object{
			{"input", c.Tokens.Input}, {"output", c.Tokens.Output}, {"cacheRead", c.Tokens.CacheRead},
			{"cacheWrite", c.Tokens.CacheWrite}, {"total", c.Tokens.TotalTokens},
		}},
		field{"cost", c.Tokens.Cost.Total},
	)
}
