package runtime

// Observed is what an instance read from outside its module, input and
// configuration, from its initialisation to the end of its call: a host
// that caches what a call returns (a plugin's description) must not when
// the answer may depend on the world.
type Observed struct {
	// Files: it opened, listed or looked at something in a granted
	// directory.
	Files bool
	// Network: it sent an HTTP request.
	Network bool
}

// CheckGrants is grants as a Plugin of this Runtime would have them:
// defaults filled in, paths made absolute and cleaned, host patterns made
// canonical; or the error NewPlugin would give.
func (r *Runtime) CheckGrants(g Grants) (Grants, error) {
	return g.normalize(r.opts.MaxMemoryPages)
}
