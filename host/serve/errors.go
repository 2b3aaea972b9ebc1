package serve

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/wasmagent/wasmagent/host/session"
)

// errorBody is every error's JSON: {"error":{"code","message"}}.
type errorBody struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "internal", "the response does not encode: "+err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	w.Write(append(body, '\n'))
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	body, _ := json.Marshal(errorBody{errorDetail{code, msg}})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	w.Write(append(body, '\n'))
}

func writeDraining(w http.ResponseWriter, reason string) {
	writeError(w, http.StatusServiceUnavailable, "draining", reason)
}

// tooLargeError is a request over a size cap (413).
type tooLargeError struct {
	what      string
	size, max int
}

func (e *tooLargeError) Error() string {
	return fmt.Sprintf("%s is %d bytes; this server takes at most %d", e.what, e.size, e.max)
}

func tooLarge(what string, size, max int) error { return &tooLargeError{what, size, max} }

// fail answers err with its status: the Backend's errors by kind; any
// other is a 500 whose text goes to the log only.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	var (
		inv   *InvalidError
		quota *QuotaError
		big   *tooLargeError
		maxb  *http.MaxBytesError
		lock  *session.LockedError
	)
	switch {
	case r.Context().Err() != nil && errors.Is(err, r.Context().Err()):
		return // the client went away; nobody reads an answer
	case errors.Is(err, ErrNotFound), errors.Is(err, session.ErrNotFound):
		writeError(w, http.StatusNotFound, "not_found", "no such session: "+r.PathValue("id"))
	case errors.As(err, &inv):
		writeError(w, http.StatusBadRequest, "invalid_request", inv.Error())
	case errors.As(err, &quota):
		if quota.RetryAfter > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(int(quota.RetryAfter.Seconds()+0.999)))
		}
		writeError(w, http.StatusTooManyRequests, "quota_exceeded", quota.Error())
	case errors.As(err, &maxb):
		writeError(w, http.StatusRequestEntityTooLarge, "too_large", fmt.Sprintf("the request body is over %d bytes, this server's limit", maxb.Limit))
	case errors.As(err, &big):
		writeError(w, http.StatusRequestEntityTooLarge, "too_large", big.Error())
	case errors.Is(err, ErrBusy), errors.Is(err, session.ErrBusy):
		writeError(w, http.StatusConflict, "busy", err.Error())
	case errors.As(err, &lock):
		writeError(w, http.StatusConflict, "locked", "the session is held by another process")
	case errors.Is(err, ErrDraining):
		writeDraining(w, err.Error())
	case errors.Is(err, ErrClosed):
		writeError(w, http.StatusServiceUnavailable, "unavailable", err.Error())
	default:
		s.o.Log.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
		writeError(w, http.StatusInternalServerError, "internal", "the server failed to do this (its log says why)")
	}
}
