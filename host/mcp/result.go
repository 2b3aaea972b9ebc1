package mcp

import (
	"encoding/base64"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmagent/wasmagent/host"
)

// result is a finished call as tools/call answers it: the content blocks
// the model would see, and isError. Details are for the host and its
// audit, not the client, as in the loop.
func result(out *host.CallOutcome) *sdk.CallToolResult {
	r := &sdk.CallToolResult{IsError: out.IsError, Content: []sdk.Content{}}
	for _, c := range out.Result.Content {
		switch c := c.(type) {
		case host.TextContent:
			r.Content = append(r.Content, &sdk.TextContent{Text: c.Text})
		case host.ImageContent:
			data, err := base64.StdEncoding.DecodeString(c.Data)
			if err != nil {
				r.Content = append(r.Content, &sdk.TextContent{Text: "[an image whose data is not base64]"})
				continue
			}
			r.Content = append(r.Content, &sdk.ImageContent{Data: data, MIMEType: c.MimeType})
		}
	}
	return r
}
