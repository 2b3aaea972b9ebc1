package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/wasmagent/wasmagent/internal/words"
	"github.com/wasmagent/wasmagent/sdk"
)

type readArgs struct {
	Path   string `json:"path" description:"file to read, relative to the workspace or absolute"`
	Offset int    `json:"offset,omitempty" description:"first line to read, from 1"`
	Limit  int    `json:"limit,omitempty" description:"how many lines to read (default 2000)"`
}

// Limits of one read: lines, and bytes of text returned.
const (
	defaultLines = 2000
	maxReadBytes = 50 << 10
	maxImage     = 5 << 20
)

// imageType is the MIME type of an image the model can be shown, or "":
// the answer of net/http's DetectContentType for these four types (the
// same signatures; no earlier signature of it can match these bytes),
// without net/http, which would link TLS, X.509 and the rest of the
// network stack into the plugin (RATIONALE.md, "Why is the Go SDK careful
// about what it links?").
func imageType(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(data, []byte("\xff\xd8\xff")):
		return "image/jpeg"
	case bytes.HasPrefix(data, []byte("GIF87a")), bytes.HasPrefix(data, []byte("GIF89a")):
		return "image/gif"
	case len(data) >= 14 && string(data[:4]) == "RIFF" && string(data[8:14]) == "WEBPVP":
		return "image/webp"
	}
	return ""
}

func read(c *sdk.Call, a readArgs) (*sdk.Result, error) {
	p, err := resolve(c, a.Path)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", a.Path, unwrapPath(c, err))
	}
	if fi.IsDir() {
		return nil, fmt.Errorf("%s is a directory: use ls", a.Path)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", a.Path, unwrapPath(c, err))
	}
	if mt := imageType(data); mt != "" {
		if len(data) > maxImage {
			return nil, fmt.Errorf("%s is an image of %s; the limit is %s", a.Path, words.Count(len(data), "byte"), words.Count(maxImage, "byte"))
		}
		return (&sdk.Result{}).Add(sdk.TextContent(fmt.Sprintf("Image %s (%s, %s)", a.Path, mt, words.Count(len(data), "byte"))), sdk.ImageContent(data, mt)), nil
	}
	if isBinary(data) {
		return nil, fmt.Errorf("%s is a binary file (%s); it cannot be shown as text", a.Path, words.Count(len(data), "byte"))
	}
	return readText(a, string(data)), nil
}

// isBinary reports a NUL byte in the first 8 KiB, as git and grep do.
func isBinary(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), 8192)], 0) >= 0
}

func readText(a readArgs, text string) *sdk.Result {
	if text == "" {
		return sdk.Textf("%s is empty", a.Path).WithDetails(map[string]any{"lines": 0})
	}
	text = strings.ReplaceAll(text, "\r\n", "\n")
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	first := max(a.Offset, 1)
	if first > len(lines) {
		return sdk.Textf("%s has %s; offset %d is past the end", a.Path, words.Count(len(lines), "line"), a.Offset)
	}
	limit := a.Limit
	if limit <= 0 {
		limit = defaultLines
	}
	var b strings.Builder
	last := first - 1
	for i := first - 1; i < len(lines) && i < first-1+limit; i++ {
		line := fmt.Sprintf("%6d\t%s\n", i+1, lines[i])
		if b.Len()+len(line) > maxReadBytes && i > first-1 {
			break
		}
		b.WriteString(line)
		last = i + 1
	}
	if last < len(lines) {
		fmt.Fprintf(&b, "[truncated: lines %d-%d of %d shown; continue at offset %d]\n", first, last, len(lines), last+1)
	}
	return sdk.Text(b.String()).WithDetails(map[string]any{"lines": len(lines), "from": first, "to": last})
}

// unwrapPath drops the guest path Go repeats in *PathError, so messages
// name the path as the model wrote it.
// unwrapPath drops the operation and the resolved path from a file error
// (the caller names the path as the model wrote it), keeping the words of
// explain.
func unwrapPath(c *sdk.Call, err error) error {
	if pe, ok := err.(*os.PathError); ok {
		if why := grantProblem(c, pe); why != "" {
			return errors.New(why)
		}
		return pe.Err
	}
	return err
}
