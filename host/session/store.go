package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Store keeps sessions. The file store ([FileStore]) is the one in this
// package; another may keep them elsewhere (a stream, a database): the
// Session depends on this interface only.
//
// Contract:
//  1. Keys are opaque strings made by the store; Info.Key names a session
//     for Load, Open and Remove.
//  2. Open and Create give the caller the only [Log] that may append to
//     the session until it is closed. A second Open of a held session
//     fails with a *LockedError naming the holder.
//  3. Load reads without locking and never changes what it reads.
//  4. A store must not keep a Transcript it returned: the caller owns it.
type Store interface {
	List(ctx context.Context) ([]Info, error)
	Load(ctx context.Context, key string) (*Transcript, error)
	Open(ctx context.Context, key string) (Log, *Transcript, error)
	Create(ctx context.Context, h Header, entries []Entry) (Log, error)
	Remove(ctx context.Context, key string) error
}

// Log appends to one session.
//
// Append returns once the entries are durable against the death of the
// process (the file store writes them with one write call; they survive
// kill -9). Entries are appended whole or, when the process dies during
// the call, leave a torn last line that [Decode] drops.
type Log interface {
	Append(ctx context.Context, entries ...Entry) error
	Close() error
}

// Locator is an optional interface of a Store: it names a session by
// something other than an id prefix (the file store: a path). ok reports
// whether ref is of the locator's form; err, that it is but names no
// session (and why).
type Locator interface {
	Locate(ref string) (info Info, ok bool, err error)
}

// Info describes a stored session.
type Info struct {
	Key      string // the store's name for it
	ID       string // the header's id
	Path     string // the file, for stores that have one
	Cwd      string
	Name     string
	Created  time.Time
	Modified time.Time
	Messages int
	First    string // the first user message's text
}

// LockedError says another process holds a session.
type LockedError struct {
	Session string
	PID     int    // 0 when unknown
	Holder  string // who holds it, for stores that name holders (a host); "" otherwise
}

func (e *LockedError) Error() string {
	if e.Holder != "" {
		return fmt.Sprintf("session %s is in use by %s; two processes never write one session", e.Session, e.Holder)
	}
	if e.PID > 0 {
		return fmt.Sprintf("session %s is in use by another wasmagent (pid %d); two processes never write one session", e.Session, e.PID)
	}
	return fmt.Sprintf("session %s is in use by another process; two processes never write one session", e.Session)
}

// ErrNotFound is returned when no session matches.
var ErrNotFound = errors.New("no such session")

// Find resolves ref, a session id, a unique prefix of one, or what the
// store's Locator understands (a path), to one session.
func Find(ctx context.Context, s Store, ref string) (Info, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return Info{}, fmt.Errorf("session: empty id")
	}
	if l, ok := s.(Locator); ok {
		if info, ok, err := l.Locate(ref); ok {
			return info, err
		}
	}
	var all []Info
	var err error
	if m, ok := s.(Matcher); ok {
		all, err = m.Matching(ctx, ref)
	} else {
		all, err = s.List(ctx)
	}
	if err != nil {
		return Info{}, err
	}
	var match []Info
	for _, info := range all {
		if info.ID == ref {
			return info, nil
		}
		if strings.HasPrefix(info.ID, ref) {
			match = append(match, info)
		}
	}
	switch len(match) {
	case 0:
		return Info{}, fmt.Errorf("session %q: %w", ref, ErrNotFound)
	case 1:
		return match[0], nil
	}
	ids := make([]string, len(match))
	for i, m := range match {
		ids[i] = m.ID
	}
	return Info{}, fmt.Errorf("session %q is ambiguous: it begins %s", ref, strings.Join(ids, ", "))
}

// Matcher is an optional interface of a Store: List's sessions whose id
// begins with prefix, in List's order, without reading the others whole
// (the file store reads their header lines only), so that Find among
// thousands of sessions reads the few that match.
type Matcher interface {
	Matching(ctx context.Context, prefix string) ([]Info, error)
}

// Latester is an optional interface of a Store: Latest without reading
// every session (the file store: by the files' times, reading only the
// newest that is a session).
type Latester interface {
	Latest(ctx context.Context) (Info, error)
}

// Latest returns the most recently modified session, or ErrNotFound.
func Latest(ctx context.Context, s Store) (Info, error) {
	if l, ok := s.(Latester); ok {
		return l.Latest(ctx)
	}
	all, err := s.List(ctx)
	if err != nil {
		return Info{}, err
	}
	if len(all) == 0 {
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
