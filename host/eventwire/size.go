package eventwire

import "github.com/wasmagent/wasmagent/host"

// Lower bounds of the JSON a message's parts encode to, besides their
// strings: the bound is stated in the message's encoded size, so the
// estimate must never exceed it.
const (
	messageOverhead  = 200 // role, api, provider, model, usage, stopReason, timestamp
	textOverhead     = 24  // {"type":"text","text":""}
	thinkingOverhead = 32  // {"type":"thinking","thinking":""}
	toolCallOverhead = 48  // {"type":"toolCall","id":"","name":"","arguments":}
	imageOverhead    = 40  // {"type":"image","data":"","mimeType":""}
)

// messageSize is a lower bound of m's encoded size, in time linear in its
// number of blocks (encoding it to know would cost its size, for every
// update: the quadratic cost this package exists to avoid).
func messageSize(m *host.AssistantMessage) int64 {
	if m == nil {
		return 0
	}
	n := messageOverhead + len(m.API) + len(m.Provider) + len(m.Model) + len(m.ResponseModel) + len(m.ResponseID) + len(m.ErrorMessage)
	for _, c := range m.Content {
		n += blockSize(c)
	}
	return int64(n)
}

func blockSize(c host.Content) int {
	switch b := c.(type) {
	case host.TextContent:
		return textOverhead + len(b.Text) + len(b.TextSignature)
	case host.ThinkingContent:
		return thinkingOverhead + len(b.Thinking) + len(b.ThinkingSignature)
	case host.ToolCall:
		return toolCallOverhead + len(b.ID) + len(b.Name) + len(b.Arguments) + len(b.ThoughtSignature)
	case host.ImageContent:
		return imageOverhead + len(b.Data) + len(b.MimeType)
	case host.UnknownContent:
		return len(b.Raw)
	}
	return 0
}

// updateSize estimates the encoded size of a message_update: the message
// twice in ModePi, plus what the event itself carries.
func updateSize(u *host.MessageUpdateEvent, withPartials bool) int64 {
	e := &u.AssistantMessageEvent
	n := int64(80 + len(e.Delta) + len(e.Content))
	if e.ToolCall != nil {
		n += int64(blockSize(*e.ToolCall))
	}
	if withPartials {
		n += messageSize(u.Message) + messageSize(e.Partial)
	}
	return n
}
