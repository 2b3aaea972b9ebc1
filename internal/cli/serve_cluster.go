package cli

import (
	"context"
	"fmt"
	"net/http"

	"github.com/wasmagent/wasmagent/host/cluster"
	"github.com/wasmagent/wasmagent/host/config"
	"github.com/wasmagent/wasmagent/host/serve"
)

// serveBackend is the backend of "wasmagent serve": the cluster service
// on NATS JetStream (docs/cluster.md). With [cluster] nats_url it joins
// that cluster; without, it runs an embedded server storing in lo.Root —
// one code path for one machine and for many. lo is what serve would
// give its local backend: the sessions' options, events and OnOpen.
func serveBackend(ctx context.Context, f *config.File, lo serve.LocalOptions) (serve.Backend, error) {
	k := f.Cluster
	d := cluster.Deployment{StateDir: lo.Root}
	if k.Joins() {
		d.Join = cluster.ConnectConfig{URL: k.NATSURL, CredsFile: k.CredsFile, CredsEnv: k.CredsEnv, CAFile: k.TLSCA, CertFile: k.TLSCert, KeyFile: k.TLSKey}
	}
	svc, err := cluster.Start(ctx, d, cluster.ServiceOptions{
		Session: lo.Session, Prepare: lo.OnOpen, Events: lo.Events,
		Slots: k.Slots, LeaseTTL: k.LeaseTTL.Duration, Replicas: k.Replicas,
	})
	if err != nil {
		return nil, fmt.Errorf("[cluster]: %w", err)
	}
	return svc, nil
}

// readiness is what a backend that can tell whether it takes requests
// implements (the cluster service: JetStream answers, not stopping).
type readiness interface {
	Ready(ctx context.Context) error
}

// withHealth serves GET /healthz (200 while the process serves) and GET
// /readyz (200, or 503 and the reason while the backend is not ready) in
// front of h, without auth: a load balancer's probes carry no token.
func withHealth(h http.Handler, b serve.Backend) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/", h)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		var err error
		if rb, ok := b.(readiness); ok {
			err = rb.Ready(r.Context())
		}
		if err != nil {
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintf(w, "not ready: %v\n", err)
			return
		}
		w.Write([]byte("ready\n"))
	})
	return mux
}
