// Command plugin-template is the smallest complete wasmagent tool: copy
// this directory, rename the tool, and build it with
//
//	GOOS=wasip1 GOARCH=wasm go build -trimpath -buildmode=c-shared -o wordcount.wasm .
package main

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/wasmagent/wasmagent/sdk"
)

// args are the tool's arguments: the JSON Schema the model sees is made
// from this struct (field names from the json tags, descriptions from the
// description tags; fields without omitempty are required).
type args struct {
	Text string `json:"text" description:"the text to count"`
}

func init() {
	sdk.SetInfo(sdk.Info{Name: "wordcount", Version: "0.1.0"})
	sdk.RegisterTool(sdk.NewTool("wordcount", "Counts the lines, words and characters of a text.",
		func(c *sdk.Call, a args) (*sdk.Result, error) {
			lines := strings.Count(a.Text, "\n")
			if a.Text != "" && !strings.HasSuffix(a.Text, "\n") {
				lines++
			}
			words := len(strings.Fields(a.Text))
			chars := utf8.RuneCountInString(a.Text)
			return sdk.Text(count(lines, "line") + ", " + count(words, "word") + ", " + count(chars, "character")).
				WithDetails(map[string]int{"lines": lines, "words": words, "characters": chars}), nil
		}))
}

// count is n and noun, in the plural unless n is 1: "1 line", "2 lines".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// main stays empty: the SDK owns the plugin's exports.
func main() {}
