package wasmtool

import (
	"encoding/base64"
	"fmt"
	"strings"
)

// checkImage checks an image block's MIME type and data. The type is
// written into a data URL for the model (data:TYPE;base64,DATA), so it
// must be a bare image type (RFC 6838 names, no parameters): a ";" or ","
// in it would change what the URL holds ("image/png;base64,AAAA#" would
// put other bytes in the model's image than the data the host checked and
// the hooks saw). Whether the bytes are of that type is not judged, as in
// pi: a test's few bytes are an image too.
func checkImage(mimeType, data string) error {
	sub, ok := strings.CutPrefix(mimeType, "image/")
	if !ok || !restrictedName(sub) {
		return fmt.Errorf("image mimeType %q is not an image type (image/NAME, no parameters)", mimeType)
	}
	if _, err := base64.StdEncoding.DecodeString(data); err != nil {
		return fmt.Errorf("image data is not base64: %v", err)
	}
	return nil
}

// restrictedName is RFC 6838's restricted-name: a letter or digit, then
// up to 126 letters, digits and !#$&-^_.+
func restrictedName(s string) bool {
	if s == "" || len(s) > 127 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		alnum := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
		if !alnum && (i == 0 || !strings.ContainsRune("!#$&-^_.+", rune(c))) {
			return false
		}
	}
	return true
}
