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

func stateJSON(st session.State) map[string]any {
	out := map[string]any{
		"model":                 nil,
		"thinkingLevel":         st.ThinkingLevel,
		"isStreaming":           st.IsStreaming,
		"isCompacting":          false,
		"steeringMode":          st.SteeringMode,
		"followUpMode":          st.FollowUpMode,
		"sessionId":             st.SessionID,
		"autoCompactionEnabled": false,
		"autoRetryEnabled":      st.AutoRetry,
		"messageCount":          st.MessageCount,
		"pendingMessageCount":   st.PendingMessageCount,
	}
	if st.Model != nil {
		out["model"] = toModelJSON(*st.Model)
	}
	if f := cmp.Or(st.SessionFile, st.NewFile); f != "" {
		out["sessionFile"] = f // pi names the file before it writes it
	}
	if st.SessionName != "" {
		out["sessionName"] = st.SessionName
	}
	return out
}

func statsJSON(sess *session.Session) map[string]any {
	st := sess.State()
	c := sess.Stats()
	out := map[string]any{
		"sessionId":         st.SessionID,
		"userMessages":      c.UserMessages,
		"assistantMessages": c.AssistantMessages,
		"toolCalls":         c.ToolCalls,
		"toolResults":       c.ToolResults,
		"totalMessages":     c.TotalMessages,
		"tokens": map[string]int{
			"input": c.Tokens.Input, "output": c.Tokens.Output, "cacheRead": c.Tokens.CacheRead,
			"cacheWrite": c.Tokens.CacheWrite, "total": c.Tokens.TotalTokens,
		},
		"cost": c.Tokens.Cost.Total,
	}
	if f := cmp.Or(st.SessionFile, st.NewFile); f != "" {
		out["sessionFile"] = f
	}
	return out
}
