package cluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/wasmagent/wasmagent/host/session"
)

// StoreConfig configures a [Store].
type StoreConfig struct {
	// Prefix names what the store makes in JetStream: the stream
	// <PREFIX>_SESSIONS with subjects <prefix>.log.<session id>, and the
	// KV bucket <prefix>_leases. Letters, digits, '-' and '_'; default
	// "wasmagent". Hosts that share sessions use the same prefix, and the
	// same Replicas and LeaseTTL (each host's NewStore sets them).
	Prefix string
	// Replicas is how many servers keep each message: 1 (default) for a
	// single server, 3 (or 5) for a cluster that survives losing one (two).
	Replicas int
	// LeaseTTL is how long a session's lease lasts unrenewed, that is how
	// long a dead host's sessions wait before another host may take them;
	// default 15s. The holder renews it every third of it.
	LeaseTTL time.Duration
	// Holder names this host in leases and in others' errors; default
	// "<hostname> pid <pid>".
	Holder string
	// Timeout bounds each request to JetStream, and the retries of an
	// append whose outcome is unknown; default 5s.
	Timeout time.Duration
}

// Store keeps sessions in JetStream. It implements session.Store; keys
// are the sessions' ids. See the package doc for the layout.
type Store struct {
	c      *Conn
	cfg    StoreConfig
	stream jetstream.Stream
	leases jetstream.KeyValue
	subj   string // "<prefix>.log."
}

var (
	_ session.Store = (*Store)(nil)
	_ session.Log   = (*Log)(nil)
)

var namePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`) })

// idPattern is what a session id must be to name a subject and a key:
// wasmagent's and pi's ids (UUIDs) are. The patterns are compiled on first
// use, not at init: their counted repetitions make programs of ~100 KB,
// which every command, not only serve, would otherwise pay for at start.
var idPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`) })

// NewStore makes (or updates) the stream and the lease bucket and
// returns a store over them.
func NewStore(ctx context.Context, c *Conn, cfg StoreConfig) (*Store, error) {
	if err := cfg.fill(); err != nil {
		return nil, err
	}
	s := &Store{c: c, cfg: cfg, subj: cfg.Prefix + ".log."}
	err := retry(ctx, 4*cfg.Timeout, func(ctx context.Context) (err error) {
		s.stream, err = c.js.CreateOrUpdateStream(ctx, s.streamConfig())
		return err
	})
	if err != nil {
		return nil, unavailableOp("cluster: the sessions stream", err)
	}
	err = retry(ctx, 4*cfg.Timeout, func(ctx context.Context) (err error) {
		s.leases, err = c.js.CreateOrUpdateKeyValue(ctx, s.leasesConfig())
		return err
	})
	if err != nil {
		return nil, unavailableOp("cluster: the leases bucket", err)
	}
	return s, nil
}

func (s *Store) streamConfig() jetstream.StreamConfig {
	cfg := s.cfg
	return jetstream.StreamConfig{
		Name:        strings.ToUpper(cfg.Prefix) + "_SESSIONS",
		Description: "wasmagent sessions: one subject per session, its entries in order",
		Subjects:    []string{s.subj + "*"},
		Storage:     jetstream.FileStorage,
		Replicas:    cfg.Replicas,
		Retention:   jetstream.LimitsPolicy,
		// A full stream refuses appends rather than dropping old sessions.
		Discard:    jetstream.DiscardNew,
		Duplicates: 2 * time.Minute,
		// Reads go to the stream's leader: a replica's direct answer may lag,
		// and a writer checking whether its append landed must not be told
		// no by one.
		AllowDirect: false,
		DenyDelete:  true,
	}
}

func (s *Store) leasesConfig() jetstream.KeyValueConfig {
	cfg := s.cfg
	return jetstream.KeyValueConfig{
		Bucket:      cfg.Prefix + "_leases",
		Description: "wasmagent session leases: which host runs which session",
		TTL:         cfg.LeaseTTL,
		Storage:     jetstream.FileStorage,
		Replicas:    cfg.Replicas,
		History:     1,
	}
}

func (cfg *StoreConfig) fill() error {
	if cfg.Prefix == "" {
		cfg.Prefix = "wasmagent"
	}
	if !namePattern().MatchString(cfg.Prefix) {
		return fmt.Errorf("cluster: prefix %q: use 1 to 64 letters, digits, '-' or '_'", cfg.Prefix)
	}
	if cfg.Replicas == 0 {
		cfg.Replicas = 1
	}
	if cfg.Replicas < 1 || cfg.Replicas > 5 {
		return fmt.Errorf("cluster: replicas %d: use 1 to 5", cfg.Replicas)
	}
	if cfg.LeaseTTL == 0 {
		cfg.LeaseTTL = 15 * time.Second
	}
	if cfg.LeaseTTL < time.Second {
		return fmt.Errorf("cluster: lease TTL %s: use at least 1s", cfg.LeaseTTL)
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 5 * time.Second
	}
	if cfg.Holder == "" {
		host, _ := os.Hostname()
		cfg.Holder = fmt.Sprintf("%s pid %d", host, os.Getpid())
	}
	return nil
}

// keyOf checks that a session id can name a subject.
func keyOf(id string) (string, error) {
	if !idPattern().MatchString(id) {
		return "", fmt.Errorf("session id %q cannot be kept in JetStream: use 1 to 128 letters, digits, '-' or '_'", id)
	}
	return id, nil
}

// List implements session.Store: every session, newest first, from the
// last message of each session's subject (its headers only).
func (s *Store) List(ctx context.Context) ([]session.Info, error) {
	msgs, err := s.read(ctx, s.subj+"*", true)
	if err != nil {
		return nil, unavailableOp("list sessions", err)
	}
	// One per session, its last message: the consumer sends the last of
	// each subject, then what is appended while it is read (in stream
	// order, so the later one wins).
	at := map[string]int{}
	out := make([]session.Info, 0, len(msgs))
	for _, m := range msgs {
		key := strings.TrimPrefix(m.subject, s.subj)
		info := infoOf(key, m.header.Get(hdrInfo), m.time)
		if i, ok := at[key]; ok {
			out[i] = info
			continue
		}
		at[key] = len(out)
		out = append(out, info)
	}
	slices.SortFunc(out, func(a, b session.Info) int { return b.Modified.Compare(a.Modified) })
	return out, nil
}

// Load implements session.Store.
func (s *Store) Load(ctx context.Context, key string) (*session.Transcript, error) {
	t, _, _, err := s.load(ctx, key)
	return t, err
}

// load reads a session, the sequence of its subject's last message, and
// when it was last appended to.
func (s *Store) load(ctx context.Context, key string) (t *session.Transcript, seq uint64, modified time.Time, err error) {
	if _, err := keyOf(key); err != nil {
		return nil, 0, time.Time{}, fmt.Errorf("session %q: %w", key, session.ErrNotFound)
	}
	msgs, err := s.read(ctx, s.subj+key, false)
	if err != nil {
		return nil, 0, time.Time{}, unavailableOp("load session "+key, err)
	}
	if len(msgs) == 0 {
		return nil, 0, time.Time{}, fmt.Errorf("session %s: %w", key, session.ErrNotFound)
	}
	frames := make([]frame, len(msgs))
	for i, m := range msgs {
		frames[i] = frame{kind: m.header.Get(hdrKind), part: m.header.Get(hdrPart), data: m.data}
	}
	data, warnings := assemble(frames)
	t, err = session.Decode(data)
	if err != nil {
		return nil, 0, time.Time{}, fmt.Errorf("session %s: %w", key, err)
	}
	t.Warnings = append(warnings, t.Warnings...)
	last := msgs[len(msgs)-1]
	return t, last.seq, infoOf(key, last.header.Get(hdrInfo), last.time).Modified, nil
}

// Open implements session.Store: it takes the session's lease, reads the
// session, and fences it (a message conditional on the last one read),
// so that a former holder that paused past its lease can write nothing
// after what this host read.
func (s *Store) Open(ctx context.Context, key string) (session.Log, *session.Transcript, error) {
	if _, err := keyOf(key); err != nil {
		return nil, nil, fmt.Errorf("session %q: %w", key, session.ErrNotFound)
	}
	ls, err := s.acquire(ctx, key, key)
	if err != nil {
		return nil, nil, err
	}
	l := &Log{st: s, key: key, lease: ls}
	for attempt := 0; ; attempt++ {
		t, seq, modified, err := s.load(ctx, key)
		if err != nil {
			ls.release()
			return nil, nil, err
		}
		l.id, l.seq, l.info = t.Header.ID, seq, summaryOf(t)
		l.info.Modified = modified.UnixMilli()
		if _, ok, err := l.publishFence(ctx); err != nil {
			ls.release()
			return nil, nil, err
		} else if ok {
			return l, t, nil
		}
		if attempt == 3 {
			ls.release()
			return nil, nil, fmt.Errorf("session %s: another writer kept appending while this host took it over; try again", key)
		}
	}
}

// Create implements session.Store: the session's first message holds its
// header and entries; it is refused when the session exists.
func (s *Store) Create(ctx context.Context, h session.Header, entries []session.Entry) (session.Log, error) {
	ctx = context.WithoutCancel(ctx) // as Append: bounded by Timeout
	key, err := keyOf(h.ID)
	if err != nil {
		return nil, err
	}
	data, err := session.EncodeLines(&h, entries)
	if err != nil {
		return nil, err
	}
	ls, err := s.acquire(ctx, key, h.ID)
	if err != nil {
		return nil, err
	}
	l := &Log{st: s, id: h.ID, key: key, lease: ls, info: newSummary(h)}
	if err := l.append(ctx, data, entries); err != nil {
		l.Close()
		var fe *FencedError
		if errors.As(err, &fe) {
			return nil, fmt.Errorf("session %s already exists", h.ID)
		}
		return nil, err
	}
	return l, nil
}

// Remove implements session.Store: it purges the session's subject,
// holding its lease meanwhile; a session another host holds is refused.
func (s *Store) Remove(ctx context.Context, key string) error {
	if _, err := keyOf(key); err != nil {
		return fmt.Errorf("session %q: %w", key, session.ErrNotFound)
	}
	ls, err := s.acquire(ctx, key, key)
	if err != nil {
		return err
	}
	defer ls.release()
	subj := s.subj + key
	err = retry(ctx, s.cfg.Timeout, func(ctx context.Context) error {
		_, err := s.stream.GetLastMsgForSubject(ctx, subj)
		return err
	})
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return fmt.Errorf("session %s: %w", key, session.ErrNotFound)
	} else if err != nil {
		return unavailableOp("remove session "+key, err)
	}
	err = retry(ctx, s.cfg.Timeout, func(ctx context.Context) error {
		return s.stream.Purge(ctx, jetstream.WithPurgeSubject(subj))
	})
	if err != nil {
		return unavailableOp("remove session "+key, err)
	}
	return nil
}
