package wasmtool

// Pooled is the number of the plugin's instances ready in its pool
// (telemetry's pool gauge).
func (p *Plugin) Pooled() int { return p.rp.Pooled() }
