// Command fetch is a wasmagent plugin with one tool, fetch: an HTTP(S) GET
// of a URL on the granted hosts, returned as readable text — HTML turned
// into Markdown, JSON pretty-printed (see README.md).
package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/wasmagent/wasmagent/sdk"
)

type args struct {
	URL      string `json:"url" description:"an http or https URL on one of the granted hosts"`
	MaxChars int    `json:"maxChars,omitempty" description:"most characters of text to return (default 20000)"`
	Raw      bool   `json:"raw,omitempty" description:"return the body as it came, without converting HTML"`
}

const defaultChars = 20000

func init() {
	sdk.SetInfo(sdk.Info{Name: "fetch", Version: "1.0.0", Needs: &sdk.Needs{
		Hosts:  []sdk.HostNeed{{Host: sdk.AnyGrant, Why: "the sites it may fetch, as the operator chooses them"}},
		Config: []sdk.ConfigNeed{{Key: "user_agent", Optional: true, Why: "the User-Agent header (default wasmagent-fetch/1)"}},
	}})
	t := sdk.NewTool("fetch", "Fetch a web page or API response by URL (GET) and return it as text: HTML as Markdown, JSON pretty-printed. Only granted hosts are reachable.", fetch)
	t.Label = "Fetch URL"
	sdk.RegisterTool(t)
}

func fetch(c *sdk.Call, a args) (*sdk.Result, error) {
	if !strings.HasPrefix(a.URL, "http://") && !strings.HasPrefix(a.URL, "https://") {
		return nil, fmt.Errorf("%q is not an http or https URL", a.URL)
	}
	ua, ok := c.Config("user_agent")
	if !ok {
		ua = "wasmagent-fetch/1"
	}
	c.Update(sdk.Textf("GET %s", a.URL))
	resp, err := c.HTTP(&sdk.HTTPRequest{URL: a.URL, Headers: map[string]string{
		"User-Agent": ua, "Accept": "text/html,application/json,text/plain;q=0.9,*/*;q=0.5",
	}})
	if err != nil {
		return nil, err
	}
	ctype := resp.Headers["content-type"]
	text := render(ctype, resp.Body, a.Raw)
	limit := a.MaxChars
	if limit <= 0 {
		limit = defaultChars
	}
	total := len([]rune(text))
	if total > limit {
		text = string([]rune(text)[:limit]) + "\n\n[truncated: " + strconv.Itoa(limit) + " of " + strconv.Itoa(total) + " characters shown; ask again with a larger maxChars]"
	}
	details := map[string]any{"status": resp.Status, "url": resp.URL, "contentType": ctype, "bytes": len(resp.Body)}
	if resp.Status >= 400 {
		return nil, fmt.Errorf("%s answered %d %s\n\n%s", resp.URL, resp.Status, statusText(resp.Status), text)
	}
	return sdk.Text(text).WithDetails(details), nil
}

func statusText(code int) string {
	switch {
	case code == 404:
		return "Not Found"
	case code == 403:
		return "Forbidden"
	case code == 401:
		return "Unauthorized"
	case code == 429:
		return "Too Many Requests"
	case code >= 500:
		return "Server Error"
	}
	return ""
}

func main() {}
