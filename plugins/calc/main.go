// Command calc is a wasmagent plugin with one tool, calc: exact arithmetic
// on rational numbers, because models are unreliable at it.
//
//	GOOS=wasip1 GOARCH=wasm go build -trimpath -buildmode=c-shared -o calc.wasm .
package main

import (
	"github.com/wasmagent/wasmagent/sdk"
)

type args struct {
	Expression string `json:"expression" description:"an arithmetic expression: numbers (12, 3.5, 1e3), + - * / % ^, parentheses, and abs(), min(), max(), floor(), ceil(), round()"`
}

func init() {
	sdk.SetInfo(sdk.Info{Name: "calc", Version: "1.0.0"})
	t := sdk.NewTool("calc", "Evaluates an arithmetic expression exactly (rational arithmetic, no rounding error) and returns the value.", calc)
	t.Label = "Calculator"
	sdk.RegisterTool(t)
}

func calc(c *sdk.Call, a args) (*sdk.Result, error) {
	v, err := Eval(a.Expression)
	if err != nil {
		return nil, err
	}
	exact, decimal := Format(v)
	details := map[string]any{"exact": exact, "decimal": decimal}
	text := decimal
	if exact != decimal {
		text = decimal + " (exactly " + exact + ")"
	}
	return sdk.Text(text).WithDetails(details), nil
}

func main() {}
