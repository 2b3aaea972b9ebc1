package config

// protected are the files a plugin may read but never change, even in a
// writable grant (runtime.Grants.Protected): this configuration and what
// it reads or runs, which a plugin could otherwise rewrite to grant
// itself more at the next run, and the audit log.
func (f *File) protected() []string {
	files := []string{f.Path, f.Agent.SystemPromptFile, f.Audit.Path}
	for _, t := range f.Tools {
		files = append(files, t.Plugin.Plugin)
	}
	for _, h := range f.Hooks {
		files = append(files, h.Plugin.Plugin)
	}
	var out []string
	for _, p := range files {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}
