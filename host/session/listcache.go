package session

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/wasmagent/wasmagent/internal/atomicfile"
)

// listCacheName is the file, in a store's directory, that keeps what List
// read of each session, so that the next process's List (each `wasmagent
// sessions ls`, each `--session ID`) reads again only the sessions that
// changed. Its name does not end in .jsonl: pi, and List, pass it over.
const listCacheName = ".wasmagent-list-cache"

// maxListCache bounds the cache file read: a larger one is ignored.
const maxListCache = 64 << 20

// racyWindow: a session modified this shortly before it was read is not
// kept on disk, since a second change within the file system's time
// granularity, of the same size, would leave the size and time that key
// the entry unchanged (as git's "racily clean" entries).
const racyWindow = 2 * time.Second

type listCacheFile struct {
	Version int                       `json:"version"`
	Files   map[string]listCacheEntry `json:"files"` // by file name
}

type listCacheEntry struct {
	Size     int64     `json:"size"`
	Mod      int64     `json:"mod"` // Unix nanoseconds
	OK       bool      `json:"ok"`  // false: the file is no session
	ID       string    `json:"id,omitempty"`
	Cwd      string    `json:"cwd,omitempty"`
	Name     string    `json:"name,omitempty"`
	Created  time.Time `json:"created"`
	Messages int       `json:"messages,omitempty"`
	First    string    `json:"first,omitempty"`
}

// loadListCacheLocked fills s.infos, the first time, from the cache file
// of s.Dir. A missing, unreadable or damaged file is no cache; each entry
// still holds only while its file keeps the size and time it had.
func (s *FileStore) loadListCacheLocked() {
	if s.infos != nil {
		return
	}
	s.infos = map[string]cachedInfo{}
	if s.NoListCache {
		return
	}
	f, err := os.Open(filepath.Join(s.Dir, listCacheName))
	if err != nil {
		return
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxListCache+1))
	var c listCacheFile
	if err != nil || len(data) > maxListCache || json.Unmarshal(data, &c) != nil || c.Version != 1 {
		return
	}
	for name, e := range c.Files {
		if filepath.Base(name) != name || !strings.HasSuffix(name, ".jsonl") || len(e.First)+len(e.Name) > maxCachedText {
			continue
		}
		path := filepath.Join(s.Dir, name)
		mod := time.Unix(0, e.Mod)
		info := Info{}
		if e.OK {
			info = Info{Key: path, ID: e.ID, Path: path, Cwd: e.Cwd, Name: e.Name, Created: e.Created, Modified: mod, Messages: e.Messages, First: e.First}
		}
		s.infos[path] = cachedInfo{size: e.Size, mod: mod, info: info, ok: e.OK, saved: true}
	}
}

// saveListCache writes the cache file of s.Dir when List read a session
// since it was last written. Failing to write it (a read-only directory)
// costs the next process the reads, nothing else.
func (s *FileStore) saveListCache() {
	if s.NoListCache {
		return
	}
	s.mu.Lock()
	if !s.unsaved {
		s.mu.Unlock()
		return
	}
	s.unsaved = false
	c := listCacheFile{Version: 1, Files: make(map[string]listCacheEntry, len(s.infos))}
	for path, ci := range s.infos {
		if filepath.Dir(path) != filepath.Clean(s.Dir) || (!ci.saved && ci.read.Sub(ci.mod) < racyWindow) {
			continue
		}
		e := listCacheEntry{Size: ci.size, Mod: ci.mod.UnixNano(), OK: ci.ok}
		if ci.ok {
			e.ID, e.Cwd, e.Name, e.Created, e.Messages, e.First = ci.info.ID, ci.info.Cwd, ci.info.Name, ci.info.Created, ci.info.Messages, ci.info.First
		}
		c.Files[filepath.Base(path)] = e
	}
	s.mu.Unlock()
	if data, err := json.Marshal(c); err == nil {
		atomicfile.Write(filepath.Join(s.Dir, listCacheName), data)
	}
}
