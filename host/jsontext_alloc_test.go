//go:build !race

package host

import "testing"

// decodeOrdered allocates about once a value, whatever the shape of the
// arguments: one a boxed string or number, the map of an object (two
// with its first member), the elements of an array, and slabs and stacks
// that grow by doubling; the bound is three. The Decoder.Token walk made
// nine to fourteen a value; allocations are what a hostile model's
// arguments cost the collector. (Not under -race, which allocates on its
// own account.)
func TestDecodeOrderedAllocatesAboutOnceAValue(t *testing.T) {
	for _, shape := range argumentShapes {
		raw := shape.gen(16 << 10)
		v, _, err := decodeOrdered(raw)
		if err != nil {
			t.Fatal(err)
		}
		values := countValues(v)
		allocs := testing.AllocsPerRun(5, func() {
			if _, _, err := decodeOrdered(raw); err != nil {
				t.Fatal(err)
			}
		})
		if limit := 3*float64(values) + 64; allocs > limit {
			t.Errorf("%s: %.0f allocations for %d values (at most %.0f)", shape.name, allocs, values, limit)
		}
		t.Logf("%s: %.0f allocations for %d values", shape.name, allocs, values)
	}
}

func countValues(v any) int {
	n := 1
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			n += countValues(e)
		}
	case []any:
		for _, e := range x {
			n += countValues(e)
		}
	}
	return n
}
