package sdktest_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/sdk"
	"github.com/wasmagent/wasmagent/sdk/sdktest"
)

type word struct {
	// A pattern no JSON Schema compiler takes: the host refuses the
	// plugin at load.
	W string `json:"w" pattern:"(["`
}

func init() {
	sdk.SetInfo(sdk.Info{Name: "schemas", Version: "0.1.0", Needs: &sdk.Needs{Config: []sdk.ConfigNeed{{Key: "token"}, {Key: "extra", Optional: true}}}})
	sdk.RegisterTool(sdk.NewTool("fine", "Fine.", func(c *sdk.Call, a struct{}) (*sdk.Result, error) { return sdk.Text("ok"), nil }))
	sdk.RegisterTool(sdk.NewTool("word", "A word.", func(c *sdk.Call, a word) (*sdk.Result, error) { return sdk.Text(a.W), nil }))
	sdk.RegisterTool(sdk.Tool{Name: "typo", Description: "A typo.", Parameters: json.RawMessage(`{"type":"object","properties":{"x":{"type":"strnig"}}}`),
		Run: func(c *sdk.Call, _ json.RawMessage) (*sdk.Result, error) { return sdk.Text("ok"), nil }})
}

// A schema the host's compiler refuses fails Describe, naming the tool,
// and so every call of the plugin, as the host refuses the whole plugin
// at load: a test of another tool cannot pass.
func TestDescribeCompilesEverySchema(t *testing.T) {
	var h sdktest.Host
	_, err := h.Describe()
	if err == nil || !strings.Contains(err.Error(), "tool word: parameters:") || !strings.Contains(err.Error(), "tool typo: parameters:") {
		t.Fatalf("Describe: err = %v", err)
	}
	if _, err := h.Execute("fine", nil); err == nil || !strings.Contains(err.Error(), "tool word: parameters:") {
		t.Fatalf("Execute of a tool whose schema is fine, beside one the host refuses: err = %v", err)
	}
}

// A configuration value the plugin needs and the test does not give
// fails Describe, as the host refuses to start the plugin without it; an
// optional one does not.
func TestDescribeChecksConfigNeeds(t *testing.T) {
	var h sdktest.Host
	if _, err := h.Describe(); err == nil || !strings.Contains(err.Error(), `needs the configuration value "token"`) || strings.Contains(err.Error(), `"extra"`) {
		t.Fatalf("no config: err = %v", err)
	}
	h.Config = map[string]string{"token": "t"}
	if _, err := h.Describe(); err == nil || strings.Contains(err.Error(), `"token"`) {
		t.Fatalf("token given: err = %v", err)
	}
}
