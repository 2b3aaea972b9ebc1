package session

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// listOnly hides a store's optional interfaces: Find over it reads every
// session (List), as it did before Matcher.
type listOnly struct{ Store }

// genDir fills dir with a generated set of files: sessions whose ids
// share prefixes (and now and then repeat, as a copied file's do), with
// names and equal or distinct times, beside files that are no session
// (text, a torn header, a header of a newer version, a header after
// blank lines, a directory named .jsonl). It returns the ids written.
func genDir(t testing.TB, r *rand.Rand, dir string) []string {
	base := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	var ids []string
	header := func(id string) string {
		return fmt.Sprintf(`{"type":"session","version":3,"id":%q,"timestamp":"2026-12-01T10:00:00.000Z","cwd":"/p"}`, id)
	}
	for i := range 1 + r.IntN(12) {
		mod := base.Add(time.Duration(r.IntN(5)) * time.Second)
		path := filepath.Join(dir, fmt.Sprintf("f%02d.jsonl", i))
		id := ""
		for range 1 + r.IntN(4) {
			id += string("ab-1"[r.IntN(4)])
		}
		if len(ids) > 0 && r.IntN(6) == 0 {
			id = ids[r.IntN(len(ids))]
		}
		var data string
		switch r.IntN(11) {
		case 0:
			data = "not a session\n"
		case 1:
			data = header(id) // torn: no newline
		case 2:
			data = strings.Replace(header(id), `"version":3`, `"version":9`, 1) + "\n"
		case 3:
			os.Mkdir(path, 0o755)
			continue
		case 4:
			data = "\n  \r\n" + header(id) + "\r\n"
			ids = append(ids, id)
		default:
			writeSessionFile(t, path, id, r.IntN(3), mod)
			if r.IntN(3) == 0 {
				f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
				fmt.Fprintf(f, `{"type":"session_info","id":"n%d","parentId":null,"timestamp":"2026-12-01T10:00:02.000Z","name":"name %d"}`+"\n", i, i)
				f.Close()
				os.Chtimes(path, mod, mod)
			}
			ids = append(ids, id)
			continue
		}
		os.WriteFile(path, []byte(data), 0o644)
		os.Chtimes(path, mod, mod)
	}
	return ids
}

// Find through Matcher (reading the header lines of the sessions that do
// not match) gives what Find over List gives — the session, the
// ambiguity (its ids in the same order) or no session — for every id,
// every prefix of one and refs that match nothing, over generated
// directories, with the cache cold, warm, and from the list cache file. WASMAGENT_FIND_N sets the
// number of directories.
func TestFindByHeadersMatchesList(t *testing.T) {
	n := 100
	if v := os.Getenv("WASMAGENT_FIND_N"); v != "" {
		fmt.Sscan(v, &n)
	}
	ctx := context.Background()
	for seed := range n {
		r := rand.New(rand.NewPCG(uint64(seed), 11))
		dir := t.TempDir()
		ids := genDir(t, r, dir)
		refs := []string{"zz", "1-", "b"}
		for _, id := range ids {
			for i := 1; i <= len(id); i++ {
				refs = append(refs, id[:i])
			}
		}
		warm := &FileStore{Dir: dir, NoListCache: true}
		warm.List(ctx)
		full := listOnly{&FileStore{Dir: dir, NoListCache: true}} // its cache only spares reading again
		for _, ref := range refs {
			want, werr := Find(ctx, full, ref)
			for name, s := range map[string]*FileStore{"cold": {Dir: dir, NoListCache: true}, "warm": warm, "cache file": {Dir: dir}} {
				got, gerr := Find(ctx, s, ref)
				if fmt.Sprint(gerr) != fmt.Sprint(werr) || !reflect.DeepEqual(got, want) {
					t.Fatalf("seed %d, %s cache, ref %q:\n got %+v, %v\nwant %+v, %v", seed, name, ref, got, gerr, want, werr)
				}
			}
		}
	}
}

// A header line longer than what headerID reads is read whole: the
// session is found all the same.
func TestFindLongHeader(t *testing.T) {
	dir := t.TempDir()
	line := fmt.Sprintf(`{"type":"session","version":3,"id":"long-1","timestamp":"2026-12-01T10:00:00.000Z","cwd":"/%s"}`, strings.Repeat("p", maxHeader))
	os.WriteFile(filepath.Join(dir, "a.jsonl"), []byte(line+"\n"), 0o644)
	writeSessionFile(t, filepath.Join(dir, "b.jsonl"), "long-2", 1, time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	s := &FileStore{Dir: dir, NoListCache: true}
	if info, err := Find(context.Background(), s, "long-1"); err != nil || info.ID != "long-1" {
		t.Fatalf("%+v %v", info, err)
	}
	if _, err := Find(context.Background(), s, "long"); err == nil || !strings.Contains(err.Error(), "ambiguous") {
		t.Fatalf("prefix long: %v", err)
	}
}
