package wasmtool

import (
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/sdk"
)

// parseResultParts decodes an execute output in parts (docs/abi.md,
// "Output in parts"): a JSON head, a result whose blocks may say
// "textPart": i or "dataPart": i instead of the text or the data, which
// are then parts[i], raw. Every part is used exactly once; a text part is
// taken as JSON would carry it (each byte of invalid UTF-8 becomes
// U+FFFD), so a result means the same whichever way it came.
func parseResultParts(head []byte, parts []string) (res host.ToolResult, isError bool, err error) {
	var h headResult
	extra, err := decodeResult(head, &h)
	if err != nil {
		return res, false, err
	}
	if h.Content == nil {
		return res, false, errors.New(`the result has no "content"` + resultShape)
	}
	used := make([]bool, len(parts))
	take := func(block int, field string, i int) (string, error) {
		if i < 0 || i >= len(parts) {
			return "", fmt.Errorf("content[%d]: %s %d names no part (there are %d)", block, field, i, len(parts))
		}
		if used[i] {
			return "", fmt.Errorf("content[%d]: %s %d names a part used before", block, field, i)
		}
		used[i] = true
		return textOf(parts[i]), nil
	}
	blocks := make([]sdk.Content, len(h.Content))
	for i, c := range h.Content {
		b := sdk.Content{Type: c.Type, Text: c.Text, Data: c.Data, MimeType: c.MimeType}
		if c.TextPart != nil {
			if c.Text != "" {
				return res, false, fmt.Errorf("content[%d]: both text and textPart", i)
			}
			if b.Text, err = take(i, "textPart", *c.TextPart); err != nil {
				return res, false, err
			}
		}
		if c.DataPart != nil {
			if c.Data != "" {
				return res, false, fmt.Errorf("content[%d]: both data and dataPart", i)
			}
			if b.Data, err = take(i, "dataPart", *c.DataPart); err != nil {
				return res, false, err
			}
		}
		blocks[i] = b
	}
	for i, u := range used {
		if !u {
			return res, false, fmt.Errorf("part %d of %d is named by no block", i, len(parts))
		}
	}
	return toolResult(&wireResult{Content: blocks, Details: h.Details, IsError: h.IsError, Terminate: h.Terminate}, extra)
}

// headResult is the head of an execute output in parts.
type headResult struct {
	Content   blockList[headContent] `json:"content"`
	Details   json.RawMessage        `json:"details"`
	IsError   bool                   `json:"isError"`
	Terminate *bool                  `json:"terminate"`
}

type headContent struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	TextPart *int   `json:"textPart"`
	Data     string `json:"data"`
	DataPart *int   `json:"dataPart"`
	MimeType string `json:"mimeType"`
}

// textOf is s with each byte of invalid UTF-8 replaced by U+FFFD, as a
// JSON encoder and decoder do (strings.ToValidUTF8 replaces a run of them
// with one).
func textOf(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	out := make([]byte, 0, len(s)+len(s)/2)
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		if r == utf8.RuneError && size == 1 {
			out = utf8.AppendRune(out, utf8.RuneError)
		} else {
			out = append(out, s[:size]...)
		}
		s = s[size:]
	}
	return string(out)
}
