package image

// block is the ChaCha8 block function of Go's internal/chacha8rand (the
// generic version in chacha8_generic.go, Copyright 2023 The Go Authors,
// BSD-style license), on a little-endian layout: the 32 words Go's runtime
// keeps in a generator's buffer for a seed and a counter.
func block(seed [4]uint64, counter uint32) [32]uint64 {
	// b[k][i] of Go's [16][4]uint32 view is x[4*k+i].
	var x [64]uint32
	row := func(k int, v uint32) {
		for i := range 4 {
			x[4*k+i] = v
		}
	}
	row(0, 0x61707865)
	row(1, 0x3320646e)
	row(2, 0x79622d32)
	row(3, 0x6b206574)
	for j := range 4 {
		row(4+2*j, uint32(seed[j]))
		row(5+2*j, uint32(seed[j]>>32))
	}
	for i := range 4 {
		x[48+i] = counter + uint32(i)
	}
	for i := range 4 {
		var b [16]uint32
		for k := range 16 {
			b[k] = x[4*k+i]
		}
		for range 4 {
			b[0], b[4], b[8], b[12] = qr(b[0], b[4], b[8], b[12])
			b[1], b[5], b[9], b[13] = qr(b[1], b[5], b[9], b[13])
			b[2], b[6], b[10], b[14] = qr(b[2], b[6], b[10], b[14])
			b[3], b[7], b[11], b[15] = qr(b[3], b[7], b[11], b[15])
			b[0], b[5], b[10], b[15] = qr(b[0], b[5], b[10], b[15])
			b[1], b[6], b[11], b[12] = qr(b[1], b[6], b[11], b[12])
			b[2], b[7], b[8], b[13] = qr(b[2], b[7], b[8], b[13])
			b[3], b[4], b[9], b[14] = qr(b[3], b[4], b[9], b[14])
		}
		for k := range 16 {
			if k >= 4 && k < 12 {
				x[4*k+i] += b[k] // the key rows are added back
			} else {
				x[4*k+i] = b[k]
			}
		}
	}
	var out [32]uint64
	for j := range out {
		out[j] = uint64(x[2*j]) | uint64(x[2*j+1])<<32
	}
	return out
}

func qr(a, b, c, d uint32) (uint32, uint32, uint32, uint32) {
	a += b
	d ^= a
	d = d<<16 | d>>16
	c += d
	b ^= c
	b = b<<12 | b>>20
	a += b
	d ^= a
	d = d<<8 | d>>24
	c += d
	b ^= c
	b = b<<7 | b>>25
	return a, b, c, d
}
