package cluster

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
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

// FuzzReplyError: whatever another host answers, a command's sender gets
// nil or an error, never a panic; a well-formed answer keeps its kind.
func FuzzReplyError(f *testing.F) {
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"error":"x","code":"busy"}`))
	f.Add([]byte(`{"error":"bad command: y","code":"invalid"}`))
	f.Add([]byte(`not json`))
	f.Fuzz(func(t *testing.T, data []byte) {
		err := replyError(data)
		var rep reply
		if json.Unmarshal(data, &rep) == nil && rep.Error == "" && err != nil {
			t.Fatalf("%s: a success answered %v", data, err)
		}
		if json.Unmarshal(data, &rep) == nil && rep.Error != "" && err == nil {
			t.Fatalf("%s: a failure answered nil", data)
		}
	})
}

// FuzzDecodeMeta: a session's stored metadata decodes or fails cleanly,
// and what decodes encodes back to an equal value.
func FuzzDecodeMeta(f *testing.F) {
	f.Add([]byte(`{"owner":"alice","systemPrompt":"be brief","model":{"provider":"p","modelId":"m"},"created":"2026-12-01T10:00:00Z"}`))
	f.Add([]byte(`{"owner":""}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := decodeMeta(data)
		if err != nil {
			return
		}
		again, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		back, err := decodeMeta(again)
		if err != nil || !back.Created.Equal(m.Created) {
			t.Fatalf("%s → %s → %+v, %v", data, again, back, err)
		}
		back.Created, m.Created = time.Time{}, time.Time{}
		if !reflect.DeepEqual(back, m) {
			t.Fatalf("%s → %s → %+v", data, again, back)
		}
	})
}
