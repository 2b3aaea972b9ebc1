package session

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/wasmagent/wasmagent/host/hosttest"
)

// checkFastEntry fails when the fast decoder takes line and gives other
// than encoding/json's decoding.
func checkFastEntry(t *testing.T, line []byte) bool {
	t.Helper()
	fast, ok := decodeEntryFast(line)
	if !ok {
		return false
	}
	slow, err := decodeEntryJSON(line)
	if err != nil || !reflect.DeepEqual(fast, slow) {
		t.Fatalf("%s\nfast: %#v\nslow: %#v (%v)", line, fast, slow, err)
	}
	return true
}

// The fast decoder of entry lines gives what encoding/json gives on
// every line it takes: the lines of generated session files (every entry
// type and shape pi keeps, hosttest.Given), of files as wasmagent writes
// them, and each of those cut or with a byte changed.
func TestFastEntryDecoderIsEncodingJSONs(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	var lines [][]byte
	for seed := range uint64(120) {
		file := hosttest.Given{R: rand.New(rand.NewPCG(seed, 5))}.SessionFile(fmt.Sprintf("s%d", seed), seed%3 == 0)
		lines = append(lines, bytes.Split([]byte(file), []byte("\n"))[1:]...)
	}
	lines = append(lines, bytes.Split(realisticSession(r, "id", "a name", 3), []byte("\n"))[1:]...)
	taken := 0
	const bytesTried = "{}[]\":,\\ 01-.eEtfnu"
	for _, line := range lines {
		if len(line) == 0 {
			continue
		}
		if checkFastEntry(t, line) {
			taken++
		}
		for range 3 {
			b := bytes.Clone(line)
			switch i := r.IntN(len(b)); r.IntN(3) {
			case 0:
				b = b[:i]
			case 1:
				b[i] = bytesTried[r.IntN(len(bytesTried))]
			default:
				b = append(b[:i], append([]byte{bytesTried[r.IntN(len(bytesTried))]}, b[i:]...)...)
			}
			checkFastEntry(t, b)
		}
	}
	if taken < len(lines)/3 {
		t.Fatalf("the fast decoder took %d of %d lines: it should take the usual ones", taken, len(lines))
	}
}

// FuzzFastEntryDecoder: whatever the line, the fast decoder does not
// panic, and what it takes it decodes as encoding/json does.
func FuzzFastEntryDecoder(f *testing.F) {
	f.Add([]byte(`{"type":"message","id":"a","parentId":null,"timestamp":"2025-01-01T00:00:00.000Z","message":{"role":"user","content":[{"type":"text","text":"x"}],"timestamp":1}}`))
	f.Add([]byte(`{"type":"label","id":"b","parentId":"a","timestamp":"t","targetId":"a","label":"l"}`))
	f.Add([]byte(`{"type":"session_info","id":"c","parentId":"b","timestamp":"t","name":"n"}`))
	f.Add([]byte(`{"type":"0","id":"","parentId":"","timestamp":"","Id":"0"}`)) // "Id" is not "id"
	f.Fuzz(func(t *testing.T, line []byte) { checkFastEntry(t, line) })
}
