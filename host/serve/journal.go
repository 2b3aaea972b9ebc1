package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"time"
)

// A journal is one session's events, one a line of a file: the time it
// was written (Unix milliseconds), a space, and the event's JSON object.
// The event id is the line's number (from 1), so ids survive restarts
// without being written. An event is written (one write call) before
// anyone is woken to read it. A torn last line (the process died mid-write)
// is cut off when the journal opens: nobody can have seen it. A line in
// the middle that is not of this form keeps its number and is skipped.
type journal struct {
	path string
	sync bool

	mu    sync.Mutex
	f     *os.File
	offs  []int64 // offs[i] is where event i+1 starts
	bad   map[int]bool
	size  int64
	wake  chan struct{} // closed and replaced at each append
	ended error         // ErrGone or ErrClosed once no more will come
	refs  int
}

// scanJournal reads a journal: the offsets of its lines, which of them
// are not JSON objects (by index), and how many bytes are whole lines (a
// torn last line is after them). It holds one line at a time, not the
// journal: a session's journal grows with every run, and was read whole
// into memory each time the session opened.
func scanJournal(r io.Reader) (offs []int64, bad map[int]bool, whole int64, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var long []byte // a line longer than br's buffer, so far
	for {
		part, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long, part...)
			continue
		}
		if err == io.EOF {
			return offs, bad, whole, nil // a torn line, or none
		}
		if err != nil {
			return nil, nil, 0, err
		}
		line := part
		if long != nil {
			line = append(long, part...)
			long = nil
		}
		if _, _, ok := splitLine(line[:len(line)-1]); !ok {
			if bad == nil {
				bad = map[int]bool{}
			}
			bad[len(offs)] = true
		}
		offs = append(offs, whole)
		whole += int64(len(line))
	}
}

// splitLine splits a journal line into its time and its event.
func splitLine(line []byte) (time.Time, []byte, bool) {
	ms, obj, ok := bytes.Cut(line, []byte{' '})
	if !ok || len(ms) == 0 || len(ms) > 15 || len(obj) < 2 || obj[0] != '{' || !json.Valid(obj) {
		return time.Time{}, nil, false
	}
	var n int64
	for _, c := range ms {
		if c < '0' || c > '9' {
			return time.Time{}, nil, false
		}
		n = n*10 + int64(c-'0')
	}
	return time.UnixMilli(n), obj, true
}

// fitEvent returns data, or, when it is over max bytes, a stand-in with
// its type, its call's id and the size left out (as the cluster backend
// publishes one): every stream reading the journal holds an event whole
// while it sends it, and a run's turn_end and agent_end carry all its
// tool results, which plugins choose the size of (128 calls of 8 MiB
// made one line of a GiB). The transcript keeps them whole.
func fitEvent(data []byte, max int) []byte {
	if len(data) <= max {
		return data
	}
	var ev struct {
		Type       string `json:"type"`
		ToolCallID string `json:"toolCallId,omitempty"`
	}
	json.Unmarshal(data, &ev) // what cannot be read stays empty
	out, _ := json.Marshal(struct {
		Type         string `json:"type"`
		ToolCallID   string `json:"toolCallId,omitempty"`
		OmittedBytes int    `json:"omittedBytes"`
	}{ev.Type, ev.ToolCallID, len(data)})
	return out
}

// openJournal opens (creating if need be) the journal at path.
func openJournal(path string, sync bool) (*journal, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("event journal: %w", err)
	}
	offs, bad, whole, err := scanJournal(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("event journal %s: %w", path, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("event journal %s: %w", path, err)
	}
	if whole < st.Size() {
		if err := f.Truncate(whole); err != nil {
			f.Close()
			return nil, fmt.Errorf("event journal %s: cutting a torn last line: %w", path, err)
		}
	}
	return &journal{path: path, sync: sync, f: f, offs: offs, bad: bad, size: whole, wake: make(chan struct{})}, nil
}

// append writes one event and returns its sequence number.
func (j *journal) append(data []byte, durable bool) (int, error) {
	if bytes.IndexByte(data, '\n') >= 0 {
		return 0, errors.New("event journal: an event holds a line feed")
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.ended != nil {
		return 0, j.ended
	}
	line := make([]byte, 0, len(data)+16)
	line = strconv.AppendInt(line, time.Now().UnixMilli(), 10)
	line = append(append(append(line, ' '), data...), '\n')
	n, err := j.f.WriteAt(line, j.size)
	if err != nil {
		// Nothing half-written stays: the next append starts where this one did.
		j.f.Truncate(j.size)
		return 0, fmt.Errorf("event journal %s: %w", j.path, err)
	}
	if durable && j.sync {
		if err := j.f.Sync(); err != nil {
			return 0, fmt.Errorf("event journal %s: %w", j.path, err)
		}
	}
	j.offs = append(j.offs, j.size)
	j.size += int64(n)
	close(j.wake)
	j.wake = make(chan struct{})
	return len(j.offs), nil
}

// count is the number of events written.
func (j *journal) count() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return len(j.offs)
}

// end stops the journal: readers get err once they have read everything.
func (j *journal) end(err error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.ended == nil {
		j.ended = err
		close(j.wake)
		j.wake = make(chan struct{})
	}
}

// get returns event seq (from 1), or, when it is not written yet, a
// channel closed at the next append. bad is true for an undecodable line.
func (j *journal) get(seq int) (ev Event, bad bool, wait <-chan struct{}, err error) {
	j.mu.Lock()
	if seq > len(j.offs) {
		defer j.mu.Unlock()
		if j.ended != nil {
			return Event{}, false, nil, j.ended
		}
		return Event{}, false, j.wake, nil
	}
	start := j.offs[seq-1]
	end := j.size
	if seq < len(j.offs) {
		end = j.offs[seq]
	}
	isBad := j.bad[seq-1]
	f := j.f
	j.mu.Unlock()
	if isBad {
		return Event{}, true, nil, nil
	}
	buf := make([]byte, end-start)
	if _, err := f.ReadAt(buf, start); err != nil {
		return Event{}, false, nil, fmt.Errorf("event journal %s: %w", j.path, err)
	}
	t, obj, ok := splitLine(bytes.TrimSuffix(buf, []byte{'\n'}))
	if !ok {
		return Event{}, true, nil, nil
	}
	return Event{ID: strconv.Itoa(seq), Data: obj, Time: t}, false, nil, nil
}

// parseAfter reads an event id a client sent back: "" is before the
// first event; otherwise a decimal sequence number no later than last.
func parseAfter(after string, last int) (int, error) {
	if after == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(after)
	if err != nil || n < 0 || strconv.Itoa(n) != after {
		return 0, &InvalidError{Field: "Last-Event-ID", Msg: fmt.Sprintf("%.40q is not an event id of this session (a decimal number)", after)}
	}
	if n > last {
		return 0, &InvalidError{Field: "Last-Event-ID", Msg: fmt.Sprintf("event %d is past the session's last event (%d)", n, last)}
	}
	return n, nil
}

// journalStream reads a journal from one point on.
type journalStream struct {
	j       *journal
	next    int
	release func()
	once    sync.Once
}

func (s *journalStream) Next(ctx context.Context) (Event, error) {
	for {
		ev, bad, wait, err := s.j.get(s.next)
		switch {
		case err != nil:
			return Event{}, err
		case bad:
			s.next++
			continue
		case wait != nil:
			select {
			case <-wait:
				continue
			case <-ctx.Done():
				return Event{}, ctx.Err()
			}
		}
		s.next++
		return ev, nil
	}
}

func (s *journalStream) Close() error {
	s.once.Do(s.release)
	return nil
}
