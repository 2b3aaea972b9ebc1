package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// pattern is one kind of secret. When group is non-zero only that
// submatch is the secret (the key name around it stays readable).
type pattern struct {
	name  string
	re    *regexp.Regexp
	group int
}

// builtins are the shapes every deployment wants gone. Each is anchored
// on a prefix or structure specific enough that ordinary text, hashes and
// identifiers do not match (the tests hold a corpus of both).
var builtins = []pattern{
	{"private-key", regexp.MustCompile(`-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----|$)`), 0},
	{"aws-access-key-id", regexp.MustCompile(`\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}\b`), 0},
	{"aws-secret-access-key", regexp.MustCompile(`(?i)aws_?secret_?access_?key["']?\s*[:=]\s*["']?([A-Za-z0-9/+=]{40})\b`), 1},
	{"github-token", regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b`), 0},
	{"gitlab-token", regexp.MustCompile(`\bglpat-[A-Za-z0-9_\-]{20,}\b`), 0},
	{"slack-token", regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9-]{10,}\b`), 0},
	{"slack-webhook", regexp.MustCompile(`https://hooks\.slack\.com/services/[A-Za-z0-9/]+`), 0},
	{"openai-key", regexp.MustCompile(`\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}\b`), 0},
	{"stripe-key", regexp.MustCompile(`\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b`), 0},
	{"google-api-key", regexp.MustCompile(`\bAIza[0-9A-Za-z_\-]{35}\b`), 0},
	{"jwt", regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\b`), 0},
	{"bearer-token", regexp.MustCompile(`(?i)\bbearer\s+([A-Za-z0-9\-._~+/]{16,}=*)`), 1},
	{"basic-auth-url", regexp.MustCompile(`\b[a-z][a-z0-9+.-]*://[^\s:/@]+:([^\s:/@]{3,})@`), 1},
	// NAME=value, name: "value", DB_PASSWORD=… — a value of 8 or more
	// characters, not a variable ($X) or a call (f(x)).
	{"password-assignment", regexp.MustCompile(`(?i)\b[A-Za-z0-9_]*(?:password|passwd|pwd|secret|api_?key|access_?token|auth_?token|private_?key)["']?\s*[:=]\s*["']?([A-Za-z0-9_\-+/=.!@#%^&*~]{8,})(?:["']|\s|[,;]|$)`), 1},
}

type redactor struct {
	patterns []pattern
}

func newRedactor(extraJSON string, withBuiltins bool) (*redactor, error) {
	r := &redactor{}
	if withBuiltins {
		r.patterns = append(r.patterns, builtins...)
	}
	if strings.TrimSpace(extraJSON) == "" {
		return r, nil
	}
	var extra []struct {
		Name  string `json:"name"`
		Regex string `json:"regex"`
		Group int    `json:"group"`
	}
	dec := json.NewDecoder(strings.NewReader(extraJSON))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&extra); err != nil {
		return nil, fmt.Errorf("patterns: %v", err)
	}
	var errs []error
	for i, p := range extra {
		if p.Name == "" {
			errs = append(errs, fmt.Errorf("patterns[%d]: no name", i))
			continue
		}
		re, err := regexp.Compile(p.Regex)
		if err != nil {
			errs = append(errs, fmt.Errorf("patterns[%d] (%s): %v", i, p.Name, err))
			continue
		}
		if p.Regex == "" || re.MatchString("") {
			errs = append(errs, fmt.Errorf("patterns[%d] (%s): the expression matches the empty string", i, p.Name))
			continue
		}
		if p.Group < 0 || p.Group > re.NumSubexp() {
			errs = append(errs, fmt.Errorf("patterns[%d] (%s): group %d does not exist", i, p.Name, p.Group))
			continue
		}
		r.patterns = append(r.patterns, pattern{p.Name, re, p.Group})
	}
	return r, errors.Join(errs...)
}

// redact replaces every secret in s with [REDACTED:name], counting them.
func (r *redactor) redact(s string, counts map[string]int) string {
	for _, p := range r.patterns {
		s = replace(p, s, counts)
	}
	return s
}

func replace(p pattern, s string, counts map[string]int) string {
	locs := p.re.FindAllStringSubmatchIndex(s, -1)
	if len(locs) == 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for _, loc := range locs {
		start, end := loc[2*p.group], loc[2*p.group+1]
		if start < 0 {
			continue
		}
		b.WriteString(s[last:start])
		b.WriteString("[REDACTED:" + p.name + "]")
		last = end
		counts[p.name]++
	}
	b.WriteString(s[last:])
	return b.String()
}

// redactValue redacts every string in a decoded JSON value.
func (r *redactor) redactValue(v any, counts map[string]int) any {
	switch v := v.(type) {
	case string:
		return r.redact(v, counts)
	case []any:
		for i := range v {
			v[i] = r.redactValue(v[i], counts)
		}
	case map[string]any:
		for k := range v {
			v[k] = r.redactValue(v[k], counts)
		}
	}
	return v
}
