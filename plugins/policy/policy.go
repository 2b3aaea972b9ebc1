package main

import (
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
	Action string   `json:"action"` // "allow" or "deny"
	Tools  []string `json:"tools"`  // tool-name globs; empty: every tool
	// Conditions on the arguments, all of which must hold:
	Path   []string `json:"path"`   // globs (** spans directories) on the path argument
	Host   []string `json:"host"`   // host names ("*.example.com") of the URL argument
	Match  string   `json:"match"`  // regular expression on the argument (or on all the arguments as JSON)
	Arg    string   `json:"arg"`    // the argument Path, Host and Match look at (default "path", "url")
	Reason string   `json:"reason"` // shown to the model when the rule denies

	paths []*regexp.Regexp
	match *regexp.Regexp
}

type policy struct {
	rules []rule
	deny  bool // the default when no rule matches
}

type decision struct {
	allow  bool
	reason string
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
		if r.Action != "allow" && r.Action != "deny" {
			errs = append(errs, fmt.Errorf(`%s: action is %q; write "allow" or "deny"`, where, r.Action))
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
	var args map[string]any
	_ = json.Unmarshal(rawArgs, &args)
	for i := range p.rules {
		r := &p.rules[i]
		if !r.matches(tool, args, rawArgs) {
			continue
		}
		if r.Action == "allow" {
			return decision{allow: true}
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
	return decision{allow: true}
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
