package session

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"time"
)

// newSessionID returns a UUID version 7 (time-ordered), as pi's session ids.
func newSessionID(now time.Time) string {
	var b [16]byte
	rand.Read(b[:])
	binary.BigEndian.PutUint64(b[:8], uint64(now.UnixMilli())<<16|uint64(binary.BigEndian.Uint16(b[6:8])))
	b[6] = b[6]&0x0f | 0x70
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// newEntryID returns an 8-hex-digit id not in taken, as pi's generateId.
func newEntryID(taken func(string) bool) string {
	var b [4]byte
	for range 100 {
		rand.Read(b[:])
		if id := hex.EncodeToString(b[:]); !taken(id) {
			return id
		}
	}
	var long [16]byte
	rand.Read(long[:])
	return hex.EncodeToString(long[:])
}
