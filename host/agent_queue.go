package host

import "slices"

// Steer queues a message to be injected after the current turn ends.
func (a *Agent) Steer(m Message) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.steering.items = append(a.steering.items, m)
}

// FollowUp queues a message to run only when the agent would otherwise
// stop.
func (a *Agent) FollowUp(m Message) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.followUp.items = append(a.followUp.items, m)
}

// ClearSteeringQueue drops the queued steering messages.
func (a *Agent) ClearSteeringQueue() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.steering.items = nil
}

// ClearFollowUpQueue drops the queued follow-up messages.
func (a *Agent) ClearFollowUpQueue() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.followUp.items = nil
}

// ClearAllQueues drops every queued message.
func (a *Agent) ClearAllQueues() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.steering.items = nil
	a.followUp.items = nil
}

// HasQueuedMessages reports whether either queue holds a message.
func (a *Agent) HasQueuedMessages() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.steering.items) > 0 || len(a.followUp.items) > 0
}

// SetSteeringMode sets how many steering messages one poll takes.
func (a *Agent) SetSteeringMode(m QueueMode) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.steering.mode = orDefault(m)
}

// SetFollowUpMode sets how many follow-up messages one poll takes.
func (a *Agent) SetFollowUpMode(m QueueMode) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.followUp.mode = orDefault(m)
}

// The setters below change the state or configuration for the next run; a
// run in progress keeps what it started with (docs/loop.md 10.7).

// SetSystemPrompt sets the system prompt.
func (a *Agent) SetSystemPrompt(s string) { a.update(func() { a.state.SystemPrompt = s }) }

// SetModel sets the model.
func (a *Agent) SetModel(m Model) { a.update(func() { a.state.Model = m }) }

// SetThinkingLevel sets the thinking level ("off" disables reasoning).
func (a *Agent) SetThinkingLevel(l string) { a.update(func() { a.state.ThinkingLevel = l }) }

// SetTools replaces the tools with a copy of tools.
func (a *Agent) SetTools(tools []Tool) { a.update(func() { a.state.Tools = slices.Clone(tools) }) }

// SetMessages replaces the transcript with a copy of messages.
func (a *Agent) SetMessages(messages []Message) {
	a.update(func() { a.state.Messages = slices.Clone(messages) })
}

// SetHooks replaces the before- and after-tool-call hooks.
func (a *Agent) SetHooks(before []BeforeToolCallHook, after []AfterToolCallHook) {
	a.update(func() {
		a.opts.BeforeToolCall = slices.Clone(before)
		a.opts.AfterToolCall = slices.Clone(after)
	})
}

// SetApprover sets the Approver of later runs (nil: each hook's OnAsk
// decides), for a front end that can ask its user.
func (a *Agent) SetApprover(ap Approver) { a.update(func() { a.opts.Approver = ap }) }

// SetToolExecution sets the tool execution mode and the concurrency cap of
// parallel batches (0: no cap).
func (a *Agent) SetToolExecution(mode ExecutionMode, maxConcurrency int) {
	a.update(func() {
		a.opts.ToolExecution = mode
		a.opts.MaxConcurrency = maxConcurrency
	})
}

func (a *Agent) update(f func()) {
	a.mu.Lock()
	defer a.mu.Unlock()
	f()
}
