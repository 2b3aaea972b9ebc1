package wasmbin

// AppendU32 appends v as an unsigned LEB128.
func AppendU32(out []byte, v uint32) []byte { return AppendU64(out, uint64(v)) }

// AppendU64 appends v as an unsigned LEB128.
func AppendU64(out []byte, v uint64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v != 0 {
			c |= 0x80
		}
		out = append(out, c)
		if v == 0 {
			return out
		}
	}
}

// AppendS64 appends v as a signed LEB128.
func AppendS64(out []byte, v int64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(out, c)
		}
		out = append(out, c|0x80)
	}
}

// AppendName appends a length-prefixed name.
func AppendName(out []byte, s string) []byte {
	out = AppendU32(out, uint32(len(s)))
	return append(out, s...)
}

// AppendSection appends a section: its id, its size and its body.
func AppendSection(out []byte, id byte, body []byte) []byte {
	out = append(out, id)
	out = AppendU32(out, uint32(len(body)))
	return append(out, body...)
}
