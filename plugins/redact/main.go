// Command redact is an afterToolCall hook that replaces secrets in tool
// results before the model sees them: built-in patterns for the common
// shapes, plus patterns from its configuration (see README.md).
package main

import (
	"encoding/json"
	"fmt"

	"github.com/wasmagent/wasmagent/sdk"
)

func init() {
	sdk.SetInfo(sdk.Info{
		Name: "redact", Version: "1.0.0",
		Needs: &sdk.Needs{Config: []sdk.ConfigNeed{
			{Key: "patterns", Optional: true, Why: `more patterns: a JSON array of {"name", "regex"} (a TOML array of tables in agent.toml)`},
			{Key: "builtin", Optional: true, Why: `"off" turns the built-in patterns off`},
		}},
		CheckConfig: func(c *sdk.Call) error {
			_, err := load(c)
			return err
		},
	})
	sdk.RegisterAfterToolCall(after)
}

func load(c *sdk.Call) (*redactor, error) {
	extra, _ := c.Config("patterns")
	builtin, _ := c.Config("builtin")
	r, err := newRedactor(extra, builtin != "off")
	if err != nil {
		return nil, fmt.Errorf("redact: %w", err)
	}
	return r, nil
}

func after(c *sdk.Call, in *sdk.AfterInput) (*sdk.AfterOutput, error) {
	r, err := load(c)
	if err != nil {
		return nil, err
	}
	counts := map[string]int{}
	content := make([]sdk.Content, len(in.Result.Content))
	for i, b := range in.Result.Content {
		if b.Type == "text" {
			b.Text = r.redact(b.Text, counts)
		}
		content[i] = b
	}
	var details any
	if len(in.Result.Details) > 0 {
		if err := json.Unmarshal(in.Result.Details, &details); err != nil {
			return nil, fmt.Errorf("redact: the result's details: %v", err)
		}
		details = r.redactValue(details, counts)
	}
	if len(counts) == 0 {
		return nil, nil // nothing found: the result stands as it is
	}
	// Report what was redacted (never the secret) in the details.
	report := map[string]any{"redacted": counts}
	if m, ok := details.(map[string]any); ok {
		m["redacted"] = counts
		report = m
	} else if details != nil {
		report["details"] = details
	}
	c.Logf(sdk.LogInfo, "redacted %v in the result of %s", counts, c.Name)
	return &sdk.AfterOutput{Content: content, Details: report}, nil
}

func main() {}
