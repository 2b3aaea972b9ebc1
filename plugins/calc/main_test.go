package main

import (
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/sdk/sdktest"
)

func TestEval(t *testing.T) {
	for _, c := range []struct{ expr, exact, decimal string }{
		{"1 + 2 * 3", "7", "7"},
		{"(1 + 2) * 3", "9", "9"},
		{"0.1 + 0.2", "0.3", "0.3"},
		{"1/3", "1/3", "0.333333333333333333333333333333"},
		{"2^10", "1024", "1024"},
		{"2**-2", "0.25", "0.25"},
		{"-2^2", "-4", "-4"},
		{"2^3^2", "512", "512"},
		{"7 % 3", "1", "1"},
		{"1e3 + 1_000", "2000", "2000"},
		{"abs(-3) + min(4, 2, 9) + max(1, 5)", "10", "10"},
		{"floor(-2.5) + ceil(2.1) + round(2.5) + round(-2.5)", "0", "0"},
		{"floor(-2.5) * 1000 + round(-2.5)", "-3003", "-3003"},
		{"123456789012345678901234567890 * 10", "1234567890123456789012345678900", "1234567890123456789012345678900"},
	} {
		v, err := Eval(c.expr)
		if err != nil {
			t.Errorf("%s: %v", c.expr, err)
			continue
		}
		if exact, decimal := Format(v); exact != c.exact || decimal != c.decimal {
			t.Errorf("%s = %s (%s), want %s (%s)", c.expr, exact, decimal, c.exact, c.decimal)
		}
	}
}

func TestEvalErrors(t *testing.T) {
	for _, c := range []struct{ expr, want string }{
		{"", "ends too soon"},
		{"1 +", "ends too soon"},
		{"1 / 0", "column 3: division by zero"},
		{"1.5 % 1", "% needs integers"},
		{"2 ^ 0.5", "exponent must be an integer"},
		{"2 ^ 100000", "exponent must be an integer"},
		{"0 ^ -1", "zero to a negative power"},
		{"(1 + 2", "expected )"},
		{"1 2", `unexpected "2"`},
		{"sqrt(2)", `unknown function "sqrt"`},
		{"abs(1, 2)", "takes 1 argument"},
		{"max()", "at least 1 argument"},
		{"1..2", "is not a number"},
		{"#", `unexpected "#"`},
		{strings.Repeat("(", 300) + "1" + strings.Repeat(")", 300), "nested too deeply"},
		{strings.Repeat("-", 300) + "1", "nested too deeply"},
		{"(10^4000)^4000", "more than about 10,000 digits"},
		{"(10^4000)*(10^4000)*(10^4000)", "more than about 10,000 digits"},
		{strings.Repeat("1+", 3000) + "1", "limit is 4,096"},
	} {
		if _, err := Eval(c.expr); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%.40q: err = %v, want %q", c.expr, err, c.want)
		}
	}
}

func TestCalcTool(t *testing.T) {
	var h sdktest.Host
	r, err := h.Execute("calc", map[string]string{"expression": "1/3 + 1/6"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Content[0].Text != "0.5" {
		t.Fatalf("text = %q", r.Content[0].Text)
	}
	r, err = h.Execute("calc", map[string]string{"expression": "2/3"})
	if err != nil || r.Content[0].Text != "0.666666666666666666666666666667 (exactly 2/3)" {
		t.Fatalf("2/3: %+v %v", r, err)
	}
	if _, err := h.Execute("calc", map[string]string{"expression": "1/0"}); err == nil || err.Error() != "at column 2: division by zero" {
		t.Fatalf("1/0: %v", err)
	}
	if _, err := h.Execute("calc", map[string]any{}); err == nil || !strings.Contains(err.Error(), "Validation failed") {
		t.Fatalf("no expression: %v", err)
	}
}

func FuzzEval(f *testing.F) {
	for _, s := range []string{"1+2*3", "(1/3)^-2", "max(1,2,3) % 2", "1e10**3", "round(-2.5)", "--1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		v, err := Eval(expr)
		if err == nil {
			Format(v)
		}
	})
}
