package words

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// Count agrees with every count: the singular for one, the plural for any
// other (0, 2, a large one, a negative one), with thousands separators,
// for a regular and an irregular noun and a noun of two words.
func TestCount(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	counts := []int{0, 1, 2, 3, 999, 1000, 1234567, -1, -4500}
	for range 200 {
		counts = append(counts, r.IntN(1<<40)-1<<20)
	}
	for _, n := range counts {
		for _, noun := range []string{"line", "tool call", "match|matches"} {
			one, many, ok := strings.Cut(noun, "|")
			if !ok {
				many = one + "s"
			}
			want := Number(n) + " " + many
			if n == 1 {
				want = "1 " + one
			}
			if got := Count(n, noun); got != want {
				t.Fatalf("Count(%d, %q) = %q, want %q", n, noun, got, want)
			}
			if got := Count(int64(n), noun); got != want {
				t.Fatalf("Count(int64(%d), %q) = %q", n, noun, got)
			}
		}
		// Number is the digits of n, grouped by three from the right.
		got := Number(n)
		if strings.ReplaceAll(got, ",", "") != strconv.Itoa(n) {
			t.Fatalf("Number(%d) = %q", n, got)
		}
		for i, g := range strings.Split(strings.TrimPrefix(got, "-"), ",") {
			if (i > 0 && len(g) != 3) || len(g) == 0 || len(g) > 3 {
				t.Fatalf("Number(%d) = %q", n, got)
			}
		}
	}
	if got := Count(uint64(1), "byte"); got != "1 byte" {
		t.Fatalf("Count(uint64(1)) = %q", got)
	}
}

// Named is the singular before one name, the plural before several or
// none.
func TestNamed(t *testing.T) {
	names := []string{"read", "write", "edit", "ls"}
	for n := range len(names) + 1 {
		got := Named("tool", names[:n])
		switch {
		case n == 0 && got != "no tools",
			n == 1 && got != "tool read",
			n > 1 && got != "tools "+strings.Join(names[:n], ", "):
			t.Fatalf("Named(%d names) = %q", n, got)
		}
	}
	if got := Named("match|matches", nil); got != "no matches" {
		t.Fatalf("Named(match|matches, none) = %q", got)
	}
}
