package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	oai "github.com/openai/openai-go/v3"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/internal/words"
)

// assembler turns chunks into the message and its events as pi-ai's
// openai-completions stream does: one text block and one thinking block
// per message, each started by its first delta and added to by every
// later one (text after reasoning after text goes on in the first text
// block); tool calls keyed by their index, so that several calls whose
// argument fragments interleave are put together right; and every
// block's end (text_end, thinking_end, toolcall_end, in content order)
// only once the stream is over: when it ends or is aborted, not when it
// fails (cut, timed out, or an error mid-way).
//
// Snapshots share what they can: each block's text lives in a
// strings.Builder and each call's arguments in a byte slice that only ever
// grows, so a snapshot takes the text or arguments as they stand without
// copying them, and a later append never changes what an earlier snapshot
// holds. Streaming a block costs time linear in its size, not quadratic.
type assembler struct {
	emit func(host.AssistantMessageEvent)
	msg  *host.AssistantMessage
	// text and thinking are the index in msg.Content of the text and the
	// thinking block, or -1; textB and thinkB their text so far
	text, thinking int
	textB, thinkB  strings.Builder
	calls          map[int64]int // tool call index → index in msg.Content
	args           map[int64][]byte
	finish         string
	started        bool
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
		text:     -1,
		thinking: -1,
		calls:    map[int64]int{},
		args:     map[int64][]byte{},
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

// appendText adds to the text (or thinking) block, starting it when
// needed.
func (a *assembler) appendText(thinking bool, s string) error {
	idx, b, kind := &a.text, &a.textB, [2]string{host.StreamTextStart, host.StreamTextDelta}
	if thinking {
		idx, b, kind = &a.thinking, &a.thinkB, [2]string{host.StreamThinkingStart, host.StreamThinkingDelta}
	}
	if *idx < 0 {
		if len(a.msg.Content) >= MaxContentBlocks {
			return fmt.Errorf("the server sent more than %s in one message", words.Count(MaxContentBlocks, "content block"))
		}
		if thinking {
			// pi-ai keeps the field the reasoning came in as the block's
			// signature, to send it back the same way.
			a.msg.Content = append(a.msg.Content, host.ThinkingContent{ThinkingSignature: a.reasoningField})
		} else {
			a.msg.Content = append(a.msg.Content, host.TextContent{})
		}
		*idx = len(a.msg.Content) - 1
		a.emit(host.AssistantMessageEvent{Type: kind[0], ContentIndex: *idx, Partial: a.snapshot()})
	}
	b.WriteString(s)
	switch c := a.msg.Content[*idx].(type) {
	case host.ThinkingContent:
		c.Thinking = b.String()
		a.msg.Content[*idx] = c
	case host.TextContent:
		c.Text = b.String()
		a.msg.Content[*idx] = c
	}
	a.emit(host.AssistantMessageEvent{Type: kind[1], ContentIndex: *idx, Delta: s, Partial: a.snapshot()})
	return nil
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
			return fmt.Errorf("the server sent more than %s in one message", words.Count(MaxContentBlocks, "content block"))
		}
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

// finishCalls gives each tool call its arguments as the server sent
// them ({} for none).
func (a *assembler) finishCalls() {
	for tc, i := range a.calls {
		call := a.msg.Content[i].(host.ToolCall)
		call.Arguments = json.RawMessage(a.args[tc])
		if len(call.Arguments) == 0 {
			call.Arguments = json.RawMessage("{}")
		}
		a.msg.Content[i] = call
	}
	a.calls = map[int64]int{}
}

// endAll ends every block, in content order, as pi-ai does once the
// stream is over.
func (a *assembler) endAll() {
	a.finishCalls()
	for i, b := range a.msg.Content {
		switch b := b.(type) {
		case host.ThinkingContent:
			a.emit(host.AssistantMessageEvent{Type: host.StreamThinkingEnd, ContentIndex: i, Content: b.Thinking, Partial: a.snapshot()})
		case host.TextContent:
			a.emit(host.AssistantMessageEvent{Type: host.StreamTextEnd, ContentIndex: i, Content: b.Text, Partial: a.snapshot()})
		case host.ToolCall:
			c := b
			a.emit(host.AssistantMessageEvent{Type: host.StreamToolCallEnd, ContentIndex: i, ToolCall: &c, Partial: a.snapshot()})
		}
	}
}

// done finishes a stream that ended cleanly.
func (a *assembler) done() *host.AssistantMessage {
	if a.finish == "" {
		return a.failMsg(errCut) // no ends: the stream did not end
	}
	a.endAll()
	switch a.finish {
	case "stop", "end_turn":
		a.msg.StopReason = host.StopReasonStop
	case "length":
		a.msg.StopReason = host.StopReasonLength
	case "tool_calls", "function_call":
		a.msg.StopReason = host.StopReasonToolUse
	case "content_filter":
		// as pi-ai: the blocks end, then the error
		return a.failMsg(errors.New("the server's content filter stopped the response"))
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
		// as pi-ai: the OpenAI client ends an aborted stream as if it
		// were over, so the blocks end, then the message is aborted
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
	a.finishCalls()
	a.msg.StopReason = host.StopReasonError
	a.msg.ErrorMessage = err.Error()
	final := a.snapshot()
	a.emit(host.AssistantMessageEvent{Type: host.StreamError, Reason: final.StopReason, Error: final})
	return a.snapshot()
}
