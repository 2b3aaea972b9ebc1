package cluster

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/session"
)

// benchStores are the stores compared side by side: the file store (one
// write and fsync per append, its default), and the JetStream store on an
// embedded server, with JetStream's default sync and with SyncAlways.
func benchStores(b *testing.B) []struct {
	name string
	st   session.Store
} {
	mk := func(sync bool) session.Store {
		s, err := StartServer(ServerConfig{Dir: b.TempDir(), SyncAlways: sync})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(s.Shutdown)
		return testStore(b, testConn(b, s), StoreConfig{})
	}
	return []struct {
		name string
		st   session.Store
	}{
		{"file", &session.FileStore{Dir: b.TempDir()}},
		{"jetstream", mk(false)},
		{"jetstream-syncalways", mk(true)},
	}
}

// entry1k is a message entry of about 1 KiB, a typical short turn.
func entry1k(i int) session.Entry {
	return session.Entry{Type: session.TypeMessage, ID: fmt.Sprintf("e%d", i), Timestamp: "2026-01-02T03:04:06.000Z",
		Message: &host.UserMessage{Content: host.Text(strings.Repeat("x", 1000)), Timestamp: 1}}
}

func benchHeader(i int) session.Header {
	h := header(fmt.Sprintf("s%06d", i))
	h.Timestamp = time.Date(2026, 1, 2, 3, 4, 5, i*1e6, time.UTC).Format("2006-01-02T15:04:05.000Z")
	return h
}

// BenchmarkStoreAppend: one ~1 KiB entry appended per op.
func BenchmarkStoreAppend(b *testing.B) {
	ctx := context.Background()
	for _, s := range benchStores(b) {
		b.Run(s.name, func(b *testing.B) {
			l, err := s.st.Create(ctx, benchHeader(int(prefixes.Add(1))), []session.Entry{entry1k(0)})
			if err != nil {
				b.Fatal(err)
			}
			defer l.Close()
			b.SetBytes(1 << 10)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := l.Append(ctx, entry1k(i+1)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkStoreLoad: a session of 100 entries of ~1 KiB loaded per op.
func BenchmarkStoreLoad(b *testing.B) {
	ctx := context.Background()
	for _, s := range benchStores(b) {
		l, err := s.st.Create(ctx, benchHeader(0), []session.Entry{entry1k(0)})
		if err != nil {
			b.Fatal(err)
		}
		for i := 1; i < 100; i++ {
			if err := l.Append(ctx, entry1k(i)); err != nil {
				b.Fatal(err)
			}
		}
		l.Close()
		key := sessionKey(b, s.st, "s000000")
		b.Run(s.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if tr, err := s.st.Load(ctx, key); err != nil || len(tr.Entries) != 100 {
					b.Fatalf("load: %v", err)
				}
			}
		})
	}
}

// BenchmarkStoreList: 1000 sessions of 10 entries listed per op.
func BenchmarkStoreList(b *testing.B) {
	const n = 1000
	ctx := context.Background()
	for _, s := range benchStores(b) {
		for i := 0; i < n; i++ {
			entries := make([]session.Entry, 10)
			for j := range entries {
				entries[j] = entry1k(j)
			}
			l, err := s.st.Create(ctx, benchHeader(i), entries)
			if err != nil {
				b.Fatal(err)
			}
			l.Close()
		}
		b.Run(s.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if all, err := s.st.List(ctx); err != nil || len(all) != n {
					b.Fatalf("list: %d, %v", len(all), err)
				}
			}
		})
	}
}

// BenchmarkSessionFootprint: what one session held open costs this
// process (the Log, its lease's renewals, and, the server being embedded,
// the server's share): heap bytes and goroutines per session. Run with
// -benchtime 1000x.
func BenchmarkSessionFootprint(b *testing.B) {
	ctx := context.Background()
	s := testServer(b)
	st := testStore(b, testConn(b, s), StoreConfig{})
	logs := make([]session.Log, 0, b.N)
	defer func() {
		for _, l := range logs {
			l.Close()
		}
	}()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	g0 := runtime.NumGoroutine()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		l, err := st.Create(ctx, benchHeader(i), []session.Entry{entry1k(0)})
		if err != nil {
			b.Fatal(err)
		}
		logs = append(logs, l)
	}
	b.StopTimer()
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/float64(b.N), "heap-B/session")
	b.ReportMetric(float64(runtime.NumGoroutine()-g0)/float64(b.N), "goroutines/session")
}

// BenchmarkStoredSessionFootprint: what one stored session that no host
// runs costs the (embedded) server: heap bytes per session, once N
// sessions were created and closed. Run with -benchtime 1000x.
func BenchmarkStoredSessionFootprint(b *testing.B) {
	ctx := context.Background()
	st := testStore(b, testConn(b, testServer(b)), StoreConfig{})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		l, err := st.Create(ctx, benchHeader(i), []session.Entry{entry1k(0)})
		if err != nil {
			b.Fatal(err)
		}
		l.Close()
	}
	b.StopTimer()
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/float64(b.N), "heap-B/session")
}

// BenchmarkLeaseRenew: one lease renewal (a KV update at a revision), the
// steady cost of a running session: 3 per LeaseTTL.
func BenchmarkLeaseRenew(b *testing.B) {
	ctx := context.Background()
	st := testStore(b, testConn(b, testServer(b)), StoreConfig{})
	rev, err := st.leases.Create(ctx, "k", []byte(`{"holder":"h","token":"t"}`))
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if rev, err = st.leases.Update(ctx, "k", []byte(`{"holder":"h","token":"t"}`), rev); err != nil {
			b.Fatal(err)
		}
	}
}

func sessionKey(b *testing.B, st session.Store, id string) string {
	info, err := session.Find(context.Background(), st, id)
	if err != nil {
		b.Fatal(err)
	}
	return info.Key
}
