// Command policy is a beforeToolCall hook that allows, blocks, asks about
// or rewrites tool calls by declarative rules from its configuration:
// tool-name globs, path globs, regular expressions and host lists on the
// arguments; rewrite rules change the arguments on the way, and the first
// other rule that matches decides (see README.md).
package main

import (
	"fmt"

	"github.com/wasmagent/wasmagent/sdk"
)

func init() {
	sdk.SetInfo(sdk.Info{
		Name: "policy", Version: "1.0.0",
		Needs: &sdk.Needs{Config: []sdk.ConfigNeed{
			{Key: "rules", Optional: true, Why: "the rules, a JSON array (a TOML array of tables in agent.toml)"},
			{Key: "default", Optional: true, Why: `"allow" (the default) or "deny" when no rule matches`},
		}},
		CheckConfig: func(c *sdk.Call) error {
			_, err := load(c)
			return err
		},
	})
	sdk.RegisterBeforeToolCall(before)
}

func before(c *sdk.Call, in *sdk.BeforeInput) (*sdk.BeforeOutput, error) {
	p, err := load(c)
	if err != nil {
		return nil, err
	}
	d := p.decide(in.ToolCall.Name, in.Args)
	switch {
	case d.ask != "":
		return &sdk.BeforeOutput{Ask: d.ask, Arguments: d.args}, nil
	case d.allow:
		return &sdk.BeforeOutput{Arguments: d.args}, nil
	}
	return sdk.Block(d.reason), nil
}

// load reads and compiles the policy from the configuration.
func load(c *sdk.Call) (*policy, error) {
	rules, _ := c.Config("rules")
	def, _ := c.Config("default")
	p, err := compile(rules, def)
	if err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	return p, nil
}

func main() {}
