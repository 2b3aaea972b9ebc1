package scripted_test

import (
	"context"
	"testing"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/scripted"
)

// FuzzParse: any bytes parse to a script or an error, and a parsed script
// streams every turn without a panic, ending each with done or error.
func FuzzParse(f *testing.F) {
	f.Add(`{"turns":[{"content":"hi"}]}`)
	f.Add(`{"chunkTokens":1,"turns":[{"content":[{"type":"thinking","thinking":"t"},{"type":"toolCall","id":"a","name":"b","arguments":{"x":[1]}}]},{"throw":"x"}]}`)
	f.Add(`{"turns":[{"content":[{"type":"toolCall","id":"a","name":"b","rawArguments":"{bad"}],"stopReason":"error"}]}`)
	f.Add(`{"turns":[{"content":5}]}`)
	f.Add(`{"turns":[{"content":[{"type":"thinking","thinking":"","thinkingSignature":"s","redacted":true},{"type":"text","text":"t","textSignature":"x"},{"type":"toolCall","id":"a","name":"b","thoughtSignature":"y"}]}]}`)
	f.Fuzz(func(t *testing.T, data string) {
		s, err := scripted.Parse([]byte(data))
		if err != nil {
			return
		}
		m := scripted.New(s)
		for range len(s.Turns) + 1 {
			var last string
			final := m.Stream(context.Background(), &host.Request{}, func(e host.AssistantMessageEvent) { last = e.Type })
			if final == nil || (last != host.StreamDone && last != host.StreamError) || !final.StopReason.Valid() {
				t.Fatalf("turn ended with %q, message %+v", last, final)
			}
		}
	})
}
