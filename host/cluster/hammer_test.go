package cluster

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/host/session"
)

// Three hosts contend for one session for a few seconds: each opens it
// when free, appends a few entries, then closes it or pauses past its
// lease and tries to append again. Whatever the interleaving, the log
// holds exactly the entries whose Append succeeded, and each entry's
// parent is the entry before it: no host ever wrote after another had
// taken over.
func TestHammerOneWriter(t *testing.T) {
	// Its own server: it runs beside the others, which mostly wait
	// (RATIONALE.md, "Why is make test shaped this way?").
	t.Parallel()
	if testing.Short() {
		t.Skip("runs for seconds")
	}
	c := testConn(t, testServer(t))
	const hostsN = 3
	stores := make([]*Store, hostsN)
	for i := range stores {
		stores[i] = testStore(t, c, StoreConfig{Prefix: "hammer", Holder: fmt.Sprintf("host-%d", i), LeaseTTL: time.Second})
	}
	ctx := context.Background()
	l, err := stores[0].Create(ctx, header("h"), []session.Entry{userEntry("root", "", "root")})
	if err != nil {
		t.Fatal(err)
	}
	l.Close()

	var mu sync.Mutex
	acked := map[string]bool{"root": true}
	var fenced int
	stop := time.Now().Add(6 * time.Second)
	var wg sync.WaitGroup
	for i, st := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(i), 7))
			n := 0
			for time.Now().Before(stop) {
				l, tr, err := st.Open(ctx, "h")
				var le *session.LockedError
				if errors.As(err, &le) {
					time.Sleep(time.Duration(r.IntN(50)) * time.Millisecond)
					continue
				}
				if err != nil {
					t.Error(err)
					return
				}
				parent := tr.Leaf()
				appendSome := func() bool {
					for j := 0; j < 1+r.IntN(4); j++ {
						n++
						id := fmt.Sprintf("h%d-%d", i, n)
						err := l.Append(ctx, userEntry(id, parent, id))
						if err != nil {
							var fe *FencedError
							if !errors.As(err, &fe) {
								t.Errorf("append: %v", err)
							}
							mu.Lock()
							fenced++
							mu.Unlock()
							return false
						}
						mu.Lock()
						acked[id] = true
						mu.Unlock()
						parent = id
					}
					return true
				}
				if appendSome() && r.IntN(3) == 0 {
					l.(*Log).lease.stopRenewing() // pause past the lease
					time.Sleep(2500 * time.Millisecond)
					appendSome()
				}
				l.Close()
			}
		}()
	}
	wg.Wait()
	tr, err := stores[0].Load(ctx, "h")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for k, e := range tr.Entries {
		if seen[e.ID] {
			t.Fatalf("entry %s twice", e.ID)
		}
		seen[e.ID] = true
		if !acked[e.ID] {
			t.Fatalf("entry %s is in the log but its append failed", e.ID)
		}
		if k > 0 && e.ParentID != tr.Entries[k-1].ID {
			t.Fatalf("entry %s hangs from %s, not from the entry before it (%s): two writers", e.ID, e.ParentID, tr.Entries[k-1].ID)
		}
	}
	if len(seen) != len(acked) {
		t.Fatalf("%d entries acknowledged, %d in the log", len(acked), len(seen))
	}
	if fenced == 0 {
		t.Fatal("no paused host was ever fenced: the test did not test fencing")
	}
	t.Logf("%d entries, %d appends fenced", len(seen), fenced)
}
