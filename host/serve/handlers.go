package serve

import (
	"context"
	"net/http"
)

func (s *Server) create(w http.ResponseWriter, r *http.Request, c Caller) {
	if reason := s.drainReason(); reason != "" {
		writeDraining(w, reason)
		return
	}
	req, err := decodeCreate(r.Body)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if req.SystemPrompt != nil && len(*req.SystemPrompt) > s.o.MaxPromptBytes {
		s.fail(w, r, tooLarge("systemPrompt", len(*req.SystemPrompt), s.o.MaxPromptBytes))
		return
	}
	info, err := s.o.Backend.Create(r.Context(), c, req)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	w.Header().Set("Location", "/v1/sessions/"+info.ID)
	writeJSON(w, http.StatusCreated, info)
}

func (s *Server) list(w http.ResponseWriter, r *http.Request, c Caller) {
	infos, err := s.o.Backend.List(r.Context(), c)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if infos == nil {
		infos = []SessionInfo{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"sessions": infos})
}

func (s *Server) get(w http.ResponseWriter, r *http.Request, c Caller) {
	info, err := s.o.Backend.Get(r.Context(), c, r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, info)
}

func (s *Server) delete(w http.ResponseWriter, r *http.Request, c Caller) {
	if err := s.o.Backend.Delete(r.Context(), c, r.PathValue("id")); err != nil {
		s.fail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) messages(w http.ResponseWriter, r *http.Request, c Caller) {
	msgs, err := s.o.Backend.Messages(r.Context(), c, r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	out := make([]any, len(msgs))
	for i, m := range msgs {
		out[i] = m
	}
	writeJSON(w, http.StatusOK, map[string]any{"messages": out})
}

// command is the handler of POST /v1/sessions/{id}/{typ}.
func command(typ string) func(*Server, http.ResponseWriter, *http.Request, Caller) {
	return func(s *Server, w http.ResponseWriter, r *http.Request, c Caller) {
		cmd, err := decodeCommand(r.Body, typ)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		if typ != "abort" {
			if reason := s.drainReason(); reason != "" {
				writeDraining(w, reason)
				return
			}
			if n := promptSize(cmd); n > s.o.MaxPromptBytes {
				s.fail(w, r, tooLarge("message", n, s.o.MaxPromptBytes))
				return
			}
		}
		// A run outlives its request; the backend bounds it itself. The
		// command, though, is the client's: its going away cancels a wait.
		ctx := r.Context()
		if typ != "abort" {
			ctx = context.WithoutCancel(ctx)
		}
		if err := s.o.Backend.Command(ctx, c, r.PathValue("id"), cmd); err != nil {
			s.fail(w, r, err)
			return
		}
		status := http.StatusAccepted
		if typ == "abort" {
			status = http.StatusOK
		}
		writeJSON(w, status, struct{}{})
	}
}

func promptSize(c Command) int {
	n := 0
	if c.Message != nil {
		n += len(*c.Message)
	}
	for _, img := range c.Images {
		n += len(img.Data) + len(img.MimeType)
	}
	return n
}
