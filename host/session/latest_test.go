package session

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// listLatest is Latest as it is over List alone: the rule FileStore.Latest
// must keep.
func listLatest(ctx context.Context, s *FileStore) (Info, error) {
	all, err := s.List(ctx)
	if err != nil || len(all) == 0 {
		return Info{}, ErrNotFound
	}
	best := all[0]
	for _, info := range all[1:] {
		if info.Modified.After(best.Modified) {
			best = info
		}
	}
	return best, nil
}

// writeSessionFile writes a session of n user messages at path, modified
// at mod.
func writeSessionFile(t testing.TB, path, id string, n int, mod time.Time) {
	var b strings.Builder
	fmt.Fprintf(&b, `{"type":"session","version":3,"id":%q,"timestamp":"2026-12-01T10:00:00.000Z","cwd":"/p"}`+"\n", id)
	parent := "null"
	for i := range n {
		fmt.Fprintf(&b, `{"type":"message","id":"e%d","parentId":%s,"timestamp":"2026-12-01T10:00:01.000Z","message":{"role":"user","content":"m%d %s","timestamp":1}}`+"\n", i, parent, i, strings.Repeat("x", 200))
		parent = fmt.Sprintf(`"e%d"`, i)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, mod, mod); err != nil {
		t.Fatal(err)
	}
}

// FileStore.Latest, which reads only the newest files, picks what Latest
// over List picks, over generated directories: sessions, files that are
// no session (newer than every session, too), directories named .jsonl,
// equal times. WASMAGENT_LATEST_N sets the number of directories.
func TestLatestByTimesMatchesList(t *testing.T) {
	n := 60
	if v := os.Getenv("WASMAGENT_LATEST_N"); v != "" {
		fmt.Sscan(v, &n)
	}
	ctx := context.Background()
	base := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for seed := range n {
		r := rand.New(rand.NewPCG(uint64(seed), 7))
		dir := t.TempDir()
		for i := range r.IntN(7) {
			mod := base.Add(time.Duration(r.IntN(4)) * time.Second)
			path := filepath.Join(dir, fmt.Sprintf("f%d.jsonl", i))
			switch r.IntN(5) {
			case 0:
				os.WriteFile(path, []byte("not a session\n"), 0o644)
				os.Chtimes(path, mod, mod)
			case 1:
				os.Mkdir(path, 0o755)
			default:
				writeSessionFile(t, path, fmt.Sprintf("id-%d", i), r.IntN(3), mod)
			}
		}
		s := &FileStore{Dir: dir}
		got, gerr := s.Latest(ctx)
		want, werr := listLatest(ctx, s)
		if errors.Is(werr, ErrNotFound) != errors.Is(gerr, ErrNotFound) {
			t.Fatalf("seed %d: Latest %v, over List %v", seed, gerr, werr)
		}
		if werr == nil && !got.Modified.Equal(want.Modified) {
			t.Fatalf("seed %d: Latest %s (%s), over List %s (%s)", seed, got.Path, got.Modified, want.Path, want.Modified)
		}
	}
	if _, err := (&FileStore{Dir: filepath.Join(t.TempDir(), "none")}).Latest(ctx); !errors.Is(err, ErrNotFound) {
		t.Fatalf("no directory: %v", err)
	}
}

// BenchmarkLatest: --continue among 300 sessions, by the files' times
// against reading every session (as before).
func BenchmarkLatest(b *testing.B) {
	dir := b.TempDir()
	base := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for i := range 300 {
		writeSessionFile(b, filepath.Join(dir, fmt.Sprintf("s%03d.jsonl", i)), fmt.Sprintf("id-%d", i), 20, base.Add(time.Duration(i)*time.Second))
	}
	s := &FileStore{Dir: dir}
	ctx := context.Background()
	b.Run("times", func(b *testing.B) {
		for range b.N {
			s.Latest(ctx)
		}
	})
	b.Run("list", func(b *testing.B) {
		for range b.N {
			listLatest(ctx, s)
		}
	})
}

// List reads a file again when its size or time changed, and forgets a
// file removed.
func TestListCacheFollowsFiles(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	base := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	writeSessionFile(t, a, "id-a", 1, base)
	writeSessionFile(t, b, "id-b", 2, base.Add(time.Second))
	s := &FileStore{Dir: dir}
	count := func() map[string]int {
		all, err := s.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]int{}
		for _, info := range all {
			m[info.ID] = info.Messages
		}
		return m
	}
	if got := count(); got["id-a"] != 1 || got["id-b"] != 2 {
		t.Fatalf("first List: %v", got)
	}
	writeSessionFile(t, a, "id-a", 3, base)                    // same time, another size
	writeSessionFile(t, b, "id-b", 2, base.Add(2*time.Second)) // same size, another time
	os.WriteFile(b, []byte(strings.Replace(string(must(os.ReadFile(b))), `"m0 `, `"M0 `, 1)), 0o644)
	os.Chtimes(b, base.Add(3*time.Second), base.Add(3*time.Second))
	if got := count(); got["id-a"] != 3 || got["id-b"] != 2 {
		t.Fatalf("after changes: %v", got)
	}
	all, _ := s.List(ctx)
	for _, info := range all {
		if info.ID == "id-b" && !strings.HasPrefix(info.First, "M0") {
			t.Fatalf("a file rewritten at the same size with a new time: first message %.10q", info.First)
		}
	}
	os.Remove(a)
	if got := count(); len(got) != 1 || got["id-b"] != 2 {
		t.Fatalf("after a removal: %v", got)
	}
	if len(s.infos) != 1 {
		t.Fatalf("the cache keeps %d files, want 1", len(s.infos))
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// BenchmarkListAgain: a second List of 300 unchanged sessions, against
// the first.
func BenchmarkListAgain(b *testing.B) {
	dir := b.TempDir()
	base := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for i := range 300 {
		writeSessionFile(b, filepath.Join(dir, fmt.Sprintf("s%03d.jsonl", i)), fmt.Sprintf("id-%d", i), 20, base.Add(time.Duration(i)*time.Second))
	}
	ctx := context.Background()
	b.Run("again", func(b *testing.B) {
		s := &FileStore{Dir: dir}
		s.List(ctx)
		for range b.N {
			s.List(ctx)
		}
	})
	b.Run("first", func(b *testing.B) {
		for range b.N {
			(&FileStore{Dir: dir, NoListCache: true}).List(ctx)
		}
	})
}
