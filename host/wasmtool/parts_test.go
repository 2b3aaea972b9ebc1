package wasmtool_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host/wasmtool"
	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/runtime"
	"github.com/wasmagent/wasmagent/sdk"
)

// randomBytes is a text of n bytes drawn from what encoders get wrong:
// quotes, backslashes, control characters, HTML, U+2028, multi-byte
// runes, and bytes that are not UTF-8 at all.
func randomBytes(r *rand.Rand, n int) []byte {
	pieces := []string{"a", "plain text ", "\"", "\\", "\n", "\x00", "\x1f", "<", "&", "\u2028", "é", "😀", "\xff", "\xc3", "\xed\xa0\x80"}
	var b []byte
	for len(b) < n {
		b = append(b, pieces[r.IntN(len(pieces))]...)
	}
	return b[:n]
}

// The Go SDK's output in parts and its JSON output mean the same result
// to the host, for generated results (any bytes, texts shorter and
// longer than what the SDK carries raw, images with good and bad base64,
// details, flags): the same plugin, the same call, each way.
func TestResultPartsSameAsJSON(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the probe plugin")
	}
	m, err := rt(t).CompileFile(context.Background(), wasmbuild.ForTest(t, "internal/testplugins/probe"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := rt(t).NewPlugin(m, runtime.PluginOptions{Name: "probe", PoolSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	r := rand.New(rand.NewPCG(1, 2))
	sawParts := 0
	for i := range 60 {
		type block struct {
			Type     string `json:"type"`
			Text     []byte `json:"text,omitempty"`
			Data     []byte `json:"data,omitempty"`
			MimeType string `json:"mimeType,omitempty"`
		}
		args := struct {
			Content   []block         `json:"content"`
			Details   json.RawMessage `json:"details,omitempty"`
			IsError   bool            `json:"isError,omitempty"`
			Terminate bool            `json:"terminate,omitempty"`
		}{IsError: r.IntN(4) == 0, Terminate: r.IntN(2) == 0}
		for range r.IntN(4) {
			size := []int{0, 10, 255, 256, 3000, 70000}[r.IntN(6)]
			switch r.IntN(5) {
			case 0, 1:
				args.Content = append(args.Content, block{Type: "text", Text: randomBytes(r, size)})
			case 2:
				data := base64.StdEncoding.EncodeToString(randomBytes(r, size))
				args.Content = append(args.Content, block{Type: "image", Data: []byte(data), MimeType: "image/png"})
			case 3:
				args.Content = append(args.Content, block{Type: "image", Data: randomBytes(r, size), MimeType: "image/png"})
			default:
				args.Content = append(args.Content, block{Type: string(randomBytes(r, 3)), Text: randomBytes(r, size), MimeType: "text/x"})
			}
		}
		if r.IntN(2) == 0 {
			args.Details = json.RawMessage(`{"n":1,"s":"<&>"}`)
		}
		a, _ := json.Marshal(map[string]any{"bytes": 0, "result": args})
		in, _ := json.Marshal(sdk.ExecuteInput{ToolCallID: "c", Name: "big", Args: a})
		out, err := p.Call(context.Background(), sdk.ExportExecute, in, nil)
		if err != nil {
			t.Fatal(err)
		}
		want, wantErrorFlag, wantErr := wasmtool.ParseResult(out)
		var parts []string
		head, err := p.Call(context.Background(), sdk.ExportExecute, in, &runtime.CallOptions{Parts: &parts})
		if err != nil || parts == nil {
			t.Fatalf("case %d: in parts: %v, parts %v", i, err, parts)
		}
		if len(parts) > 0 {
			sawParts++
		}
		got, gotErrorFlag, gotErr := wasmtool.ParseResultParts(head, parts)
		if (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) ||
			!reflect.DeepEqual(got, want) || gotErrorFlag != wantErrorFlag {
			t.Fatalf("case %d: in parts %+v %v %v;\nas JSON %+v %v %v\nhead %s", i, short(got), gotErrorFlag, gotErr, short(want), wantErrorFlag, wantErr, head)
		}
	}
	if sawParts < 20 {
		t.Fatalf("only %d of 60 results came with parts", sawParts)
	}
}

func short(v any) string {
	s, _ := json.Marshal(v)
	if len(s) > 300 {
		return string(s[:300]) + "…"
	}
	return strings.ToValidUTF8(string(s), "?")
}
