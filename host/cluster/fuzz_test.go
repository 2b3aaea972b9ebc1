package cluster

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// FuzzDecodeCommand: any bytes decode to a command that passes check, or
// to an error; a decoded command encodes and decodes to itself.
func FuzzDecodeCommand(f *testing.F) {
	f.Add([]byte(`{"type":"prompt","message":"hi","streamingBehavior":"steer","id":"a1"}`))
	f.Add([]byte(`{"type":"abort"}`))
	f.Add([]byte(`{"type":"steer","images":[{"type":"image","data":"AA==","mimeType":"image/png"}]}`))
	f.Add([]byte(`{"type":"prompt","message":"x","extra":1}`))
	f.Add([]byte(`{"type":"follow_up","message":"x"} {}`))
	f.Add([]byte(`{"type":"abort","message":"x"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := DecodeCommand(data)
		if err != nil {
			if c.Type != "" || c.Message != "" {
				t.Fatalf("error %v with a command %+v", err, c)
			}
			return
		}
		if err := c.check(); err != nil {
			t.Fatalf("decoded %+v fails check: %v", c, err)
		}
		again, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		back, err := DecodeCommand(again)
		if err != nil || !reflect.DeepEqual(back, c) {
			t.Fatalf("round trip: %+v → %s → %+v, %v", c, again, back, err)
		}
	})
}

// FuzzCheckID: an id that passes is exactly one subject token of a safe
// alphabet, so a client's id never names another session's subjects.
func FuzzCheckID(f *testing.F) {
	for _, s := range []string{"0193a000-0000-7000-8000-000000000001", "a.b", "*", ">", "a b", "", "x\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		if checkID(id) != nil {
			return
		}
		if strings.ContainsAny(id, ".*> \t\r\n\x00") || id == "" || len(id) > maxIDLen {
			t.Fatalf("%q passes", id)
		}
		if idOf(cmdSubject(id)) != id || idOf(eventSubject(id)) != id || idOf(workSubject(id)) != id {
			t.Fatalf("%q does not come back from its subjects", id)
		}
	})
}
