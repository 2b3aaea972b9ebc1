package wasmtool

// Pooled is the number of the plugin's instances ready in its pool
// (telemetry's pool gauge): 0 while it loads in the background.
func (p *Plugin) Pooled() int {
	select {
	case <-p.ready:
		if p.rp != nil {
			return p.rp.Pooled()
		}
	default:
	}
	return 0
}
