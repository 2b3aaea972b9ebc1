package host

import "encoding/json"

// MaxQueuedUpdateBytes bounds what one run's events waiting for a slow
// subscriber hold of tool_execution_update events: their partial results'
// bytes plus queuedUpdateOverhead each. Parallel calls post updates
// without waiting for the subscriber (pi's onUpdate does not wait), and a
// call's slot frees when it returns, so without it a subscriber that
// stops reading (an rpc client, say) let a run hold every update of
// every call: 16 calls of 8 MiB held 129 MiB, and the default grants
// allow some 8 GiB per batch.
const MaxQueuedUpdateBytes = 64 << 20

// queuedUpdateOverhead is what a queued update costs beside its partial
// result (the event, its pending record and channel), so that empty
// updates are bounded in number too.
const queuedUpdateOverhead = 256

// postedCost is what a posted event counts against the bound, and the
// tool call whose later updates supersede it. A partial result of
// another type than JSON text or a string (a Go tool's own value) counts
// the overhead alone.
func postedCost(e Event) (int, string) {
	u, ok := e.(ToolExecutionUpdateEvent)
	if !ok {
		return queuedUpdateOverhead, ""
	}
	n := queuedUpdateOverhead
	switch v := u.PartialResult.(type) {
	case json.RawMessage:
		n += len(v)
	case []byte:
		n += len(v)
	case string:
		n += len(v)
	}
	return n, u.ToolCallID
}

// makeRoom reports whether p fits in the queue under the bound, after
// leaving out, oldest first, the queued updates that a later one of the
// same call supersedes (p itself included) until it does. A lone posted
// event always fits, so that an update larger than the bound still
// reaches a subscriber that keeps up. em.mu is held.
func (em *emitter) makeRoom(p *pending) bool {
	limit := em.limit
	if limit <= 0 {
		limit = MaxQueuedUpdateBytes
	}
	if em.held == 0 || em.held+p.cost <= limit {
		return true
	}
	// superseded[i]: a later update of queue[i]'s call is queued or is p.
	superseded := make([]bool, len(em.queue))
	later := map[string]bool{}
	if p.call != "" {
		later[p.call] = true
	}
	for i := len(em.queue) - 1; i >= 0; i-- {
		q := em.queue[i]
		if !q.posted || q.call == "" {
			continue
		}
		superseded[i] = later[q.call]
		later[q.call] = true
	}
	kept := em.queue[:0]
	for i, q := range em.queue {
		if superseded[i] && em.held+p.cost > limit {
			em.held -= q.cost
			close(q.done) // left out: its wait reports no failure
			continue
		}
		kept = append(kept, q)
	}
	clear(em.queue[len(kept):])
	em.queue = kept
	return em.held == 0 || em.held+p.cost <= limit
}
