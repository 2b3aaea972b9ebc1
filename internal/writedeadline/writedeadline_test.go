package writedeadline_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/internal/writedeadline"
)

// Without deadlines (a recorder), writes and flushes pass through whole,
// and a ResponseController finds the writer beneath.
func TestWithoutDeadlines(t *testing.T) {
	rec := httptest.NewRecorder()
	w := writedeadline.New(rec, time.Second)
	msg := bytes.Repeat([]byte("abcdefg"), 3*writedeadline.Piece/7+5)
	if n, err := w.Write(msg); n != len(msg) || err != nil {
		t.Fatalf("Write: %d of %d, %v", n, len(msg), err)
	}
	if err := w.FlushError(); err != nil || !rec.Flushed {
		t.Fatalf("FlushError: %v, flushed %v", err, rec.Flushed)
	}
	if !bytes.Equal(rec.Body.Bytes(), msg) {
		t.Fatalf("the body holds %d bytes, want the %d written", rec.Body.Len(), len(msg))
	}
	if err := http.NewResponseController(w).EnableFullDuplex(); err == nil {
		t.Fatal("EnableFullDuplex on a recorder succeeded: the controller did not reach it through Unwrap")
	}
}
