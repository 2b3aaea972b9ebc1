package serve

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"strings"
)

// Token is a bearer token as the server keeps it: a name (the owner of
// the sessions it makes) and the SHA-256 of the token. The token itself
// is never stored.
type Token struct {
	Name string
	Hash [sha256.Size]byte
}

// HashToken returns the form a token is stored in: "sha256:" and the hex
// SHA-256 of its bytes.
func HashToken(token string) string {
	h := sha256.Sum256([]byte(token))
	return "sha256:" + hex.EncodeToString(h[:])
}

// ParseTokens reads a token list: one token a line (or separated by
// commas, for an environment variable), each "NAME sha256:HEX" where
// NAME names the owner (letters, digits, ".", "_", "-"; at most 64) and
// HEX is the SHA-256 of the token (HashToken). Blank lines and lines
// starting with # are skipped. where names the source in errors.
func ParseTokens(data []byte, where string) ([]Token, error) {
	var out []Token
	names := map[string]int{}
	hashes := map[[sha256.Size]byte]int{}
	lines := bytes.FieldsFunc(data, func(r rune) bool { return r == '\n' || r == ',' })
	for i, raw := range lines {
		line := strings.TrimSpace(string(raw))
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		at := fmt.Sprintf("%s: entry %d", where, i+1)
		f := strings.Fields(line)
		if len(f) != 2 {
			return nil, fmt.Errorf("%s: want \"NAME sha256:HEX\" (the hash of the token, never the token: wasmagent serve --hash-token), got %d fields", at, len(f))
		}
		name, hash := f[0], f[1]
		if !ownerName().MatchString(name) {
			return nil, fmt.Errorf("%s: name %.70q: want letters, digits, '.', '_' or '-', at most 64, starting with a letter or digit", at, name)
		}
		hx, ok := strings.CutPrefix(hash, "sha256:")
		b, err := hex.DecodeString(hx)
		if !ok || err != nil || len(b) != sha256.Size {
			return nil, fmt.Errorf("%s (%s): want sha256: and 64 hex digits (the hash of the token, never the token itself: wasmagent serve --hash-token)", at, name)
		}
		var t Token
		t.Name = name
		copy(t.Hash[:], b)
		if j, dup := names[name]; dup {
			return nil, fmt.Errorf("%s: name %q is also entry %d's", at, name, j)
		}
		if j, dup := hashes[t.Hash]; dup {
			return nil, fmt.Errorf("%s: the same token as entry %d", at, j)
		}
		names[name], hashes[t.Hash] = i+1, i+1
		out = append(out, t)
	}
	return out, nil
}

// authenticate returns the name of the token whose hash matches bearer.
// Every stored hash is compared, in constant time, whatever matches.
func authenticate(tokens []Token, bearer string) (string, bool) {
	h := sha256.Sum256([]byte(bearer))
	name, found := "", 0
	for _, t := range tokens {
		eq := subtle.ConstantTimeCompare(h[:], t.Hash[:])
		if eq == 1 {
			name = t.Name
		}
		found |= eq
	}
	return name, found == 1
}

// bearer returns the token of an "Authorization: Bearer X" header.
func bearer(header string) (string, bool) {
	scheme, tok, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	tok = strings.TrimSpace(tok)
	return tok, tok != ""
}
