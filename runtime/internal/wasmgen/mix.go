package wasmgen

import "math/rand/v2"

// Mix is a valid module exporting "f", (i32) -> i32, whose body is about
// n random statements over locals 0..v: copies between locals, if/else,
// blocks, loops (each ending in a br_if back), br_ifs and br_tables to
// random enclosing labels, and calls, nested at random: shapes nobody
// listed, for hunting what the compile-cost measure underestimates.
func Mix(seed uint64, n, v int) []byte {
	m := &mixer{rng: rand.New(rand.NewPCG(seed, 0x5eed)), left: n, v: v}
	m.c = append(m.c, opBlock, tEmpty) // so that no branch targets the function's label, which takes a result
	m.stmts(1)
	return oneFunc(localDecl(v), append(m.c, opEnd, opLocalGet, 0))
}

type mixer struct {
	rng  *rand.Rand
	c    []byte
	left int // statements still to write
	v    int // locals besides the parameter
}

func (m *mixer) local() []byte { return U(uint32(m.rng.IntN(m.v + 1))) }

// stmts writes statements until the budget is spent or the block ends at
// random; labels is the number of enclosing labels (the function's not
// counted).
func (m *mixer) stmts(labels int) {
	for m.left > 0 {
		m.left--
		switch k := m.rng.IntN(20); {
		case k < 6:
			m.c = append(m.c, opLocalGet)
			m.c = append(m.c, m.local()...)
			m.c = append(m.c, opLocalSet)
			m.c = append(m.c, m.local()...)
		case k < 9:
			m.c = append(m.c, opLocalGet, 0, opIf, tEmpty)
			m.stmts(labels + 1)
			if m.rng.IntN(2) == 0 {
				m.c = append(m.c, 0x05)
				m.stmts(labels + 1)
			}
			m.c = append(m.c, opEnd)
		case k < 11:
			m.c = append(m.c, opBlock, tEmpty)
			m.stmts(labels + 1)
			m.c = append(m.c, opEnd)
		case k < 12:
			m.c = append(m.c, opLoop, tEmpty)
			m.stmts(labels + 1)
			m.c = append(m.c, opLocalGet, 0, opBrIf, 0, opEnd)
		case k < 16:
			m.c = append(m.c, opLocalGet, 0, opBrIf)
			m.c = append(m.c, U(uint32(m.rng.IntN(labels)))...)
		case k < 17:
			t := 1 + m.rng.IntN(16)
			m.c = append(m.c, opLocalGet, 0, opBrTable)
			m.c = append(m.c, U(uint32(t))...)
			for range t + 1 {
				m.c = append(m.c, U(uint32(m.rng.IntN(labels)))...)
			}
			return // what follows in this block is unreachable
		case k < 18:
			m.c = append(m.c, opLocalGet, 0, opCall, 0, opLocalSet)
			m.c = append(m.c, m.local()...)
		default:
			if labels > 1 {
				return
			}
		}
	}
}
