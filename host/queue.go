package host

// QueueMode says how many queued steering or follow-up messages one poll
// takes.
type QueueMode string

// The queue modes; the zero value means one at a time.
const (
	OneAtATime QueueMode = "one-at-a-time"
	AllAtOnce  QueueMode = "all"
)

// Valid reports whether m is empty or one of the two modes.
func (m QueueMode) Valid() bool { return m == "" || m == OneAtATime || m == AllAtOnce }

// messageQueue is pi's PendingMessageQueue. The Agent guards it.
type messageQueue struct {
	mode  QueueMode
	items []Message
}

func (q *messageQueue) drain() []Message {
	if len(q.items) == 0 {
		return nil
	}
	if q.mode == AllAtOnce {
		out := q.items
		q.items = nil
		return out
	}
	first := q.items[0]
	q.items = q.items[1:]
	return []Message{first}
}
