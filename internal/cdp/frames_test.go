package cdp

import (
	"bytes"
	"strings"
	"testing"
	"testing/iotest"
)

func frames(t testing.TB, in string, max int) ([]string, error) {
	t.Helper()
	var got []string
	err := readFrames(iotest.HalfReader(strings.NewReader(in)), max, func(b []byte) { got = append(got, string(b)) })
	return got, err
}

func TestReadFrames(t *testing.T) {
	cases := []struct {
		in   string
		want []string
		err  bool
	}{
		{"", nil, false},
		{"{}\x00", []string{"{}"}, false},
		{"a\x00b\x00", []string{"a", "b"}, false},
		{"a\x00\x00", []string{"a", ""}, false},
		{"a\x00half", []string{"a"}, false},
		{strings.Repeat("x", 100) + "\x00", []string{strings.Repeat("x", 100)}, false},
		{strings.Repeat("x", 101) + "\x00", nil, true},
		{strings.Repeat("x", 200), nil, true},
	}
	for _, c := range cases {
		got, err := frames(t, c.in, 100)
		if (err != nil) != c.err {
			t.Errorf("%.20q: error %v, want error %v", c.in, err, c.err)
		}
		if strings.Join(got, "|") != strings.Join(c.want, "|") || len(got) != len(c.want) {
			t.Errorf("%.20q: %q, want %q", c.in, got, c.want)
		}
	}
}

// A message longer than the reader's buffer arrives whole.
func TestReadFramesLong(t *testing.T) {
	long := strings.Repeat("y", 300<<10)
	got, err := frames(t, long+"\x00z\x00", 1<<20)
	if err != nil || len(got) != 2 || got[0] != long || got[1] != "z" {
		t.Fatalf("%v, %d messages", err, len(got))
	}
}

func FuzzReadFrames(f *testing.F) {
	f.Add([]byte("a\x00b\x00c"), 4)
	f.Add([]byte("\x00\x00"), 0)
	f.Add(bytes.Repeat([]byte("q"), 70000), 65537)
	f.Fuzz(func(t *testing.T, in []byte, max int) {
		if max < 0 || max > 1<<20 {
			return
		}
		var got [][]byte
		err := readFrames(bytes.NewReader(in), max, func(b []byte) { got = append(got, b) })
		parts := bytes.Split(in, []byte{0})
		whole := parts[:len(parts)-1]
		for i, g := range got {
			if len(g) > max {
				t.Fatalf("message %d: %d bytes, more than %d", i, len(g), max)
			}
			if !bytes.Equal(g, whole[i]) {
				t.Fatalf("message %d: %q, want %q", i, g, whole[i])
			}
		}
		if err == nil && len(got) != len(whole) {
			t.Fatalf("%d messages, want %d", len(got), len(whole))
		}
		if err != nil && len(got) == len(whole) && len(parts[len(parts)-1]) <= max {
			t.Fatalf("error %v with every message whole", err)
		}
	})
}

// Anything the browser sends is dispatched without a panic.
func FuzzDispatch(f *testing.F) {
	f.Add([]byte(`{"id":1,"result":{}}`))
	f.Add([]byte(`{"method":"Runtime.consoleAPICalled","sessionId":"s","params":{"type":"log","args":[{"value":1}]}}`))
	f.Add([]byte(`{"method":"Log.entryAdded","sessionId":"s","params":{"entry":5}}`))
	f.Add([]byte(`{"id":2,"error":{"code":-1,"message":"x"}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		b := &Browser{waiting: map[int64]chan response{1: make(chan response, 1), 2: make(chan response, 1)}, pages: map[string]*Page{}}
		b.pages["s"] = &Page{b: b, session: "s"}
		b.dispatch(raw)
	})
}
