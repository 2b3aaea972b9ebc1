package cli

import (
	"fmt"
	"strings"
)

// didYouMean is ` (did you mean "NAME"?)` for the one candidate a
// mistyped name most likely meant — two edits away at most (one for names
// of three letters or less), or the only candidate it begins — and "" when
// none is close, or two are equally close.
func didYouMean(typed string, candidates []string, quote func(string) string) string {
	if typed == "" {
		return ""
	}
	best, bestDist, tie := "", 3, false
	if len(typed) <= 3 {
		bestDist = 2
	}
	var prefixed []string
	for _, c := range candidates {
		if c == typed {
			return ""
		}
		if len(typed) >= 2 && strings.HasPrefix(c, typed) {
			prefixed = append(prefixed, c)
		}
		switch d := editDistance(typed, c); {
		case d < bestDist:
			best, bestDist, tie = c, d, false
		case d == bestDist && best != "":
			tie = true
		}
	}
	if best == "" || tie {
		if len(prefixed) != 1 {
			return ""
		}
		best = prefixed[0]
	}
	return fmt.Sprintf(" (did you mean %s?)", quote(best))
}

// editDistance is the Levenshtein distance between a and b, where swapping
// two neighbouring letters (the commonest typo) counts as one edit.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// d[i][j]: the distance between ra[:i] and rb[:j].
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
