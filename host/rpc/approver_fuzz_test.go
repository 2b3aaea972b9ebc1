package rpc

import (
	"encoding/json"
	"testing"
)

// FuzzAnswer: no line makes answering panic; a line is taken as the answer
// only if it names the pending question and says yes, no or cancelled;
// any other line leaves the question pending.
func FuzzAnswer(f *testing.F) {
	for _, s := range []string{
		`{"type":"extension_ui_response","id":"q","confirmed":true}`,
		`{"type":"extension_ui_response","id":"q","confirmed":false}`,
		`{"type":"extension_ui_response","id":"q","cancelled":true}`,
		`{"type":"extension_ui_response","id":"q","cancelled":false}`,
		`{"type":"extension_ui_response","id":"r","confirmed":true}`,
		`{"type":"extension_ui_response","id":1,"confirmed":true}`,
		`{"type":"extension_ui_response","id":"q","value":"Allow"}`,
		`{"type":"extension_ui_response","id":"q","confirmed":"yes"}`,
		`{"type":"extension_ui_response","id":"\u0071","confirmed":true}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		c, err := DecodeCommand(line)
		if err != nil {
			return // answered as a parse failure before any question sees it
		}
		ch := make(chan Command, 1)
		a := &approver{pending: map[string]chan Command{"q": ch}}
		err = a.answer(c)
		_, pending := a.pending["q"]
		select {
		case got := <-ch:
			if err != nil || pending {
				t.Fatalf("answered, but err %v, still pending %v", err, pending)
			}
			var id string
			if json.Unmarshal(got.ID, &id) != nil || id != "q" || (got.Confirmed == nil && (got.Cancelled == nil || !*got.Cancelled)) {
				t.Fatalf("took %s as an answer", line)
			}
		default:
			if err == nil || !pending {
				t.Fatalf("not answered, but err %v, still pending %v", err, pending)
			}
		}
	})
}
