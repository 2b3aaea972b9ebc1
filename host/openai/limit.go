package openai

import (
	"fmt"
	"io"
	"net/http"

	"github.com/openai/openai-go/v3/option"

	"github.com/wasmagent/wasmagent/internal/words"
)

// DefaultMaxResponseBytes is the default cap on the bytes of one streamed
// response (Options.MaxResponseBytes).
const DefaultMaxResponseBytes = 64 << 20

// tooLargeError is a response body that went past Options.MaxResponseBytes.
type tooLargeError struct{ limit int64 }

func (e *tooLargeError) Error() string {
	return fmt.Sprintf("the model's response is larger than the host accepts: more than %s streamed (model.max_response_bytes)", words.Count(e.limit, "byte"))
}

// capBody is a middleware that makes every response body fail, with a
// tooLargeError, once more than limit bytes have been read from it, and
// with a floodError before an event of more than MaxEventValues values
// ends. It counts the bytes on the wire, so it bounds one endless SSE line
// as well as an endless run of small chunks.
func capBody(limit int64) option.Middleware {
	return func(r *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		resp, err := next(r)
		if err == nil && resp != nil && resp.Body != nil {
			resp.Body = &cappedBody{ReadCloser: resp.Body, left: limit, limit: limit, values: eventValues{limit: MaxEventValues}}
		}
		return resp, err
	}
}

type cappedBody struct {
	io.ReadCloser
	left, limit int64
	values      eventValues
	err         error // a flood found: every later read fails with it
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if b.left <= 0 {
		// One byte more than the cap tells a body of exactly the cap
		// from a longer one.
		var one [1]byte
		n, err := b.ReadCloser.Read(one[:])
		if n > 0 {
			return 0, &tooLargeError{b.limit}
		}
		return 0, err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	if m, ferr := b.values.scan(p[:n]); ferr != nil {
		b.err = ferr
		return m, ferr
	}
	return n, err
}
