package config

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/wasmagent/wasmagent/host"
)

// Audit is [audit]: an optional JSON-lines record of every tool call and
// hook decision.
type Audit struct {
	// Path is the log file, appended to (relative to the configuration).
	Path string `toml:"path"`
	// Arguments and Results add the call's arguments and result text to
	// each record, cut to MaxFieldBytes (default 4096); off by default, as
	// they may hold what the log should not.
	Arguments     bool `toml:"arguments"`
	Results       bool `toml:"results"`
	MaxFieldBytes int  `toml:"max_field_bytes"`
}

// auditRecord is one line of the audit log: one tool call.
type auditRecord struct {
	Time       string          `json:"time"`
	ToolCallID string          `json:"toolCallId"`
	Tool       string          `json:"tool"`
	Plugin     string          `json:"plugin,omitempty"`
	SHA256     string          `json:"sha256,omitempty"`
	Hooks      []hookDecision  `json:"hooks,omitempty"`
	DurationMs float64         `json:"durationMs"`
	Outcome    string          `json:"outcome"` // "ok", "error" or "blocked"
	ArgsBytes  int             `json:"argsBytes"`
	ResultLen  int             `json:"resultBytes"`
	Args       json.RawMessage `json:"args,omitempty"`
	Result     string          `json:"result,omitempty"`
}

type hookDecision struct {
	Hook     string `json:"hook"` // "beforeToolCall" or "afterToolCall"
	Plugin   string `json:"plugin"`
	Gate     bool   `json:"gate,omitempty"`
	Decision string `json:"decision"` // "allow", "block", "rewrite", "keep", "modify", "error"
	Reason   string `json:"reason,omitempty"`
	// Fallback is what decided a failure: on_error or on_timeout's value.
	Fallback string `json:"fallback,omitempty"`
	// Question and Answer: the hook asked, and who answered what.
	Question string `json:"question,omitempty"`
	Answer   string `json:"answer,omitempty"`
	// A rewrite: SHA-256 digests of the arguments before and after, and
	// the new arguments when [audit] arguments is on.
	ArgsBefore string          `json:"argsBefore,omitempty"`
	ArgsAfter  string          `json:"argsAfter,omitempty"`
	Rewritten  json.RawMessage `json:"rewritten,omitempty"`
}

// auditor writes the audit log. Records are built from the agent's events
// and the hooks' decisions, and appended one whole line at a time under a
// lock, so parallel calls never interleave.
type auditor struct {
	cfg   Audit
	mu    sync.Mutex
	file  *os.File
	calls map[string]*auditRecord
	start map[string]time.Time
	owner map[string]ToolInfo // by tool name
}

func openAudit(cfg Audit, tools []ToolInfo) (*auditor, error) {
	f, err := os.OpenFile(cfg.Path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	if cfg.MaxFieldBytes <= 0 {
		cfg.MaxFieldBytes = 4096
	}
	a := &auditor{cfg: cfg, file: f, calls: map[string]*auditRecord{}, start: map[string]time.Time{}, owner: map[string]ToolInfo{}}
	for _, t := range tools {
		a.owner[t.Name] = t
	}
	return a, nil
}

func (a *auditor) close() { a.file.Close() }

// hook records a hook's decision on a call (host.Config.OnHook).
func (a *auditor) hook(h host.HookReport) {
	d := hookDecision{Hook: h.Kind, Plugin: h.Hook, Gate: h.Gate, Decision: h.Decision, Reason: h.Reason,
		Fallback: string(h.Fallback), Question: h.Question, Answer: h.Answer}
	if h.ArgsAfter != nil {
		d.ArgsBefore, d.ArgsAfter = digest(h.ArgsBefore), digest(h.ArgsAfter)
		if a.cfg.Arguments {
			d.Rewritten = cutJSON(h.ArgsAfter, a.cfg.MaxFieldBytes)
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if r := a.calls[h.ToolCallID]; r != nil {
		r.Hooks = append(r.Hooks, d)
	}
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Event is the listener that turns tool events into records.
func (a *auditor) Event(_ context.Context, e host.Event) error {
	switch e := e.(type) {
	case host.ToolExecutionStartEvent:
		a.mu.Lock()
		defer a.mu.Unlock()
		r := &auditRecord{ToolCallID: e.ToolCallID, Tool: e.ToolName, ArgsBytes: len(e.Args)}
		if t, ok := a.owner[e.ToolName]; ok {
			r.Plugin, r.SHA256 = t.Plugin.Name(), t.Plugin.SHA256()
		}
		if a.cfg.Arguments {
			r.Args = cutJSON(host.ArgumentsJSON(e.Args), a.cfg.MaxFieldBytes)
		}
		a.calls[e.ToolCallID] = r
		a.start[e.ToolCallID] = time.Now()
	case host.ToolExecutionEndEvent:
		a.mu.Lock()
		r := a.calls[e.ToolCallID]
		start := a.start[e.ToolCallID]
		delete(a.calls, e.ToolCallID)
		delete(a.start, e.ToolCallID)
		a.mu.Unlock()
		if r == nil {
			return nil
		}
		r.Time = start.UTC().Format(time.RFC3339Nano)
		r.DurationMs = float64(time.Since(start).Microseconds()) / 1000
		text := e.Result.Content.TextOf()
		r.ResultLen = len(text)
		r.Outcome = "ok"
		if e.IsError {
			r.Outcome = "error"
			for _, h := range r.Hooks {
				if h.Decision == "block" {
					r.Outcome = "blocked"
				}
			}
		}
		if a.cfg.Results {
			r.Result = cut(text, a.cfg.MaxFieldBytes)
		}
		line, err := json.Marshal(r)
		if err != nil {
			return err
		}
		a.mu.Lock()
		defer a.mu.Unlock()
		if _, err := a.file.Write(append(line, '\n')); err != nil {
			return fmt.Errorf("audit log: %w", err)
		}
	}
	return nil
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// cutJSON keeps JSON valid: arguments over the bound become a string.
func cutJSON(raw json.RawMessage, n int) json.RawMessage {
	if len(raw) <= n {
		return raw
	}
	b, _ := json.Marshal(cut(string(raw), n))
	return b
}
