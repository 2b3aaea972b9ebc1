package main

import (
	"net/http"
	"strings"
	"testing"
)

// FuzzImageType: imageType answers what net/http's DetectContentType
// answers for the four image types, on any bytes.
func FuzzImageType(f *testing.F) {
	for _, s := range []string{"\x89PNG\r\n\x1a\n....", "\xff\xd8\xff\xe0", "GIF87a", "GIF89a;", "RIFF\x00\x01\x02\x03WEBPVP8 ", "RIFF1234WEBPVP", "RIFF1234WEBPV",
		"\xff\xfe\x00", "<html>", "  \x89PNG\r\n\x1a\n", "%PDF-", "\xef\xbb\xbfGIF89a", ""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want := http.DetectContentType(data)
		if !strings.HasPrefix(want, "image/") || (want != "image/png" && want != "image/jpeg" && want != "image/gif" && want != "image/webp") {
			want = ""
		}
		if got := imageType(data); got != want {
			t.Fatalf("%q: imageType %q, DetectContentType %q", data, got, http.DetectContentType(data))
		}
	})
}
