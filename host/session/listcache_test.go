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

// fullList is List reading every session file whole, with no cache: what
// the list must always equal.
func fullList(t *testing.T, dir string) []Info {
	t.Helper()
	all, err := (&FileStore{Dir: dir, NoListCache: true}).List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return all
}

// mutate changes a generated directory as use does: messages and names
// appended, files removed, added, rewritten (at the same size, too),
// the list cache file damaged; every change at a new time (older than
// racyWindow, as a session not touched this second is).
func mutate(t *testing.T, r *rand.Rand, dir string, round int) {
	names, _ := os.ReadDir(dir)
	mod := time.Date(2026, 12, 1, 11, round, 0, 0, time.UTC)
	for i, n := range names {
		path := filepath.Join(dir, n.Name())
		if n.Name() == listCacheName {
			if r.IntN(4) == 0 {
				os.WriteFile(path, []byte(`{"version":1,"files":{"x.jsonl":`), 0o600)
			}
			continue
		}
		if n.IsDir() || !strings.HasSuffix(n.Name(), ".jsonl") {
			continue
		}
		mod := mod.Add(time.Duration(i) * time.Second)
		switch r.IntN(6) {
		case 0:
			f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
			fmt.Fprintf(f, `{"type":"message","id":"x%d","parentId":null,"timestamp":"2026-12-01T11:00:00.000Z","message":{"role":"user","content":"more %d","timestamp":2}}`+"\n", round, round)
			f.Close()
		case 1:
			f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
			fmt.Fprintf(f, `{"type":"session_info","id":"y%d","parentId":null,"timestamp":"2026-12-01T11:00:00.000Z","name":"renamed %d"}`+"\n", round, round)
			f.Close()
		case 2:
			os.Remove(path)
			continue
		case 3:
			// The same size, another content: a first message changed.
			data, _ := os.ReadFile(path)
			os.WriteFile(path, []byte(strings.Replace(string(data), `"m0 `, `"M0 `, 1)), 0o644)
		case 4:
			writeSessionFile(t, filepath.Join(dir, fmt.Sprintf("new%d-%d.jsonl", round, i)), fmt.Sprintf("new-%d-%d", round, i), r.IntN(3), mod)
		default:
			continue
		}
		os.Chtimes(path, mod, mod)
	}
}

// List through the list cache file — a fresh store, as each `sessions
// ls` is, after another wrote it — equals reading every file whole, over
// generated directories and generated changes to them (sessions with
// shared and repeated ids, names, equal times, files that are no
// session, a damaged cache file). WASMAGENT_LISTCACHE_N sets the number
// of directories.
func TestListCacheMatchesFullRead(t *testing.T) {
	n := 60
	if v := os.Getenv("WASMAGENT_LISTCACHE_N"); v != "" {
		fmt.Sscan(v, &n)
	}
	ctx := context.Background()
	for seed := range n {
		r := rand.New(rand.NewPCG(uint64(seed), 13))
		dir := t.TempDir()
		genDir(t, r, dir)
		for round := range 4 {
			want := fullList(t, dir)
			for pass := range 2 { // the first may write the cache; the second reads it
				got, err := (&FileStore{Dir: dir}).List(ctx)
				if err != nil || !reflect.DeepEqual(got, want) {
					t.Fatalf("seed %d, round %d, pass %d: %v\n got %+v\nwant %+v", seed, round, pass, err, got, want)
				}
			}
			mutate(t, r, dir, round)
		}
	}
}

// A fresh store lists unchanged sessions from the cache file without
// reading them: a file given other bytes at the same size and time is
// listed as it was (the files' size and time key the cache, as they do
// within a process). On the old main every process read every file.
func TestListCacheSparesReads(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	base := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	path := filepath.Join(dir, "a.jsonl")
	writeSessionFile(t, path, "id-a", 2, base)
	if _, err := (&FileStore{Dir: dir}).List(ctx); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	os.WriteFile(path, []byte(strings.Replace(string(data), `"m0 `, `"Z0 `, 1)), 0o644)
	os.Chtimes(path, base, base)
	all, err := (&FileStore{Dir: dir}).List(ctx)
	if err != nil || len(all) != 1 || !strings.HasPrefix(all[0].First, "m0 ") {
		t.Fatalf("a fresh store read the file again: %+v %v", all, err)
	}
	// A session modified within racyWindow of its reading is not kept.
	now := time.Now()
	os.Chtimes(path, now, now)
	(&FileStore{Dir: dir}).List(ctx)
	os.WriteFile(path, []byte(strings.Replace(string(data), `"m0 `, `"Y0 `, 1)), 0o644)
	os.Chtimes(path, now, now)
	all, _ = (&FileStore{Dir: dir}).List(ctx)
	if len(all) != 1 || !strings.HasPrefix(all[0].First, "Y0 ") {
		t.Fatalf("an entry read within the racy window was kept: %.10q", all[0].First)
	}
}

// Find among many sessions reads whole only those whose header names an
// id with the prefix (on the old main it read every session).
func TestFindReadsMatchesOnly(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	base := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for i := range 40 {
		writeSessionFile(t, filepath.Join(dir, fmt.Sprintf("s%02d.jsonl", i)), fmt.Sprintf("%c%02d", 'a'+i%4, i), 3, base)
	}
	s := &FileStore{Dir: dir, NoListCache: true}
	info, err := Find(ctx, s, "b05")
	if err != nil || info.ID != "b05" {
		t.Fatalf("%+v %v", info, err)
	}
	if len(s.infos) != 1 {
		t.Fatalf("Find read %d sessions whole, want 1", len(s.infos))
	}
	if _, err := Find(ctx, s, "c"); err == nil || !strings.Contains(err.Error(), "ambiguous") {
		t.Fatalf("prefix c: %v", err)
	}
	if len(s.infos) != 11 {
		t.Fatalf("Find read %d sessions whole, want the 11 of b05 and c", len(s.infos))
	}
}

// FuzzListCacheFile: no cache file makes List fail or panic, and an
// entry is used only for a file of its name, size and time (here: none
// matches, so List is the full read). The seeds hold entries of the
// directory's file at another size and another time.
func FuzzListCacheFile(f *testing.F) {
	f.Add([]byte(`{"version":1,"files":{"a.jsonl":{"size":1,"mod":0,"ok":true,"id":"forged","messages":9}}}`))
	f.Add([]byte(`{"version":1,"files":{"../a.jsonl":{"ok":true},"a.jsonl":{"size":-1,"mod":-1,"created":"x"}}}`))
	f.Add([]byte(`{"version":2}`))
	f.Add([]byte(`[`))
	dir := f.TempDir()
	writeSessionFile(f, filepath.Join(dir, "a.jsonl"), "id-a", 2, time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	want, _ := (&FileStore{Dir: dir, NoListCache: true}).List(context.Background())
	st, _ := os.Stat(filepath.Join(dir, "a.jsonl"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if strings.Contains(string(data), fmt.Sprint(st.ModTime().UnixNano())) {
			return // an entry that may match the file: it would be believed
		}
		os.WriteFile(filepath.Join(dir, listCacheName), data, 0o600)
		got, err := (&FileStore{Dir: dir}).List(context.Background())
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%v\n got %+v\nwant %+v", err, got, want)
		}
	})
}
