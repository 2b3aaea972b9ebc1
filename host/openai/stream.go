package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	oai "github.com/openai/openai-go/v3"

	"github.com/wasmagent/wasmagent/host"
)

// assembler turns chunks into the message and its events: text and
// thinking blocks in the order they start (a block ends when another kind
// begins), tool calls keyed by their index, so that several calls whose
// argument fragments interleave are put together right.
//
// Snapshots share what they can: the open block's text lives in a
// strings.Builder and each call's arguments in a byte slice that only ever
// grows, so a snapshot takes the text or arguments as they stand without
// copying them, and a later append never changes what an earlier snapshot
// holds. Streaming a block costs time linear in its size, not quadratic.
type assembler struct {
	emit     func(host.AssistantMessageEvent)
	msg      *host.AssistantMessage
	open     int             // index in msg.Content of the open text or thinking block, or -1
	openText strings.Builder // the open block's text so far
	calls    map[int64]int   // tool call index → index in msg.Content
	args     map[int64][]byte
	finish   string
	started  bool
	// reasoningField is the field the latest reasoning came in
	reasoningField string
	// parseBudget is how many more bytes of partial tool-call arguments
	// this message may parse (streamingParseBudget at the start)
	parseBudget int
}

// streamingParseBudget bounds the bytes of partial arguments one message
// parses to give its updates pi-ai's partial values: an argument of up to
// about 14 KB in pieces of 100 bytes gets them all; a bigger one keeps the
// value of the last prefix parsed until the call ends, which gives the
// text as it was sent (a variable for tests).
var streamingParseBudget = 1 << 20

func newAssembler(info host.ModelInfo, emit func(host.AssistantMessageEvent)) *assembler {
	return &assembler{
		emit:        emit,
		parseBudget: streamingParseBudget,
		msg: &host.AssistantMessage{
			Content: host.Contents{}, API: info.API, Provider: info.Provider, Model: info.ID,
			StopReason: host.StopReasonStop, Timestamp: time.Now().UnixMilli(),
		},
		open:  -1,
		calls: map[int64]int{},
		args:  map[int64][]byte{},
	}
}

// snapshot is a copy of the message as it stands: events never share a
// message that changes afterwards.
func (a *assembler) snapshot() *host.AssistantMessage { return a.msg.Clone() }

func (a *assembler) start() {
	a.started = true
	a.emit(host.AssistantMessageEvent{Type: host.StreamStart, Partial: a.snapshot()})
}

// chunk applies one streamed chunk.
func (a *assembler) chunk(c oai.ChatCompletionChunk) error {
	if c.ID != "" {
		a.msg.ResponseID = c.ID
	}
	if c.Model != "" && c.Model != a.msg.Model {
		a.msg.ResponseModel = c.Model
	}
	if c.JSON.Usage.Valid() && c.Usage.TotalTokens+c.Usage.PromptTokens+c.Usage.CompletionTokens > 0 {
		u := c.Usage
		cached := int(u.PromptTokensDetails.CachedTokens)
		a.msg.Usage = host.Usage{
			Input:       int(u.PromptTokens) - cached,
			Output:      int(u.CompletionTokens),
			CacheRead:   cached,
			TotalTokens: int(u.TotalTokens),
		}
	}
	for _, ch := range c.Choices {
		if ch.Index != 0 {
			continue // n > 1 is never asked for
		}
		d := ch.Delta
		if r, field := reasoning(d); r != "" {
			a.reasoningField = field
			if err := a.appendText(true, r); err != nil {
				return err
			}
		}
		if d.Content != "" {
			if err := a.appendText(false, d.Content); err != nil {
				return err
			}
		}
		for _, tc := range d.ToolCalls {
			if err := a.toolCall(tc); err != nil {
				return err
			}
		}
		if ch.FinishReason != "" {
			a.finish = ch.FinishReason
		}
	}
	return nil
}

// reasoning is the thinking text of a delta and the field it came in:
// compatible servers send it as reasoning_content (DeepSeek, vLLM,
// llama.cpp), reasoning (OpenRouter, newer vLLM, Ollama) or
// reasoning_text; openai-go has no field for any. The first non-empty
// one counts, as in pi-ai.
func reasoning(d oai.ChatCompletionChunkChoiceDelta) (text, field string) {
	for _, k := range []string{"reasoning_content", "reasoning", "reasoning_text"} {
		// Extra fields are never Valid() in openai-go; their raw JSON is
		// what counts (null and non-strings are skipped).
		if f, ok := d.JSON.ExtraFields[k]; ok {
			var s string
			if json.Unmarshal([]byte(f.Raw()), &s) == nil && s != "" {
				return s, k
			}
		}
	}
	return "", ""
}

// appendText adds to the open text (or thinking) block, starting one, and
// ending the open block of the other kind, when needed.
func (a *assembler) appendText(thinking bool, s string) error {
	if a.open >= 0 {
		_, isThinking := a.msg.Content[a.open].(host.ThinkingContent)
		if isThinking != thinking {
			a.endOpen()
		}
	}
	kind := map[bool][3]string{
		false: {host.StreamTextStart, host.StreamTextDelta, host.StreamTextEnd},
		true:  {host.StreamThinkingStart, host.StreamThinkingDelta, host.StreamThinkingEnd},
	}[thinking]
	if a.open < 0 {
		if len(a.msg.Content) >= MaxContentBlocks {
			return fmt.Errorf("the server sent more than %d content blocks in one message", MaxContentBlocks)
		}
		if thinking {
			// pi-ai keeps the field the reasoning came in as the block's
			// signature, to send it back the same way.
			a.msg.Content = append(a.msg.Content, host.ThinkingContent{ThinkingSignature: a.reasoningField})
		} else {
			a.msg.Content = append(a.msg.Content, host.TextContent{})
		}
		a.open = len(a.msg.Content) - 1
		a.openText.Reset()
		a.emit(host.AssistantMessageEvent{Type: kind[0], ContentIndex: a.open, Partial: a.snapshot()})
	}
	a.openText.WriteString(s)
	switch b := a.msg.Content[a.open].(type) {
	case host.ThinkingContent:
		b.Thinking = a.openText.String()
		a.msg.Content[a.open] = b
	case host.TextContent:
		b.Text = a.openText.String()
		a.msg.Content[a.open] = b
	}
	a.emit(host.AssistantMessageEvent{Type: kind[1], ContentIndex: a.open, Delta: s, Partial: a.snapshot()})
	return nil
}

func (a *assembler) endOpen() {
	if a.open < 0 {
		return
	}
	i := a.open
	a.open = -1
	switch b := a.msg.Content[i].(type) {
	case host.ThinkingContent:
		a.emit(host.AssistantMessageEvent{Type: host.StreamThinkingEnd, ContentIndex: i, Content: b.Thinking, Partial: a.snapshot()})
	case host.TextContent:
		a.emit(host.AssistantMessageEvent{Type: host.StreamTextEnd, ContentIndex: i, Content: b.Text, Partial: a.snapshot()})
	}
}

// MaxContentBlocks bounds the content blocks (text, thinking, tool calls)
// of one message: a server that streams more is refused as a flood. It is
// far above any tool-call cap a host sets (the loop answers calls past its
// own cap with an error result; see host.Config.MaxToolCalls), and it keeps
// the cost of each event's snapshot bounded.
const MaxContentBlocks = 4096

func (a *assembler) toolCall(tc oai.ChatCompletionChunkChoiceDeltaToolCall) error {
	i, ok := a.calls[tc.Index]
	if !ok {
		if len(a.msg.Content) >= MaxContentBlocks {
			return fmt.Errorf("the server sent more than %d content blocks in one message", MaxContentBlocks)
		}
		a.endOpen()
		a.msg.Content = append(a.msg.Content, host.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: json.RawMessage{}})
		i = len(a.msg.Content) - 1
		a.calls[tc.Index] = i
		a.emit(host.AssistantMessageEvent{Type: host.StreamToolCallStart, ContentIndex: i, Partial: a.snapshot()})
	}
	call := a.msg.Content[i].(host.ToolCall)
	if tc.ID != "" {
		call.ID = tc.ID
	}
	if tc.Function.Name != "" && call.Name == "" {
		call.Name = tc.Function.Name
	}
	if frag := tc.Function.Arguments; frag != "" {
		b := append(a.args[tc.Index], frag...)
		a.args[tc.Index] = b
		// while streaming, the value of the prefix, as pi-ai gives it
		// (the call's end puts back the text as the server sent it);
		// each parse reads the whole prefix, so past the message's
		// parse budget the last value stays (pi parses every prefix:
		// quadratic, minutes for a 16 MiB argument in small pieces)
		if len(b) <= a.parseBudget {
			a.parseBudget -= len(b)
			call.Arguments = streamingArgs(b)
		}
		a.msg.Content[i] = call
		a.emit(host.AssistantMessageEvent{Type: host.StreamToolCallDelta, ContentIndex: i, Delta: frag, Partial: a.snapshot()})
		return nil
	}
	a.msg.Content[i] = call
	// as pi-ai: every piece of a call is an update, one without arguments
	// too (its delta is empty)
	a.emit(host.AssistantMessageEvent{Type: host.StreamToolCallDelta, ContentIndex: i, Partial: a.snapshot()})
	return nil
}

// endAll ends the open text block and every tool call, in content order.
func (a *assembler) endAll() {
	a.endOpen()
	idx := make([]int, 0, len(a.calls))
	raw := map[int][]byte{}
	for tc, i := range a.calls {
		idx = append(idx, i)
		raw[i] = a.args[tc]
	}
	sort.Ints(idx)
	for _, i := range idx {
		call := a.msg.Content[i].(host.ToolCall)
		call.Arguments = json.RawMessage(raw[i])
		if len(call.Arguments) == 0 {
			call.Arguments = json.RawMessage("{}")
		}
		a.msg.Content[i] = call
		c := call
		a.emit(host.AssistantMessageEvent{Type: host.StreamToolCallEnd, ContentIndex: i, ToolCall: &c, Partial: a.snapshot()})
	}
	a.calls = map[int64]int{}
}

// done finishes a stream that ended cleanly.
func (a *assembler) done() *host.AssistantMessage {
	a.endAll()
	switch a.finish {
	case "stop", "end_turn":
		a.msg.StopReason = host.StopReasonStop
	case "length":
		a.msg.StopReason = host.StopReasonLength
	case "tool_calls", "function_call":
		a.msg.StopReason = host.StopReasonToolUse
	case "content_filter":
		return a.failMsg(errors.New("the server's content filter stopped the response"))
	case "":
		return a.failMsg(errCut)
	default:
		a.msg.StopReason = host.StopReasonStop
	}
	// Some servers (Ollama among them) say "stop" for a message with tool
	// calls; the calls are what matters.
	if a.msg.StopReason == host.StopReasonStop && len(a.msg.Content.ToolCalls()) > 0 {
		a.msg.StopReason = host.StopReasonToolUse
	}
	final := a.snapshot()
	a.emit(host.AssistantMessageEvent{Type: host.StreamDone, Reason: final.StopReason, Message: final})
	return a.snapshot()
}

// fail ends the message as an error, or as aborted when ctx was cancelled
// (not when it ran out of time: that is an error the user should see).
// err is already explained (Model.explain).
func (a *assembler) fail(ctx context.Context, err error) *host.AssistantMessage {
	if errors.Is(ctx.Err(), context.Canceled) {
		a.endAll()
		a.msg.StopReason = host.StopReasonAborted
		a.msg.ErrorMessage = "Request was aborted"
		final := a.snapshot()
		a.emit(host.AssistantMessageEvent{Type: host.StreamError, Reason: final.StopReason, Error: final})
		return a.snapshot()
	}
	return a.failMsg(err)
}

func (a *assembler) failMsg(err error) *host.AssistantMessage {
	a.endAll()
	a.msg.StopReason = host.StopReasonError
	a.msg.ErrorMessage = err.Error()
	final := a.snapshot()
	a.emit(host.AssistantMessageEvent{Type: host.StreamError, Reason: final.StopReason, Error: final})
	return a.snapshot()
}
