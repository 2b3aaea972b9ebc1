package wasmtool

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzResultParts feeds a hostile head and parts to the decoder of the
// output in parts: it never panics; what it accepts encodes as the host
// encodes events, holds only valid UTF-8, and used every part; and a head
// that names no part, with no parts, means what the same bytes mean as a
// plain JSON result.
func FuzzResultParts(f *testing.F) {
	for _, s := range []string{
		`{"content":[{"type":"text","textPart":0}]}`,
		`{"content":[{"type":"text","textPart":0},{"type":"image","dataPart":1,"mimeType":"image/png"}],"details":{"n":1},"isError":true,"terminate":true}`,
		`{"content":[{"type":"text","textPart":1}]}`, `{"content":[{"type":"text","textPart":-1}]}`,
		`{"content":[{"type":"text","textPart":0},{"type":"text","textPart":0}]}`,
		`{"content":[{"type":"text","text":"a","textPart":0}]}`, `{"content":[{"type":"text","text":"inline"}]}`,
		`{"content":[{"type":"text","textPart":99999999999999999999}]}`, `{"content":null}`, `{}`, "\xff",
	} {
		f.Add([]byte(s), "part \xff one", "aGk=", uint8(2))
	}
	f.Fuzz(func(t *testing.T, head []byte, p0, p1 string, n uint8) {
		parts := []string{p0, p1}[:min(int(n%3), 2)]
		res, isError, err := parseResultParts(head, parts)
		if err == nil {
			if _, err := json.Marshal(res); err != nil {
				t.Fatalf("accepted result does not encode: %v", err)
			}
			if text := res.Content.TextOf(); !utf8.ValidString(text) {
				t.Fatalf("accepted text is not valid UTF-8: %q", text)
			}
			if len(parts) > 0 && !strings.Contains(string(head), "Part") {
				t.Fatalf("accepted %d parts that no block names", len(parts))
			}
		}
		if len(parts) == 0 && !strings.Contains(string(head), "Part") {
			plain, plainErr, perr := parseResult(head)
			if (err == nil) != (perr == nil) || (err == nil && (!reflect.DeepEqual(res, plain) || isError != plainErr)) {
				t.Fatalf("head with no parts: %+v %v %v; as JSON: %+v %v %v", res, isError, err, plain, plainErr, perr)
			}
		}
	})
}
