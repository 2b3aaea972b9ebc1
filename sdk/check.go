package sdk

import (
	"errors"
	"fmt"
	"path"
)

// ValidToolName reports whether name follows the model APIs' rule for tool
// names, ^[A-Za-z0-9_-]{1,64}$.
func ValidToolName(name string) bool {
	if len(name) == 0 || len(name) > 64 {
		return false
	}
	for _, c := range []byte(name) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// CheckDescription checks what a host checks in a description, except the
// schemas (the host compiles those): the ABI version, the names, the
// execution modes, the hooks and the needs. Every problem is reported.
func CheckDescription(d *Description) error {
	var errs []error
	if d.ABI != ABIVersion {
		errs = append(errs, fmt.Errorf("describe: abi is %d; this host speaks ABI %d", d.ABI, ABIVersion))
	}
	if d.Name == "" {
		errs = append(errs, errors.New("describe: name is empty"))
	}
	if len(d.Tools) == 0 && len(d.Hooks) == 0 {
		errs = append(errs, errors.New("describe: the plugin offers no tool and no hook"))
	}
	seen := map[string]bool{}
	for i, t := range d.Tools {
		switch {
		case !ValidToolName(t.Name):
			errs = append(errs, fmt.Errorf("describe: tools[%d]: name %q does not match ^[A-Za-z0-9_-]{1,64}$", i, t.Name))
		case seen[t.Name]:
			errs = append(errs, fmt.Errorf("describe: tools[%d]: tool %q is listed twice", i, t.Name))
		}
		seen[t.Name] = true
		if t.ExecutionMode != "" && t.ExecutionMode != Parallel && t.ExecutionMode != Sequential {
			errs = append(errs, fmt.Errorf("describe: tool %q: executionMode %q is not %q or %q", t.Name, t.ExecutionMode, Parallel, Sequential))
		}
	}
	hooks := map[string]bool{}
	for _, h := range d.Hooks {
		if h != HookBeforeToolCall && h != HookAfterToolCall {
			errs = append(errs, fmt.Errorf("describe: unknown hook %q (hooks are %q and %q)", h, HookBeforeToolCall, HookAfterToolCall))
		}
		if hooks[h] {
			errs = append(errs, fmt.Errorf("describe: hook %q is listed twice", h))
		}
		hooks[h] = true
	}
	if d.Gate && !hooks[HookBeforeToolCall] {
		errs = append(errs, fmt.Errorf("describe: gate is set but hooks does not list %q", HookBeforeToolCall))
	}
	if n := d.Needs; n != nil {
		for _, p := range n.Paths {
			if !path.IsAbs(p.Guest) && p.Guest != AnyGrant {
				errs = append(errs, fmt.Errorf("describe: needs: path %q is not an absolute guest path or %q", p.Guest, AnyGrant))
			}
		}
		for _, h := range n.Hosts {
			if h.Host == "" {
				errs = append(errs, errors.New("describe: needs: a host is empty"))
			}
		}
		for _, c := range n.Config {
			if c.Key == "" {
				errs = append(errs, errors.New("describe: needs: a config key is empty"))
			}
		}
	}
	return errors.Join(errs...)
}
