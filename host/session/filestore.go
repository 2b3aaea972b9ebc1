package session

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

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
	names, err := os.ReadDir(s.Dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("sessions: %w", err)
	}
	var out []Info
	for _, n := range names {
		if n.IsDir() || !strings.HasSuffix(n.Name(), ".jsonl") {
			continue
		}
		if info, ok := s.info(filepath.Join(s.Dir, n.Name())); ok {
			out = append(out, info)
		}
	}
	slices.SortFunc(out, func(a, b Info) int { return b.Modified.Compare(a.Modified) })
	return out, nil
}

// Locate implements Locator: ref names a file when it holds a path
// separator or ends in .jsonl.
func (s *FileStore) Locate(ref string) (Info, bool) {
	if !strings.ContainsAny(ref, `/\`) && !strings.HasSuffix(ref, ".jsonl") {
		return Info{}, false
	}
	abs, err := filepath.Abs(ref)
	if err != nil {
		return Info{}, false
	}
	info, ok := s.info(abs)
	if !ok {
		info = Info{Key: abs, Path: abs}
	}
	return info, true
}

func (s *FileStore) info(path string) (Info, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Info{}, false
	}
	t, err := Decode(data)
	if err != nil {
		return Info{}, false
	}
	info := Info{Key: path, ID: t.Header.ID, Path: path, Cwd: t.Header.Cwd, Name: t.Name()}
	info.Created, _ = parseTime(t.Header.Timestamp)
	if st, err := os.Stat(path); err == nil {
		info.Modified = st.ModTime()
	}
	for _, e := range t.Entries {
		if e.Type != TypeMessage {
			continue
		}
		info.Messages++
		if u, ok := e.Message.(*host.UserMessage); ok && info.First == "" {
			info.First = u.Content.TextOf()
		}
	}
	return info, true
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
			if t.Complete < int64(len(data)) {
				err = f.Truncate(t.Complete)
			}
			if err == nil && t.olderVersion {
				err = rewrite(f, t)
			}
			if err == nil {
				if _, err = f.Seek(0, 2); err == nil {
					return &fileLog{f: f, sync: !s.NoSync}, t, nil
				}
			}
		}
	}
	f.Close()
	return nil, nil, fmt.Errorf("session %s: %w", key, err)
}

func readAll(f *os.File) ([]byte, error) {
	var b bytes.Buffer
	_, err := b.ReadFrom(f)
	return b.Bytes(), err
}

// rewrite writes t over f in the current version (pi migrates on load the
// same way).
func rewrite(f *os.File, t *Transcript) error {
	data, err := encode(t.Header, t.Entries)
	if err != nil {
		return err
	}
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err = f.WriteAt(data, 0)
	t.olderVersion = false
	return err
}

// Create implements Store: a new file named as pi names them,
// <time>_<id>.jsonl.
func (s *FileStore) Create(_ context.Context, h Header, entries []Entry) (Log, error) {
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("sessions: %w", err)
	}
	name := strings.NewReplacer(":", "-", ".", "-").Replace(h.Timestamp) + "_" + h.ID + ".jsonl"
	path := filepath.Join(s.Dir, name)
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

// Path returns the file a Log created by this store writes, or "".
func Path(l Log) string {
	if fl, ok := l.(*fileLog); ok {
		return fl.f.Name()
	}
	return ""
}

// Remove implements Store. A session in use is not removed.
func (s *FileStore) Remove(_ context.Context, key string) error {
	lock, err := lockFile(key+".lock", key)
	if err != nil {
		return err
	}
	defer lock.unlock()
	if err := os.Remove(key); err != nil {
		return fmt.Errorf("session: %w", err)
	}
	return nil
}

func encode(h Header, entries []Entry) ([]byte, error) {
	h.Type, h.Version = TypeSession, Version
	var b bytes.Buffer
	line, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	b.Write(line)
	b.WriteByte('\n')
	for _, e := range entries {
		line, err := json.Marshal(e)
		if err != nil {
			return nil, err
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.Bytes(), nil
}

type fileLog struct {
	mu   sync.Mutex
	f    *os.File
	lock *fileLock
	sync bool
}

// Append implements Log: the entries as lines, in one write.
func (l *fileLog) Append(_ context.Context, entries ...Entry) error {
	var b bytes.Buffer
	for _, e := range entries {
		line, err := json.Marshal(e)
		if err != nil {
			return fmt.Errorf("session: %w", err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return l.write(b.Bytes())
}

func (l *fileLog) write(data []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return fmt.Errorf("session: log closed")
	}
	if _, err := l.f.Write(data); err != nil {
		return fmt.Errorf("session: %w", err)
	}
	if l.sync {
		if err := l.f.Sync(); err != nil {
			return fmt.Errorf("session: %w", err)
		}
	}
	return nil
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
