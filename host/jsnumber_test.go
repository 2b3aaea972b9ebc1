package host

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strconv"
	"testing"
)

// TestJSNumbersMatchNode checks Number(string), trim and String(number)
// against every line Node recorded in testdata/jsnumbers.jsonl
// (testdata/pi/numbers.mjs, `make golden-pi`).
func TestJSNumbersMatchNode(t *testing.T) {
	f, err := os.Open("testdata/jsnumbers.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	strs, nums := 0, 0
	for line := 1; sc.Scan(); line++ {
		var e struct {
			S     *string `json:"s"`
			Num   string  `json:"num"`
			Blank bool    `json:"blank"`
			Str   *string `json:"str"`
		}
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("line %d: %v", line, err)
		}
		if e.S != nil {
			strs++
			if got := bitsOf(jsStringToNumber(*e.S)); got != e.Num {
				t.Errorf("line %d: Number(%q) = %s, Node %s", line, *e.S, got, e.Num)
			}
			if got := jsTrim(*e.S) == ""; got != e.Blank {
				t.Errorf("line %d: %q.trim() === \"\" is %v, Node %v", line, *e.S, got, e.Blank)
			}
			continue
		}
		nums++
		x := fromBits(t, e.Num)
		if got := jsNumberToString(x); e.Str == nil || got != *e.Str {
			t.Errorf("line %d: String(%v) = %q, Node %q", line, x, got, deref(e.Str))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if strs < 1000 || nums < 1000 {
		t.Fatalf("corpus too small: %d strings, %d numbers", strs, nums)
	}
}

func bitsOf(x float64) string {
	if math.IsNaN(x) {
		return "NaN"
	}
	return fmt.Sprintf("%016x", math.Float64bits(x))
}

func fromBits(t *testing.T, s string) float64 {
	if s == "NaN" {
		return math.NaN()
	}
	u, err := strconv.ParseUint(s, 16, 64)
	if err != nil {
		t.Fatalf("bad bits %q", s)
	}
	return math.Float64frombits(u)
}

func deref(s *string) string {
	if s == nil {
		return "<absent>"
	}
	return *s
}

// TestJSNumberExamples pins the examples by name.
func TestJSNumberExamples(t *testing.T) {
	for in, want := range map[string]float64{
		"0x10": 16, "0b11": 3, "0o7": 7, " 12 ": 12, "": 0, "\u00a0\ufeff1\u2028": 1,
		"Infinity": math.Inf(1), "-Infinity": math.Inf(-1), "1.": 1, ".5": 0.5,
	} {
		if got := jsStringToNumber(in); got != want {
			t.Errorf("Number(%q) = %v, want %v", in, got, want)
		}
	}
	for _, in := range []string{"1_000", "0x1p4", "-0x10", "inf", "infinity", "0x", ".", "1e", "\u0085 1", "١٢"} {
		if got := jsStringToNumber(in); !math.IsNaN(got) {
			t.Errorf("Number(%q) = %v, want NaN", in, got)
		}
	}
	for in, want := range map[float64]string{
		1e-7: "1e-7", 0.000001: "0.000001", math.Copysign(0, -1): "0", 1e21: "1e+21",
		123456789012345680000: "123456789012345680000", 1.5e-7: "1.5e-7", 0.30000000000000004: "0.30000000000000004",
	} {
		if got := jsNumberToString(in); got != want {
			t.Errorf("String(%v) = %q, want %q", in, got, want)
		}
	}
}

// FuzzJSNumberRoundTrip: String(x) read back by Number() is x, for every
// double; Number() never panics and agrees with itself after String().
func FuzzJSNumberRoundTrip(f *testing.F) {
	for _, s := range []string{"0x10", "1e21", "-0", "1e-7", " 12 ", "0b11", "1_000", "Infinity", ".5", "5e-324"} {
		f.Add(s, math.Float64bits(1e21))
	}
	f.Fuzz(func(t *testing.T, s string, b uint64) {
		x := math.Float64frombits(b)
		str := jsNumberToString(x)
		back := jsStringToNumber(str)
		if math.IsNaN(x) != math.IsNaN(back) || (!math.IsNaN(x) && back != x) {
			t.Fatalf("Number(String(%v)) = %v via %q", x, back, str)
		}
		if x == 0 && str != "0" {
			t.Fatalf("String(%v) = %q", x, str)
		}
		n := jsStringToNumber(s)
		if !math.IsNaN(n) {
			if again := jsStringToNumber(jsNumberToString(n)); again != n {
				t.Fatalf("Number(%q) = %v, but Number(String(that)) = %v", s, n, again)
			}
		}
	})
}
