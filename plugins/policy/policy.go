package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path"
	"regexp"
	"strings"

	"github.com/wasmagent/wasmagent/sdk/pathglob"
)

// rule is one entry of the configuration's rules.
type rule struct {
	Name   string   `json:"name"`
	Action string   `json:"action"` // "allow", "deny", "ask" or "rewrite"
	Tools  []string `json:"tools"`  // tool-name globs; empty: every tool
	// Conditions on the arguments, all of which must hold:
	Path   []string `json:"path"`   // globs (** spans directories) on the path argument
	Host   []string `json:"host"`   // host names ("*.example.com") of the URL argument
	Match  string   `json:"match"`  // regular expression on the argument (or on all the arguments as JSON)
	Arg    string   `json:"arg"`    // the argument Path, Host and Match look at (default "path", "url")
	Reason string   `json:"reason"` // shown to the model when the rule denies
	// Question is what an "ask" rule asks (default: the tool and its
	// arguments).
	Question string `json:"question"`
	// A "rewrite" rule changes the argument Arg and evaluation goes on
	// with the next rule: Prefix puts a path under a directory (default
	// arg "path"); Strip removes flags from a command line (default arg
	// "command").
	Prefix string   `json:"prefix"`
	Strip  []string `json:"strip"`

	paths []*regexp.Regexp
	match *regexp.Regexp
}

type policy struct {
	rules []rule
	deny  bool // the default when no rule matches
}

// decision is the policy's answer: allow, ask (with the question) or
// block (with the reason), and the arguments rewritten on the way (nil
// when unchanged).
type decision struct {
	allow  bool
	ask    string
	reason string
	args   json.RawMessage
}

func compile(rulesJSON, def string) (*policy, error) {
	p := &policy{}
	switch def {
	case "", "allow":
	case "deny":
		p.deny = true
	default:
		return nil, fmt.Errorf(`default is %q; write "allow" or "deny"`, def)
	}
	if strings.TrimSpace(rulesJSON) == "" {
		return p, nil
	}
	dec := json.NewDecoder(strings.NewReader(rulesJSON))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p.rules); err != nil {
		return nil, fmt.Errorf("rules: %v", err)
	}
	var errs []error
	for i := range p.rules {
		r := &p.rules[i]
		where := fmt.Sprintf("rules[%d]", i)
		if r.Name != "" {
			where += " (" + r.Name + ")"
		} else {
			r.Name = fmt.Sprintf("#%d", i+1)
		}
		switch r.Action {
		case "allow", "deny", "ask":
			if r.Prefix != "" || r.Strip != nil {
				errs = append(errs, fmt.Errorf(`%s: prefix and strip are for action "rewrite"`, where))
			}
		case "rewrite":
			if (r.Prefix == "") == (r.Strip == nil) {
				errs = append(errs, fmt.Errorf(`%s: a rewrite needs prefix or strip (one of them)`, where))
			}
			if r.Prefix != "" && !path.IsAbs(r.Prefix) {
				errs = append(errs, fmt.Errorf("%s: prefix %q is not an absolute path", where, r.Prefix))
			}
		default:
			errs = append(errs, fmt.Errorf(`%s: action is %q; write "allow", "deny", "ask" or "rewrite"`, where, r.Action))
		}
		if r.Question != "" && r.Action != "ask" {
			errs = append(errs, fmt.Errorf(`%s: question is for action "ask"`, where))
		}
		for _, g := range r.Tools {
			if _, err := path.Match(g, ""); err != nil {
				errs = append(errs, fmt.Errorf("%s: bad tool glob %q", where, g))
			}
		}
		for _, g := range r.Path {
			re, err := pathglob.Compile(g)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %v", where, err))
				continue
			}
			r.paths = append(r.paths, re)
		}
		if r.Match != "" {
			re, err := regexp.Compile(r.Match)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: bad match %q: %v", where, r.Match, err))
			}
			r.match = re
		}
	}
	return p, errors.Join(errs...)
}

func (p *policy) decide(tool string, rawArgs json.RawMessage) decision {
	args := decodeArgs(rawArgs)
	changed := false
	for i := range p.rules {
		r := &p.rules[i]
		if !r.matches(tool, args, rawArgs) {
			continue
		}
		switch r.Action {
		case "rewrite":
			if r.rewrite(args) {
				changed = true
				rawArgs, _ = json.Marshal(args)
			}
			continue
		case "allow":
			return decision{allow: true, args: rewritten(changed, rawArgs)}
		case "ask":
			q := r.Question
			if q == "" {
				q = fmt.Sprintf("Allow %s %s? (policy rule %s)", tool, rawArgs, r.Name)
			}
			return decision{ask: q, args: rewritten(changed, rawArgs)}
		}
		reason := fmt.Sprintf("Blocked by policy rule %s", r.Name)
		if r.Reason != "" {
			reason += ": " + r.Reason
		}
		return decision{reason: reason}
	}
	if p.deny {
		return decision{reason: fmt.Sprintf("Blocked by policy: no rule allows %s, and the default is deny", tool)}
	}
	return decision{allow: true, args: rewritten(changed, rawArgs)}
}

// decodeArgs reads the arguments keeping numbers as written.
func decodeArgs(raw json.RawMessage) map[string]any {
	var args map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&args) != nil || args == nil {
		args = map[string]any{}
	}
	return args
}

func rewritten(changed bool, raw json.RawMessage) json.RawMessage {
	if !changed {
		return nil
	}
	return raw
}

// rewrite applies a rewrite rule to args, reporting whether it changed
// them. A missing or non-string argument is left alone.
func (r *rule) rewrite(args map[string]any) bool {
	if r.Prefix != "" {
		key := r.argOr("path")
		v, ok := args[key].(string)
		if !ok {
			return false
		}
		p := underPrefix(r.Prefix, v)
		args[key] = p
		return p != v
	}
	key := r.argOr("command")
	v, ok := args[key].(string)
	if !ok {
		return false
	}
	s := stripFlags(v, r.Strip)
	args[key] = s
	return s != v
}

// underPrefix puts p under dir: a path already inside stays (cleaned), any
// other is joined below dir, with "..", which could climb out, cleaned
// away first.
func underPrefix(dir, p string) string {
	dir = path.Clean(dir)
	clean := path.Clean("/" + p)
	if clean == dir || strings.HasPrefix(clean, dir+"/") || dir == "/" {
		return clean
	}
	return path.Join(dir, clean)
}

// stripFlags removes from cmd every white-space separated word equal to a
// flag (or, for a flag starting with "--", to flag=…), with the white
// space before it; the rest of cmd is kept byte for byte. Quotes are not
// parsed: a flag inside a quoted string is a word like any other.
func stripFlags(cmd string, flags []string) string {
	var b strings.Builder
	i := 0
	for i < len(cmd) {
		ws := i
		for i < len(cmd) && isSpace(cmd[i]) {
			i++
		}
		start := i
		for i < len(cmd) && !isSpace(cmd[i]) {
			i++
		}
		if start < i && isFlag(cmd[start:i], flags) {
			if ws == 0 { // the first word: drop the space after it instead
				for i < len(cmd) && isSpace(cmd[i]) {
					i++
				}
			}
			continue
		}
		b.WriteString(cmd[ws:i])
	}
	return b.String()
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isFlag(w string, flags []string) bool {
	for _, f := range flags {
		if w == f || (strings.HasPrefix(f, "--") && strings.HasPrefix(w, f+"=")) {
			return true
		}
	}
	return false
}

func (r *rule) matches(tool string, args map[string]any, raw json.RawMessage) bool {
	if len(r.Tools) > 0 && !anyGlob(r.Tools, tool) {
		return false
	}
	if len(r.paths) > 0 {
		v, ok := args[r.argOr("path")].(string)
		if !ok || !pathMatches(r.paths, v) {
			return false
		}
	}
	if len(r.Host) > 0 {
		v, ok := args[r.argOr("url")].(string)
		if !ok {
			return false
		}
		u, err := url.Parse(v)
		if err != nil || !anyHost(r.Host, strings.ToLower(u.Hostname())) {
			return false
		}
	}
	if r.match != nil {
		subject := string(raw)
		if r.Arg != "" {
			v, ok := args[r.Arg]
			if !ok {
				return false
			}
			if s, isString := v.(string); isString {
				subject = s
			} else {
				b, _ := json.Marshal(v)
				subject = string(b)
			}
		}
		if !r.match.MatchString(subject) {
			return false
		}
	}
	return true
}

func (r *rule) argOr(def string) string {
	if r.Arg != "" {
		return r.Arg
	}
	return def
}

func anyGlob(globs []string, s string) bool {
	for _, g := range globs {
		if ok, _ := path.Match(g, s); ok {
			return true
		}
	}
	return false
}

// anyHost matches a host name against "name", "*.name" (subdomains) and "*".
func anyHost(hosts []string, h string) bool {
	for _, p := range hosts {
		p = strings.ToLower(p)
		switch {
		case p == "*" || p == h:
			return true
		case strings.HasPrefix(p, "*.") && strings.HasSuffix(h, p[1:]):
			return true
		}
	}
	return false
}

// pathMatches matches a path argument, cleaned, and also with any leading
// "/" or "./" removed, so that "**/.env" catches ".env", "a/.env" and
// "/work/.env" alike; "..", which could disguise a path, is cleaned away.
func pathMatches(res []*regexp.Regexp, p string) bool {
	clean := path.Clean(p)
	candidates := []string{clean, strings.TrimPrefix(clean, "/")}
	for _, re := range res {
		for _, c := range candidates {
			if re.MatchString(c) {
				return true
			}
		}
	}
	return false
}
