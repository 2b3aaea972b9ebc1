package session

import "testing"

// The request an adapter names at the end of its error text never makes
// a failure transient, and the words before it still do.
func TestTransientIgnoresTheRequest(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{"429 Too Many Requests: slow down (POST https://api.example.com/v1/chat/completions)", true},
		{"503 Service Unavailable (POST https://h/v1/chat/completions, 4 attempts)", true},
		{"connection refused: nothing listens on 127.0.0.1:5000 (POST http://127.0.0.1:5000/v1/chat/completions)", true},
		{"404 Not Found: no such model (POST https://proxy.example/500/v1/chat/completions)", false},
		{"401 Unauthorized: bad key (POST https://ratelimit.example/v1/chat/completions)", false},
		{"400 Bad Request (POST https://h/v1/chat/completions, redirected to https://h/timeout/v1, 2 attempts)", false},
		{"401 Unauthorized (POST https://h/v1/chat?x=server_error)", false},
		// No request named: the whole text is matched, as pi does.
		{"server error: try again", true},
		{"the stream ended before the model finished", false},
	} {
		if got := isTransient(c.text); got != c.want {
			t.Errorf("isTransient(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}
