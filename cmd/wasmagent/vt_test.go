package main_test

import (
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// vt is a tiny terminal screen: enough of VT100 for what chat writes (text,
// CR, LF, backspace, cursor moves, erase in line and display, SGR ignored),
// so that a test can assert on what a user would see rather than on bytes.
type vt struct {
	mu       sync.Mutex
	w        int
	rows     [][]rune
	row, col int
	pending  []byte // an unfinished escape sequence or UTF-8 rune
}

func newVT(width int) *vt { return &vt{w: width, rows: [][]rune{nil}} }

func (v *vt) Write(p []byte) (int, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	b := append(v.pending, p...)
	v.pending = nil
	for len(b) > 0 {
		n := v.step(b)
		if n == 0 {
			v.pending = append([]byte{}, b...)
			break
		}
		b = b[n:]
	}
	return len(p), nil
}

// step consumes one rune or control sequence; 0 means it is incomplete.
func (v *vt) step(b []byte) int {
	switch b[0] {
	case '\r':
		v.col = 0
		return 1
	case '\n':
		v.down()
		return 1
	case '\b':
		v.col = max(v.col-1, 0)
		return 1
	case 0x1b:
		if len(b) < 2 {
			return 0
		}
		if b[1] != '[' {
			return 2
		}
		for i := 2; i < len(b); i++ {
			if c := b[i]; c >= 0x40 && c <= 0x7e {
				v.csi(string(b[2:i]), c)
				return i + 1
			}
		}
		return 0
	}
	if !utf8.FullRune(b) {
		return 0
	}
	r, n := utf8.DecodeRune(b)
	if r < 0x20 {
		return n
	}
	if v.col >= v.w {
		v.col = 0
		v.down()
	}
	line := v.rows[v.row]
	for len(line) <= v.col {
		line = append(line, ' ')
	}
	line[v.col] = r
	v.rows[v.row] = line
	v.col++
	return n
}

func (v *vt) down() {
	v.row++
	for len(v.rows) <= v.row {
		v.rows = append(v.rows, nil)
	}
}

func (v *vt) csi(params string, final byte) {
	n, err := strconv.Atoi(strings.TrimPrefix(params, "?"))
	if err != nil || n == 0 {
		n = 1
	}
	switch final {
	case 'A':
		v.row = max(v.row-n, 0)
	case 'B':
		for range n {
			v.down()
		}
	case 'C':
		v.col = min(v.col+n, v.w)
	case 'D':
		v.col = max(v.col-n, 0)
	case 'K':
		line := v.rows[v.row]
		switch params {
		case "2":
			v.rows[v.row] = nil
		case "", "0":
			if v.col < len(line) {
				v.rows[v.row] = line[:v.col]
			}
		}
	case 'J':
		if params == "2" {
			v.rows = [][]rune{nil}
			v.row, v.col = 0, 0
		}
	case 'H':
		v.row, v.col = 0, 0
	}
}

// screen is every row written so far, trailing spaces trimmed.
func (v *vt) screen() string {
	v.mu.Lock()
	defer v.mu.Unlock()
	lines := make([]string, len(v.rows))
	for i, r := range v.rows {
		lines[i] = strings.TrimRight(string(r), " ")
	}
	return strings.Join(lines, "\n")
}

// cursorLine is the row the cursor is on.
func (v *vt) cursorLine() string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return strings.TrimRight(string(v.rows[v.row]), " ")
}
