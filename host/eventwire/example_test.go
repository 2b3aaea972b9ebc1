package eventwire_test

import (
	"context"
	"os"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/eventwire"
)

// In ModeDeltas a message_update carries only what changed: no partial
// message, and no message beside it.
func ExampleNewLines() {
	enc := eventwire.NewLines(os.Stdout, eventwire.Options{Mode: eventwire.ModeDeltas})
	ctx := context.Background()
	var text string
	for _, delta := range []string{"Hello", ", world"} {
		text += delta
		partial := &host.AssistantMessage{Content: host.Text(text)}
		enc.Event(ctx, host.MessageUpdateEvent{
			AssistantMessageEvent: host.AssistantMessageEvent{Type: host.StreamTextDelta, Delta: delta, Partial: partial},
			Message:               partial,
		})
	}
	// Output:
	// {"type":"message_update","assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"Hello"}}
	// {"type":"message_update","assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":", world"}}
}
