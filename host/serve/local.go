package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/eventwire"
	"github.com/wasmagent/wasmagent/host/session"
)

// LocalOptions configure the local backend.
type LocalOptions struct {
	// Root holds every owner's sessions: Root/<owner>/sessions/*.jsonl
	// (host/session's file store, pi's format), Root/<owner>/events/<id>.jsonl
	// (the event journals) and Root/<owner>/meta/<id>.json (what the
	// session was created with).
	Root string
	// Session is the template of every session's options (the Agent as
	// agent.toml configures it, the models, the retry policy, Warn);
	// Store is set per owner.
	Session session.Options
	// Events bound what the agent's message_update events cost, as for
	// "wasmagent run --json".
	Events eventwire.Options
	// MaxEventBytes bounds one journaled event: a larger one (a huge
	// tool result, a run's agent_end) is journaled as a stand-in
	// {"type","toolCallId","omittedBytes"}, as the cluster backend
	// publishes it; the transcript keeps it whole. 0 is
	// DefaultMaxEventBytes; negative, no bound.
	MaxEventBytes int
	// NoSync skips fsync (of session files and journals).
	NoSync bool
	// IdleClose closes a session that has had no command and no run for
	// this long, freeing its memory (the next command opens it again from
	// its file); 0 is DefaultIdleClose, a negative value never.
	IdleClose time.Duration
	// OnOpen, when not nil, is called with each session as it is created
	// or opened, before it runs (to subscribe an audit log, say). It must
	// not call the backend.
	OnOpen func(owner, id string, s *session.Session)
}

// Local is the Backend over host/session and its file store on this
// machine. One process at a time may use a Root (the file store's locks
// refuse a second writer of a session).
type Local struct {
	opts   LocalOptions
	base   context.Context // runs are bounded by it, not by requests
	cancel context.CancelFunc

	mu       sync.Mutex
	owners   map[string]*owner
	draining bool
	closed   bool
	stopping atomic.Bool // runs are being aborted because the server stops
	shut     atomic.Bool // Close has begun: no session opens again
}

var _ Backend = (*Local)(nil)

type owner struct {
	name  string
	dir   string
	store *session.FileStore

	mu       sync.Mutex        // guards the maps; never held across a run's wait
	startMu  sync.Mutex        // held across a quota check and the run it allows
	index    map[string]string // session id → store key ("" before its file exists)
	indexed  bool
	live     map[string]*live
	journals map[string]*journal
	deleted  map[string]bool // ids deleted (while their files may still be there)
	callsMu  sync.Mutex      // guards quota and calls (the hook runs without mu)
	quota    Quota           // the last caller's, for the tool-call hook (callsMu)
	calls    []time.Time     // tool calls started in the last minute (callsMu)
}

// live is a session held open: its Agent in memory, its log locked.
type live struct {
	id    string
	sess  *session.Session
	j     *journal
	unsub func()
	meta  sessionMeta

	// mu is held (read) by each command while it runs, and (write) to
	// close: a command never reaches a closed session.
	mu     sync.RWMutex
	closed bool
	used   atomic.Int64 // Unix ns of the last command or run end
}

// close aborts the session's run, waits for it, and releases its log.
func (l *live) close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	l.closed = true
	err := l.sess.Close()
	l.unsub()
	return err
}

// sessionMeta is what a session was created with (pi's session file has
// no place for a system prompt): Root/<owner>/meta/<id>.json.
type sessionMeta struct {
	SystemPrompt *string    `json:"systemPrompt,omitempty"`
	Model        *ModelSpec `json:"model,omitempty"`
	Created      time.Time  `json:"created"`
}

// NewLocal returns a local backend keeping sessions under o.Root.
func NewLocal(o LocalOptions) (*Local, error) {
	if o.Root == "" {
		return nil, errors.New("serve: the local backend needs a directory (Root)")
	}
	if err := os.MkdirAll(o.Root, 0o700); err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	if o.Session.Warn == nil {
		o.Session.Warn = func(string) {}
	}
	if o.IdleClose == 0 {
		o.IdleClose = DefaultIdleClose
	}
	ctx, cancel := context.WithCancel(context.Background())
	b := &Local{opts: o, base: ctx, cancel: cancel, owners: map[string]*owner{}}
	if o.IdleClose > 0 {
		go b.closeIdle(ctx)
	}
	return b, nil
}

// DefaultIdleClose is how long an idle session stays in memory.
const DefaultIdleClose = 10 * time.Minute

// closeIdle closes idle sessions until ctx ends.
func (b *Local) closeIdle(ctx context.Context) {
	t := time.NewTicker(max(b.opts.IdleClose/2, 10*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			b.mu.Lock()
			owners := make([]*owner, 0, len(b.owners))
			for _, o := range b.owners {
				owners = append(owners, o)
			}
			b.mu.Unlock()
			for _, o := range owners {
				o.closeIdle(now.Add(-b.opts.IdleClose).UnixNano())
			}
		}
	}
}

// closeIdle closes o's sessions unused since before (Unix ns). A session
// a command holds is skipped (TryLock), so no command ever finds its
// session closed under it; closing under o.mu keeps a reopen from racing
// the file lock this one still holds.
func (o *owner) closeIdle(before int64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for id, l := range o.live {
		if l.used.Load() >= before || !l.mu.TryLock() {
			continue
		}
		if !l.closed && !l.sess.Busy() && l.used.Load() < before {
			file := l.sess.State().SessionFile
			l.closed = true
			l.sess.Close()
			l.unsub()
			delete(o.live, id)
			o.releaseLocked(id, l.j)
			if o.index == nil {
				// not indexed yet: the first read finds the file, if any
			} else if file != "" {
				o.index[id] = file
			} else {
				// Never prompted: forgotten, as at a restart (rule 4).
				delete(o.index, id)
				os.Remove(filepath.Join(o.dir, "events", id+".jsonl"))
				os.Remove(filepath.Join(o.dir, "meta", id+".json"))
			}
		}
		l.mu.Unlock()
	}
}

// ownerName is the form of an owner's name (a token's name): a directory
// name that is never "." or "..". (Compiled on first use, not at every
// command's start; host/cluster's patterns say why.)
var ownerName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`) })

// sessionID is the form of the ids this backend makes and accepts.
var sessionID = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
})

func (b *Local) owner(c Caller) (*owner, error) {
	if !ownerName().MatchString(c.Owner) {
		return nil, fmt.Errorf("serve: owner name %.70q is not of the form %s", c.Owner, ownerName())
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, ErrClosed
	}
	o := b.owners[c.Owner]
	if o == nil {
		dir := filepath.Join(b.opts.Root, c.Owner)
		o = &owner{name: c.Owner, dir: dir, store: &session.FileStore{Dir: filepath.Join(dir, "sessions"), NoSync: b.opts.NoSync},
			live: map[string]*live{}, journals: map[string]*journal{}, deleted: map[string]bool{}}
		b.owners[c.Owner] = o
	}
	o.callsMu.Lock()
	o.quota = c.Quota
	o.callsMu.Unlock()
	return o, nil
}

// indexLocked reads the owner's stored sessions once.
func (o *owner) indexLocked(ctx context.Context) error {
	if o.indexed {
		return nil
	}
	infos, err := o.store.List(ctx)
	if err != nil {
		return err
	}
	o.index = map[string]string{}
	for _, info := range infos {
		if sessionID().MatchString(info.ID) && !o.deleted[info.ID] {
			o.index[info.ID] = info.Key
		}
	}
	o.indexed = true
	o.removeOrphansLocked()
	return nil
}

// removeOrphansLocked removes the journals and metadata of sessions that
// have no session file: sessions created and never prompted before the
// last stop (rule 4 of Backend's contract), or deleted while the process
// died. It runs once, when the index is first read, before this process
// has created any session of the owner.
func (o *owner) removeOrphansLocked() {
	for _, sub := range []struct{ dir, ext string }{{"events", ".jsonl"}, {"meta", ".json"}} {
		entries, _ := os.ReadDir(filepath.Join(o.dir, sub.dir))
		for _, e := range entries {
			id, ok := strings.CutSuffix(e.Name(), sub.ext)
			if ok && e.Type().IsRegular() && sessionID().MatchString(id) && o.index[id] == "" && o.live[id] == nil {
				os.Remove(filepath.Join(o.dir, sub.dir, e.Name()))
			}
		}
	}
}

func (b *Local) isDraining() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.draining
}

// Create implements Backend.
func (b *Local) Create(ctx context.Context, c Caller, req CreateRequest) (SessionInfo, error) {
	if b.isDraining() {
		return SessionInfo{}, ErrDraining
	}
	o, err := b.owner(c)
	if err != nil {
		return SessionInfo{}, err
	}
	meta := sessionMeta{SystemPrompt: req.SystemPrompt, Model: req.Model, Created: time.Now().UTC()}
	opts, err := b.sessionOptions(o, meta)
	if err != nil {
		return SessionInfo{}, err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if err := o.indexLocked(ctx); err != nil {
		return SessionInfo{}, err
	}
	if q := c.Quota.Sessions; q > 0 && len(o.index) >= q {
		return SessionInfo{}, &QuotaError{What: "sessions", Limit: q, RetryAfter: sessionsRetry}
	}
	sess := session.New(opts)
	id := sess.State().SessionID
	if err := writeMeta(filepath.Join(o.dir, "meta", id+".json"), meta); err != nil {
		sess.Close()
		return SessionInfo{}, err
	}
	l, err := b.attachLocked(o, id, sess, meta)
	if err != nil {
		sess.Close()
		os.Remove(filepath.Join(o.dir, "meta", id+".json"))
		return SessionInfo{}, err
	}
	if req.Name != "" {
		if err := sess.SetName(ctx, req.Name); err != nil {
			b.dropLocked(o, l)
			os.Remove(filepath.Join(o.dir, "meta", id+".json"))
			os.Remove(filepath.Join(o.dir, "events", id+".jsonl"))
			return SessionInfo{}, &InvalidError{Field: "name", Msg: err.Error()}
		}
	}
	o.index[id] = sess.State().SessionFile
	return b.liveInfo(l), nil
}

// sessionOptions are the options of one of o's sessions.
func (b *Local) sessionOptions(o *owner, meta sessionMeta) (session.Options, error) {
	opts := b.opts.Session
	opts.Store = o.store
	opts.HookEvents = true // the page marks blocked, rewritten and asked calls
	opts.Agent.BeforeToolCall = append([]host.BeforeToolCallHook{host.BeforeToolCallFunc(o.toolCallQuota)}, opts.Agent.BeforeToolCall...)
	opts.Agent.AfterToolCall = append(slices.Clone(opts.Agent.AfterToolCall), host.AfterToolCallFunc(b.interrupted))
	if meta.SystemPrompt != nil {
		opts.Agent.SystemPrompt = *meta.SystemPrompt
	}
	if meta.Model != nil {
		i := slices.IndexFunc(opts.Models, func(m session.Model) bool {
			return m.Info.Provider == meta.Model.Provider && m.Info.ID == meta.Model.ModelID
		})
		if i < 0 {
			return opts, &InvalidError{Field: "model", Msg: fmt.Sprintf("%s/%s is not a model of this server's agent.toml", meta.Model.Provider, meta.Model.ModelID)}
		}
		opts.Agent.Model = opts.Models[i].Model
	}
	return opts, nil
}

// attachLocked opens the session's journal and sends its events there.
func (b *Local) attachLocked(o *owner, id string, sess *session.Session, meta sessionMeta) (*live, error) {
	j, err := b.journalLocked(o, id)
	if err != nil {
		return nil, err
	}
	l := &live{id: id, sess: sess, j: j, meta: meta}
	l.used.Store(time.Now().UnixNano())
	enc := eventwire.New(func(obj []byte) error {
		_, err := j.append(fitEvent(obj, b.maxEvent()), false)
		return err
	}, b.opts.Events)
	l.unsub = sess.Subscribe(func(ctx context.Context, e session.Event) error {
		if he, ok := e.(host.Event); ok {
			if err := enc.Event(ctx, he); err != nil {
				return err
			}
			if _, end := he.(host.AgentEndEvent); end {
				l.used.Store(time.Now().UnixNano())
			}
			if _, end := he.(host.AgentEndEvent); end && !b.opts.NoSync {
				j.mu.Lock()
				err := j.f.Sync()
				j.mu.Unlock()
				return err
			}
			return nil
		}
		line, err := session.MarshalEvent(e)
		if err != nil {
			return err
		}
		_, err = j.append(fitEvent(line, b.maxEvent()), false)
		return err
	})
	o.live[id] = l
	if b.opts.OnOpen != nil {
		b.opts.OnOpen(o.name, id, sess)
	}
	return l, nil
}

// DefaultMaxEventBytes is LocalOptions.MaxEventBytes's default: the
// cluster backend's, its NATS server's message limit.
const DefaultMaxEventBytes = 8 << 20

func (b *Local) maxEvent() int {
	switch n := b.opts.MaxEventBytes; {
	case n == 0:
		return DefaultMaxEventBytes
	case n < 0:
		return math.MaxInt
	default:
		return n
	}
}

// journalLocked returns id's journal, opening it if need be; the caller
// holds a reference it gives back with releaseLocked.
func (b *Local) journalLocked(o *owner, id string) (*journal, error) {
	if j := o.journals[id]; j != nil {
		j.refs++
		return j, nil
	}
	dir := filepath.Join(o.dir, "events")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	j, err := openJournal(filepath.Join(dir, id+".jsonl"), !b.opts.NoSync)
	if err != nil {
		return nil, err
	}
	j.refs = 1
	o.journals[id] = j
	return j, nil
}

func (o *owner) releaseLocked(id string, j *journal) {
	j.refs--
	if j.refs == 0 && o.journals[id] == j {
		delete(o.journals, id)
		j.f.Close()
	}
}

// dropLocked closes a live session (aborting its run).
func (b *Local) dropLocked(o *owner, l *live) {
	l.close()
	delete(o.live, l.id)
	o.releaseLocked(l.id, l.j)
}

// find returns the live session id, opening it from the store if need
// be.
func (b *Local) find(ctx context.Context, o *owner, id string) (*live, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return b.findLocked(ctx, o, id)
}

func (b *Local) findLocked(ctx context.Context, o *owner, id string) (*live, error) {
	if l := o.live[id]; l != nil {
		return l, nil
	}
	if b.shut.Load() {
		return nil, ErrClosed
	}
	key, err := o.keyLocked(ctx, id)
	if err != nil {
		return nil, err
	}
	if key == "" {
		return nil, ErrNotFound
	}
	meta, _ := readMeta(filepath.Join(o.dir, "meta", id+".json"))
	opts, err := b.sessionOptions(o, meta)
	if err != nil {
		return nil, err
	}
	sess, err := session.Open(ctx, opts, key)
	if err != nil {
		return nil, notFoundIfGone(err)
	}
	l, err := b.attachLocked(o, id, sess, meta)
	if err != nil {
		sess.Close()
		return nil, err
	}
	return l, nil
}

// keyLocked returns the store key of o's session id ("" for a live
// session with no file yet), or ErrNotFound.
func (o *owner) keyLocked(ctx context.Context, id string) (string, error) {
	if !sessionID().MatchString(id) {
		return "", ErrNotFound
	}
	if err := o.indexLocked(ctx); err != nil {
		return "", err
	}
	key, ok := o.index[id]
	if !ok {
		return "", ErrNotFound
	}
	if l := o.live[id]; l != nil {
		key = l.sess.State().SessionFile
		o.index[id] = key
	}
	return key, nil
}

// List implements Backend: newest first.
func (b *Local) List(ctx context.Context, c Caller) ([]SessionInfo, error) {
	o, err := b.owner(c)
	if err != nil {
		return nil, err
	}
	stored, err := o.store.List(ctx)
	if err != nil {
		return nil, err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if err := o.indexLocked(ctx); err != nil {
		return nil, err
	}
	out := []SessionInfo{}
	seen := map[string]bool{}
	for _, l := range o.live {
		out = append(out, b.liveInfo(l))
		seen[l.id] = true
	}
	for _, info := range stored {
		if seen[info.ID] || !sessionID().MatchString(info.ID) || o.deleted[info.ID] {
			continue
		}
		o.index[info.ID] = info.Key
		meta, _ := readMeta(filepath.Join(o.dir, "meta", info.ID+".json"))
		out = append(out, storedInfo(info, meta))
	}
	slices.SortFunc(out, func(a, b SessionInfo) int { return b.Created.Compare(a.Created) })
	return out, nil
}

func storedInfo(info session.Info, meta sessionMeta) SessionInfo {
	created := info.Created
	if !meta.Created.IsZero() {
		created = meta.Created
	}
	return SessionInfo{ID: info.ID, Name: info.Name, Created: created, Modified: info.Modified,
		MessageCount: info.Messages, FirstMessage: info.First, Model: meta.Model}
}

func (b *Local) liveInfo(l *live) SessionInfo {
	st := l.sess.State()
	info := SessionInfo{ID: l.id, Name: st.SessionName, Created: l.meta.Created, Modified: l.meta.Created,
		MessageCount: st.MessageCount, IsStreaming: st.IsStreaming}
	if fi, err := os.Stat(st.SessionFile); st.SessionFile != "" && err == nil {
		info.Modified = fi.ModTime()
	}
	for _, m := range l.sess.Messages() {
		if u, ok := m.(*host.UserMessage); ok {
			info.FirstMessage = u.Content.TextOf()
			break
		}
	}
	if st.Model != nil {
		info.Model = &ModelSpec{Provider: st.Model.Info.Provider, ModelID: st.Model.Info.ID}
	}
	if n := l.j.count(); n > 0 {
		info.LastEventID = fmt.Sprint(n)
	}
	return info
}

// Get implements Backend.
func (b *Local) Get(ctx context.Context, c Caller, id string) (SessionInfo, error) {
	o, err := b.owner(c)
	if err != nil {
		return SessionInfo{}, err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if l := o.live[id]; l != nil {
		return b.liveInfo(l), nil
	}
	key, err := o.keyLocked(ctx, id)
	if err != nil {
		return SessionInfo{}, err
	}
	t, err := o.store.Load(ctx, key)
	if err != nil {
		return SessionInfo{}, notFoundIfGone(err)
	}
	info := session.Info{ID: id, Name: t.Name()}
	info.Created, _ = time.Parse(time.RFC3339Nano, t.Header.Timestamp)
	if fi, err := os.Stat(key); err == nil {
		info.Modified = fi.ModTime()
	}
	for _, m := range t.View(t.Leaf()).Messages {
		info.Messages++
		if u, ok := m.(*host.UserMessage); ok && info.First == "" {
			info.First = u.Content.TextOf()
		}
	}
	meta, _ := readMeta(filepath.Join(o.dir, "meta", id+".json"))
	out := storedInfo(info, meta)
	j, err := b.journalLocked(o, id)
	if err != nil {
		return SessionInfo{}, err
	}
	if n := j.count(); n > 0 {
		out.LastEventID = fmt.Sprint(n)
	}
	o.releaseLocked(id, j)
	return out, nil
}

// Delete implements Backend. The session leaves the owner's index first
// (every later call finds nothing), then its run is aborted and its
// files removed, without holding up the owner's other calls.
func (b *Local) Delete(ctx context.Context, c Caller, id string) error {
	o, err := b.owner(c)
	if err != nil {
		return err
	}
	o.mu.Lock()
	key, err := o.keyLocked(ctx, id)
	if err != nil {
		o.mu.Unlock()
		return err
	}
	l := o.live[id]
	delete(o.index, id)
	delete(o.live, id)
	o.deleted[id] = true
	o.mu.Unlock()
	if l != nil {
		l.close()
		key = l.sess.State().SessionFile
		o.mu.Lock()
		o.releaseLocked(id, l.j)
		o.mu.Unlock()
	}
	var errs []error
	if key != "" {
		if err := o.store.Remove(ctx, key); err != nil {
			errs = append(errs, err)
		}
	}
	o.mu.Lock()
	if j := o.journals[id]; j != nil {
		j.end(ErrGone)
	}
	o.mu.Unlock()
	for _, p := range []string{filepath.Join(o.dir, "events", id+".jsonl"), filepath.Join(o.dir, "meta", id+".json")} {
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Messages implements Backend: the current branch's messages.
func (b *Local) Messages(ctx context.Context, c Caller, id string) ([]host.Message, error) {
	o, err := b.owner(c)
	if err != nil {
		return nil, err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if l := o.live[id]; l != nil {
		return l.sess.Messages(), nil
	}
	key, err := o.keyLocked(ctx, id)
	if err != nil {
		return nil, err
	}
	t, err := o.store.Load(ctx, key)
	if err != nil {
		return nil, notFoundIfGone(err)
	}
	return t.View(t.Leaf()).Messages, nil
}

// Events implements Backend.
func (b *Local) Events(ctx context.Context, c Caller, id, after string) (Stream, error) {
	o, err := b.owner(c)
	if err != nil {
		return nil, err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.live[id] == nil {
		if _, err := o.keyLocked(ctx, id); err != nil {
			return nil, err
		}
	}
	j, err := b.journalLocked(o, id)
	if err != nil {
		return nil, err
	}
	n, err := parseAfter(after, j.count())
	if err != nil {
		o.releaseLocked(id, j)
		return nil, err
	}
	return &journalStream{j: j, next: n + 1, release: func() {
		o.mu.Lock()
		defer o.mu.Unlock()
		o.releaseLocked(id, j)
	}}, nil
}

// notFoundIfGone is ErrNotFound for a session file removed behind the
// index's back (by hand, or by "wasmagent sessions rm").
func notFoundIfGone(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return ErrNotFound
	}
	return err
}

func writeMeta(path string, m sessionMeta) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o600)
}

// readMeta reads a session's metadata; a missing or unreadable file is
// the zero value (agent.toml's prompt and model).
func readMeta(path string) (sessionMeta, error) {
	var m sessionMeta
	data, err := os.ReadFile(path)
	if err != nil {
		return m, err
	}
	return decodeMeta(data)
}

func decodeMeta(data []byte) (sessionMeta, error) {
	var m sessionMeta
	if err := json.Unmarshal(data, &m); err != nil {
		return sessionMeta{}, fmt.Errorf("session metadata: %w", err)
	}
	return m, nil
}
