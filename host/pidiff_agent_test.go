package host_test

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/hosttest"
)

// piAction does what diff.mjs's actions do for the queue kinds of
// piActions: Agent calls made at an event (or before the run).
var piAction = map[string]func(h *piHarness, text string){
	"clearSteering": func(h *piHarness, _ string) { h.agent.ClearSteeringQueue() },
	"clearFollowUp": func(h *piHarness, _ string) { h.agent.ClearFollowUpQueue() },
	"clearAll":      func(h *piHarness, _ string) { h.agent.ClearAllQueues() },
	"reset":         func(h *piHarness, _ string) { h.agent.Reset() },
	"steeringMode":  func(h *piHarness, text string) { h.agent.SetSteeringMode(host.QueueMode(text)) },
	"followUpMode":  func(h *piHarness, text string) { h.agent.SetFollowUpMode(host.QueueMode(text)) },
	"systemPrompt":  func(h *piHarness, text string) { h.agent.SetSystemPrompt(text) },
	"thinking":      func(h *piHarness, text string) { h.agent.SetThinkingLevel(text) },
	"dropTool": func(h *piHarness, _ string) {
		tools := h.agent.State().Tools
		h.agent.SetTools(tools[:max(0, len(tools)-1)])
	},
	"appendMessage": func(h *piHarness, text string) {
		h.agent.SetMessages(append(h.agent.State().Messages, piMessage(text)))
	},
	"subscribe": func(h *piHarness, _ string) {
		h.mu.Lock()
		subscribed := h.unsubscribe2 != nil
		h.mu.Unlock()
		if subscribed { // pi's listeners are a Set: subscribing again keeps one
			return
		}
		unsubscribe := h.agent.Subscribe(h.listener2)
		h.mu.Lock()
		h.unsubscribe2 = unsubscribe
		h.mu.Unlock()
	},
	"unsubscribe": func(h *piHarness, _ string) {
		h.mu.Lock()
		unsubscribe := h.unsubscribe2
		h.unsubscribe2 = nil
		h.mu.Unlock()
		if unsubscribe != nil {
			unsubscribe()
		}
	},
}

// listener2 is the second listener: it notes each event it is given.
func (h *piHarness) listener2(_ context.Context, e host.Event) error {
	h.note(map[string]string{"type": "harness_listener", "event": hosttest.Describe(e)})
	return nil
}

// piStateLine is diff.mjs's recordState: what the Agent's state says (and
// with full, the whole transcript).
func piStateLine(a *host.Agent, full bool) map[string]any {
	s := a.State()
	var current, errMsg any
	if s.StreamingMessage != nil {
		current = s.StreamingMessage.MessageRole()
	}
	if s.ErrorMessage != "" {
		errMsg = s.ErrorMessage
	}
	tools := make([]string, len(s.Tools))
	for i, t := range s.Tools {
		tools[i] = t.Info().Name
	}
	pending := append([]string{}, s.PendingToolCalls...)
	line := map[string]any{
		"type": "harness_state", "streaming": s.IsStreaming, "current": current, "pending": pending, "error": errMsg,
		"messages": piRoles(s.Messages), "queued": a.HasQueuedMessages(), "system": s.SystemPrompt,
		"thinking": s.ThinkingLevel, "tools": strings.Join(tools, ","),
	}
	if full {
		transcript, err := json.Marshal(append([]host.Message{}, s.Messages...)) // [] when empty, as pi's
		if err != nil {
			panic(err) // the loop's own messages: cannot fail
		}
		line["transcript"] = json.RawMessage(transcript)
	}
	return line
}
