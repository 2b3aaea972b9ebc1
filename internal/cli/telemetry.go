package cli

import (
	"context"
	"time"

	"github.com/wasmagent/wasmagent/host/config"
	"github.com/wasmagent/wasmagent/host/telemetry"
)

// flushTimeout bounds the export of what is left at exit: a slow or dead
// collector delays the exit by no more.
const flushTimeout = 3 * time.Second

// startTelemetry sets [telemetry] up for a command that runs the agent or
// its tools, and puts its observers into opts; nil when the command does
// not export or [telemetry] is off.
func startTelemetry(f *config.File, l load, opts *config.WireOptions) (*telemetry.Telemetry, error) {
	if !l.telemetry || !f.Telemetry.Enabled() && !l.metrics {
		return nil, nil
	}
	headers, err := f.TelemetryHeaders()
	if err != nil {
		return nil, err
	}
	tel, err := telemetry.New(f.Telemetry, telemetry.Options{Headers: headers, Version: moduleVersion(), Prometheus: l.metrics})
	if err != nil {
		return nil, err
	}
	opts.Observer, opts.RuntimeObserver = tel.HostObserver(), tel.RuntimeObserver()
	opts.OnClose = func() {
		ctx, cancel := context.WithTimeout(context.Background(), flushTimeout)
		defer cancel()
		tel.Shutdown(ctx) // best effort: what a dead collector refuses is dropped and counted
	}
	return tel, nil
}

// watchSetup names each tool's plugin for the spans and watches the
// runtime's and the pools' gauges.
func watchSetup(tel *telemetry.Telemetry, s *config.Setup) {
	if tel == nil {
		return
	}
	for _, t := range s.Tools {
		tel.NameTool(t.Name, t.Plugin.Name(), t.Plugin.SHA256())
		tel.WatchPool(t.Plugin.Name(), t.Plugin.Pooled)
	}
	for _, h := range s.Hooks {
		tel.WatchPool(h.Plugin.Name(), h.Plugin.Pooled)
	}
	tel.WatchRuntime(s.Runtime.Stats)
}
