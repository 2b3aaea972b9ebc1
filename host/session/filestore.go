package session

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/wasmagent/wasmagent/host"
)

// FileStore keeps the sessions of one working directory as JSONL files
// in pi's format, one file per session, in Dir. Keys are the files'
// absolute paths.
type FileStore struct {
	Dir string
	// NoSync skips fsync after each append. Appends survive the death of
	// the process either way; fsync makes them survive the machine's.
	NoSync bool

	// NoListCache keeps what List read in memory only, not in Dir's
	// list cache file (listCacheName).
	NoListCache bool

	// infos caches what List read of each file, by path, while the file
	// keeps its size and modification time: a second List (a server's
	// GET /v1/sessions, a chat's /resume) reads only the files that
	// changed. It starts from Dir's list cache file, so that the next
	// process's List does too.
	mu      sync.Mutex
	infos   map[string]cachedInfo
	unsaved bool // infos holds a read the list cache file lacks
}

type cachedInfo struct {
	size  int64
	mod   time.Time
	info  Info
	ok    bool
	read  time.Time // when the file was read
	saved bool      // from the list cache file
}

var (
	_ Store   = (*FileStore)(nil)
	_ Locator = (*FileStore)(nil)
	_ Log     = (*fileLog)(nil)
)

// DirFor returns the directory of cwd's sessions under root, named as pi
// names it: "--" + the path with separators as "-" + "--".
func DirFor(root, cwd string) string {
	safe := strings.NewReplacer("/", "-", `\`, "-", ":", "-").Replace(strings.TrimLeft(cwd, `/\`))
	return filepath.Join(root, "--"+safe+"--")
}

// DefaultRoot is where sessions go when agent.toml does not say:
// $XDG_STATE_HOME/wasmagent/sessions, else ~/.local/state/wasmagent/sessions.
func DefaultRoot() (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "wasmagent", "sessions"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("sessions: no state directory (set XDG_STATE_HOME or [sessions] dir): %w", err)
	}
	return filepath.Join(home, ".local", "state", "wasmagent", "sessions"), nil
}

// List implements Store: the sessions in Dir, newest first.
func (s *FileStore) List(ctx context.Context) ([]Info, error) {
	return s.list(ctx, func(string) bool { return true })
}

// Matching implements Matcher: a file is read whole only when its header
// line (or what List read of it before) names an id that begins with
// prefix.
func (s *FileStore) Matching(ctx context.Context, prefix string) ([]Info, error) {
	return s.list(ctx, func(path string) bool {
		id, known := s.headerID(path)
		return !known || strings.HasPrefix(id, prefix)
	})
}

// list is List over the files for which want holds.
func (s *FileStore) list(ctx context.Context, want func(path string) bool) ([]Info, error) {
	names, err := os.ReadDir(s.Dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("sessions: %w", err)
	}
	var out []Info
	seen := map[string]bool{}
	for _, n := range names {
		if n.IsDir() || !strings.HasSuffix(n.Name(), ".jsonl") {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		path := filepath.Join(s.Dir, n.Name())
		seen[path] = true
		if !want(path) {
			continue
		}
		if info, ok := s.info(path); ok {
			out = append(out, info)
		}
	}
	s.mu.Lock()
	for path := range s.infos {
		if !seen[path] {
			delete(s.infos, path) // removed: forget it
			s.unsaved = true
		}
	}
	s.mu.Unlock()
	s.saveListCache()
	// Stable, so that sessions of one time keep the directory's order
	// whichever subset is listed.
	slices.SortStableFunc(out, func(a, b Info) int { return b.Modified.Compare(a.Modified) })
	return out, nil
}

// headerID is the id of the session in path as its header line says it
// (or the cache, while the file is unchanged), reading that line only.
// known is false when that cannot be told without reading the file whole
// (a header line longer than maxHeader, a read error); a file that is no
// session has the id "".
func (s *FileStore) headerID(path string) (id string, known bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", false
	}
	s.mu.Lock()
	s.loadListCacheLocked()
	c, hit := s.infos[path]
	s.mu.Unlock()
	if hit && c.size == st.Size() && c.mod.Equal(st.ModTime()) {
		return c.info.ID, true // "" when it is no session
	}
	r := bufio.NewReader(io.LimitReader(f, maxHeader))
	for {
		line, err := r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			line, err = readLine(r, line)
		}
		if err != nil {
			// The end of a file within the limit, before a whole line:
			// no session. The limit's end, or a failed read: unknown.
			return "", err == io.EOF && st.Size() <= maxHeader
		}
		if line = bytes.TrimSpace(line); len(line) == 0 {
			continue
		}
		h, err := decodeHeader(line)
		if err != nil {
			return "", true
		}
		return h.ID, true
	}
}

// Latest implements Latester: the session file modified last, found by
// the files' times and read alone (--continue among thousands of sessions
// reads one file, not all). A newest file that is no session is passed
// over, as List passes it over.
func (s *FileStore) Latest(ctx context.Context) (Info, error) {
	names, err := os.ReadDir(s.Dir)
	if os.IsNotExist(err) {
		return Info{}, ErrNotFound
	}
	if err != nil {
		return Info{}, fmt.Errorf("sessions: %w", err)
	}
	type cand struct {
		path string
		mod  time.Time
	}
	var cands []cand
	for _, n := range names {
		if n.IsDir() || !strings.HasSuffix(n.Name(), ".jsonl") {
			continue
		}
		if st, err := n.Info(); err == nil {
			cands = append(cands, cand{filepath.Join(s.Dir, n.Name()), st.ModTime()})
		}
	}
	slices.SortStableFunc(cands, func(a, b cand) int { return b.mod.Compare(a.mod) })
	var best Info
	found := false
	for _, c := range cands {
		if found && c.mod.Before(best.Modified) {
			break // every file left is older than the one found
		}
		if err := ctx.Err(); err != nil {
			return Info{}, err
		}
		if info, ok := s.info(c.path); ok && (!found || info.Modified.After(best.Modified)) {
			best, found = info, true
		}
	}
	if !found {
		return Info{}, ErrNotFound
	}
	return best, nil
}

// Locate implements Locator: ref names a file when it holds a path
// separator or ends in .jsonl. Such a ref is a session only if the file
// begins with a session header: any other file is an error, so that no
// command acts on a file that is not a session.
func (s *FileStore) Locate(ref string) (Info, bool, error) {
	if !strings.ContainsAny(ref, `/\`) && !strings.HasSuffix(ref, ".jsonl") {
		return Info{}, false, nil
	}
	abs, err := filepath.Abs(ref)
	if err != nil {
		return Info{}, true, fmt.Errorf("session %s: %w", ref, err)
	}
	if err := checkHeader(abs); err != nil {
		return Info{}, true, err
	}
	info, ok := s.info(abs)
	if !ok {
		return Info{}, true, fmt.Errorf("%s is not a session file", abs)
	}
	return info, true, nil
}

// maxHeader bounds the header line checkHeader reads.
const maxHeader = 1 << 20

// checkHeader says whether path is a regular file whose first non-blank
// line is a session header of pi's format, reading only that line.
func checkHeader(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("session: %w", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a session file (not a regular file)", path)
	}
	r := bufio.NewReader(io.LimitReader(f, maxHeader))
	for {
		line, err := r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			line, err = readLine(r, line)
		}
		if err != nil {
			return fmt.Errorf("%s is not a session file (no session header line)", path)
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if _, err := decodeHeader(line); err != nil {
			if errors.Is(err, ErrNotSession) {
				return fmt.Errorf("%s is not a session file (its first line is not a session header)", path)
			}
			return fmt.Errorf("session %s: %w", path, err)
		}
		return nil
	}
}

// readLine finishes a line longer than r's buffer.
func readLine(r *bufio.Reader, head []byte) ([]byte, error) {
	line := slices.Clone(head)
	for {
		more, err := r.ReadSlice('\n')
		line = append(line, more...)
		if err != bufio.ErrBufferFull {
			return line, err
		}
	}
}

// info describes the session in path, from the cache while the file
// keeps the size and time it had when it was read.
func (s *FileStore) info(path string) (Info, bool) {
	st, err := os.Stat(path)
	if err != nil {
		return Info{}, false
	}
	s.mu.Lock()
	s.loadListCacheLocked()
	c, hit := s.infos[path]
	s.mu.Unlock()
	if hit && c.size == st.Size() && c.mod.Equal(st.ModTime()) {
		return c.info, c.ok
	}
	read := time.Now()
	info, ok, err := readInfo(path, st.ModTime())
	if err != nil {
		return Info{}, false // not kept: the next List reads it again
	}
	s.mu.Lock()
	if len(info.First)+len(info.Name) <= maxCachedText {
		s.infos[path] = cachedInfo{size: st.Size(), mod: st.ModTime(), info: info, ok: ok, read: read}
		// A racy entry is not written (saveListCache), so it does not
		// call for a write: a session being written to, re-read at each
		// listing, does not rewrite the cache file each time.
		s.unsaved = s.unsaved || read.Sub(st.ModTime()) >= racyWindow
	} else {
		delete(s.infos, path) // a huge first prompt is read again, not kept
	}
	s.mu.Unlock()
	return info, ok
}

// maxCachedText bounds the text an Info the cache keeps may hold, so
// that the cache's memory is bounded by the number of sessions.
const maxCachedText = 64 << 10

// readInfo reads and decodes the session in path, modified at mod: ok
// is false when it is no session, err set when it could not be read.
func readInfo(path string, mod time.Time) (info Info, ok bool, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Info{}, false, err
	}
	t, err := Decode(data)
	if err != nil {
		return Info{}, false, nil
	}
	info = Info{Key: path, ID: t.Header.ID, Path: path, Cwd: t.Header.Cwd, Name: t.Name(), Modified: mod}
	info.Created, _ = parseTime(t.Header.Timestamp)
	for _, e := range t.Entries {
		if e.Type != TypeMessage {
			continue
		}
		info.Messages++
		if u, ok := e.Message.(*host.UserMessage); ok && info.First == "" {
			info.First = u.Content.TextOf()
		}
	}
	return info, true, nil
}

// Load implements Store.
func (s *FileStore) Load(_ context.Context, key string) (*Transcript, error) {
	data, err := os.ReadFile(key)
	if err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	t, err := Decode(data)
	if err != nil {
		return nil, fmt.Errorf("session %s: %w", key, err)
	}
	return t, nil
}

// Open implements Store. It cuts a torn last line off the file, and
// rewrites a file of an older format version in version 3, before any
// append.
func (s *FileStore) Open(_ context.Context, key string) (Log, *Transcript, error) {
	if err := checkHeader(key); err != nil {
		return nil, nil, err
	}
	lock, err := lockFile(key+".lock", key)
	if err != nil {
		return nil, nil, err
	}
	l, t, err := s.open(key)
	if err != nil {
		lock.unlock()
		return nil, nil, err
	}
	l.lock = lock
	return l, t, nil
}

func (s *FileStore) open(key string) (*fileLog, *Transcript, error) {
	f, err := os.OpenFile(key, os.O_RDWR, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("session: %w", err)
	}
	data, err := readAll(f)
	if err == nil {
		var t *Transcript
		if t, err = Decode(data); err == nil {
			if t.olderVersion && t.dropped > 0 {
				err = fmt.Errorf("%w: the file is of an older format version and %d of its lines do not decode; upgrading it would lose them, and appending to it in its old format would break it, so it is kept as it is (read it with `wasmagent sessions show`, or continue a copy with --fork)", ErrOldFormat, t.dropped)
			}
			if err == nil && t.Complete < int64(len(data)) {
				err = f.Truncate(t.Complete)
			}
			if err == nil && t.olderVersion {
				f, err = upgrade(f, t)
			}
			if err == nil {
				if _, err = f.Seek(0, io.SeekEnd); err == nil {
					return &fileLog{f: f, sync: !s.NoSync}, t, nil
				}
			}
		}
	}
	f.Close()
	return nil, nil, fmt.Errorf("session %s: %w", key, err)
}

// ErrOldFormat refuses to write a session of an older format version that
// cannot be upgraded without loss.
var ErrOldFormat = errors.New("session not opened for writing")

func readAll(f *os.File) ([]byte, error) {
	var b bytes.Buffer
	_, err := b.ReadFrom(f)
	return b.Bytes(), err
}

// upgrade replaces f's file by t in the current version (pi migrates on
// load the same way), crash-safely: a new file is written beside it and
// fsynced, renamed over it, and the directory fsynced, so a crash leaves
// either the old file or the new one. It returns the new file, open; f
// is closed.
func upgrade(f *os.File, t *Transcript) (*os.File, error) {
	data, err := encode(t.Header, t.Entries)
	if err != nil {
		return f, err
	}
	path := f.Name()
	st, err := f.Stat()
	if err != nil {
		return f, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".upgrade-*")
	if err != nil {
		return f, err
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(st.Mode().Perm())
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return f, err
	}
	if err := syncDir(filepath.Dir(path)); err != nil {
		return f, err
	}
	nf, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return f, err
	}
	f.Close()
	t.olderVersion = false
	return nf, nil
}

// syncDir makes a rename in dir durable. Windows cannot fsync a
// directory; there the rename is as durable as NTFS makes it.
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// Create implements Store: a new file named as pi names them,
// <time>_<id>.jsonl.
func (s *FileStore) Create(_ context.Context, h Header, entries []Entry) (Log, error) {
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("sessions: %w", err)
	}
	path := s.PathFor(h)
	lock, err := lockFile(path+".lock", h.ID)
	if err != nil {
		return nil, err
	}
	data, err := encode(h, entries)
	if err != nil {
		lock.unlock()
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		lock.unlock()
		return nil, fmt.Errorf("session: %w", err)
	}
	l := &fileLog{f: f, lock: lock, sync: !s.NoSync}
	if err := l.write(data); err != nil {
		l.Close()
		os.Remove(path)
		return nil, err
	}
	return l, nil
}

// PathFor returns the file Create makes for a session with header h (pi
// too names a new session's file before it writes it).
func (s *FileStore) PathFor(h Header) string {
	name := strings.NewReplacer(":", "-", ".", "-").Replace(h.Timestamp) + "_" + h.ID + ".jsonl"
	return filepath.Join(s.Dir, name)
}

// Path returns the file a Log created by this store writes, or "".
func Path(l Log) string {
	if fl, ok := l.(*fileLog); ok {
		return fl.f.Name()
	}
	return ""
}

// Remove implements Store. A session in use is not removed, nor a file
// that does not begin with a session header.
func (s *FileStore) Remove(_ context.Context, key string) error {
	if err := checkHeader(key); err != nil {
		return err
	}
	lock, err := lockFile(key+".lock", key)
	if err != nil {
		return err
	}
	defer lock.unlock()
	if err := checkHeader(key); err != nil {
		return err
	}
	if err := os.Remove(key); err != nil {
		return fmt.Errorf("session: %w", err)
	}
	return nil
}

func encode(h Header, entries []Entry) ([]byte, error) { return EncodeLines(&h, entries) }

// EncodeLines is the JSONL a session file holds for h (nil: none, as for
// entries appended later) and entries, one line each, in the bytes pi's
// JSON.stringify writes (host.MarshalJS); every store writes these
// bytes, so a session reads the same from any of them.
func EncodeLines(h *Header, entries []Entry) ([]byte, error) {
	var b bytes.Buffer
	if h != nil {
		hh := *h
		hh.Type, hh.Version = TypeSession, Version
		line, err := host.MarshalJS(hh)
		if err != nil {
			return nil, err
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	for _, e := range entries {
		line, err := host.MarshalJS(e)
		if err != nil {
			return nil, fmt.Errorf("session: %w", err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.Bytes(), nil
}

type fileLog struct {
	mu     sync.Mutex
	f      *os.File
	lock   *fileLock
	sync   bool
	broken error // set when a failed append could not be cut off

	writeHook func([]byte) (int, error) // tests: replaces f.Write
}

// Append implements Log: the entries as lines, in one write.
func (l *fileLog) Append(_ context.Context, entries ...Entry) error {
	data, err := EncodeLines(nil, entries)
	if err != nil {
		return err
	}
	return l.write(data)
}

// write appends data in one write. A failed or short write, or a failed
// fsync, is cut off again, so that the next append never follows a
// partial line; when even that fails the log refuses every later append.
func (l *fileLog) write(data []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return fmt.Errorf("session: log closed")
	}
	if l.broken != nil {
		return l.broken
	}
	off, err := l.f.Seek(0, io.SeekEnd)
	if err != nil {
		return fmt.Errorf("session: %w", err)
	}
	writeFn := l.f.Write
	if l.writeHook != nil {
		writeFn = l.writeHook
	}
	n, err := writeFn(data)
	if err == nil && n < len(data) {
		err = io.ErrShortWrite
	}
	if err == nil && l.sync {
		err = l.f.Sync()
	}
	if err == nil {
		return nil
	}
	err = fmt.Errorf("session %s: append failed, nothing was kept: %w", l.f.Name(), err)
	if terr := l.f.Truncate(off); terr != nil {
		l.broken = fmt.Errorf("session %s: an append failed and could not be cut off (%v); no more appends", l.f.Name(), terr)
		return fmt.Errorf("%w; and cutting it off failed: %v", err, terr)
	}
	return err
}

// Close implements Log: it releases the session.
func (l *fileLog) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	if l.lock != nil {
		l.lock.unlock()
	}
	return err
}
