package openai

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// genEvent is the JSON of one generated chunk: nested objects and arrays
// with strings that hold brackets, commas, quotes and backslashes.
func genEvent(rng *rand.Rand, depth int) string {
	switch k := rng.IntN(6); {
	case depth > 3 || k < 2:
		return []string{`1`, `"a,b"`, `"[{,\"}]"`, `"\\"`, `null`, `"\\\",["`}[rng.IntN(6)]
	case k < 4:
		var items []string
		for range rng.IntN(6) {
			items = append(items, genEvent(rng, depth+1))
		}
		return "[" + strings.Join(items, ", ") + "]"
	default:
		var members []string
		for i := range rng.IntN(6) {
			members = append(members, fmt.Sprintf(`"k%d,{": %s`, i, genEvent(rng, depth+1)))
		}
		return "{" + strings.Join(members, ",") + "}"
	}
}

// valuesOf is the count eventValues keeps, from the decoded value: a
// container counts one, and each of its elements after the first one.
func valuesOf(v any) int {
	n := 0
	switch v := v.(type) {
	case []any:
		n = 1 + max(len(v)-1, 0)
		for _, x := range v {
			n += valuesOf(x)
		}
	case map[string]any:
		n = 1 + max(len(v)-1, 0)
		for _, x := range v {
			n += valuesOf(x)
		}
	}
	return n
}

// Whatever the stream (events split over several data lines, comments,
// other fields, CRLF line ends) and however it is cut into reads, the
// body fails exactly when an event holds more values than the bound,
// before that event's end is handed on, and hands on every byte before.
func TestEventValuesProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for round := range 300 {
		limit := 1 + rng.IntN(40)
		var stream strings.Builder
		over := -1 // the offset of the first byte that must not be handed on
		for e := 0; e < 1+rng.IntN(5); e++ {
			doc := genEvent(rng, 0)
			var v any
			if err := json.Unmarshal([]byte(doc), &v); err != nil {
				t.Fatalf("generated %s: %v", doc, err)
			}
			nl := []string{"\n", "\r\n"}[rng.IntN(2)]
			if rng.IntN(3) == 0 {
				stream.WriteString(": comment {[,,,]}" + nl)
			}
			if rng.IntN(3) == 0 {
				stream.WriteString("event: {[,]}" + nl)
			}
			// the document over one or two data lines, cut outside strings
			cut := len(doc)
			if rng.IntN(2) == 0 {
				cut = lastBracket(doc) + 1
			}
			start := stream.Len()
			stream.WriteString("data: " + doc[:cut] + nl)
			if cut < len(doc) {
				stream.WriteString("data:" + doc[cut:] + nl)
			}
			if over < 0 && valuesOf(v) > limit {
				over = start // somewhere in this event's data, before its end
				stream.WriteString(nl)
				break
			}
			stream.WriteString(nl)
		}
		body := []byte(stream.String())
		c := &eventValues{limit: limit}
		passed := 0
		var err error
		for off := 0; off < len(body) && err == nil; {
			n := min(len(body)-off, 1+rng.IntN(64))
			var m int
			m, err = c.scan(body[off : off+n])
			passed += m
			off += n
		}
		var flood *floodError
		switch {
		case over < 0 && err != nil:
			t.Fatalf("round %d: limit %d: %v on a stream within it:\n%s", round, limit, err, body)
		case over >= 0 && !errors.As(err, &flood):
			t.Fatalf("round %d: limit %d: no error on an event over it:\n%s", round, limit, body)
		case over >= 0 && (passed < over || passed >= len(body)-2):
			t.Fatalf("round %d: %d bytes handed on, the flooding event starts at %d and ends at %d", round, passed, over, len(body))
		}
	}
}

// lastBracket is the offset of the last "{" or "[" of doc outside its
// strings.
func lastBracket(doc string) int {
	last, in, esc := -1, false, false
	for i := 0; i < len(doc); i++ {
		switch c := doc[i]; {
		case in:
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				in = false
			}
		case c == '"':
			in = true
		case c == '{' || c == '[':
			last = i
		}
	}
	return last
}

// A line longer than openai-go's reader takes (32 MiB) is told as that,
// not as "bufio.Scanner: token too long".
func TestLongLineSaysSo(t *testing.T) {
	got := what(bufio.ErrTooLong, &exchange{status: 200, read: 40 << 20}, 1, 0)
	if want := "after 1 chunk, the server sent a line longer than the host reads in an event stream (32 MiB)"; got != want {
		t.Fatalf("%q, want %q", got, want)
	}
}

// FuzzEventValues: whatever the bytes and the limit, counting them in one
// read or in reads of any sizes hands on the same bytes and fails alike.
func FuzzEventValues(f *testing.F) {
	f.Add([]byte("data: {\"a\":[1,2,3]}\n\ndata: [1,\n: x,\ndata:2]\r\n\r\n"), uint8(3), uint8(5))
	f.Add([]byte("data:{\"\\\",[\":{}}\nevent: [[[\n\n"), uint8(1), uint8(1))
	f.Fuzz(func(t *testing.T, body []byte, limit, step uint8) {
		whole := &eventValues{limit: int(limit)}
		n, err := whole.scan(body)
		parts := &eventValues{limit: int(limit)}
		m, perr := 0, error(nil)
		for off := 0; off < len(body) && perr == nil; {
			k := min(len(body)-off, 1+int(step)%17)
			var got int
			got, perr = parts.scan(body[off : off+k])
			m += got
			off += k
		}
		if n != m || (err == nil) != (perr == nil) {
			t.Fatalf("one read: %d bytes, %v; reads of %d: %d bytes, %v", n, err, 1+int(step)%17, m, perr)
		}
	})
}
