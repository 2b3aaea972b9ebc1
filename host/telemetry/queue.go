package telemetry

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// queue is the span processor: ended spans wait in a bounded channel and
// one goroutine exports them in batches. When the channel is full (a slow
// or dead collector), a span is dropped and counted, never waited for, so
// telemetry never holds a run up. At most twice the queue's size is held:
// the queue and the batch being exported. See RATIONALE.md "Why our own span
// queue?".
type queue struct {
	exp      sdktrace.SpanExporter
	spans    chan sdktrace.ReadOnlySpan
	flushes  chan chan struct{}
	stop     chan struct{}
	done     chan struct{}
	batch    int // the most spans exported at once, at most the queue's size
	dropped  atomic.Int64
	failed   atomic.Int64 // spans in batches the exporter refused
	stopOnce sync.Once
}

const (
	batchSize     = 512
	batchInterval = time.Second
	exportTimeout = 10 * time.Second
)

var _ sdktrace.SpanProcessor = (*queue)(nil)

func newQueue(exp sdktrace.SpanExporter, size int) *queue {
	q := &queue{exp: exp, spans: make(chan sdktrace.ReadOnlySpan, size), batch: min(size, batchSize), flushes: make(chan chan struct{}),
		stop: make(chan struct{}), done: make(chan struct{})}
	go q.run()
	return q
}

func (q *queue) OnStart(context.Context, sdktrace.ReadWriteSpan) {}

// OnEnd queues s, or drops it when the queue is full or stopped.
func (q *queue) OnEnd(s sdktrace.ReadOnlySpan) {
	if !s.SpanContext().IsSampled() {
		return
	}
	select {
	case <-q.stop:
		q.dropped.Add(1)
		return
	default:
	}
	select {
	case q.spans <- s:
	default:
		q.dropped.Add(1)
	}
}

func (q *queue) run() {
	defer close(q.done)
	tick := time.NewTicker(batchInterval)
	defer tick.Stop()
	batch := make([]sdktrace.ReadOnlySpan, 0, q.batch)
	for {
		select {
		case s := <-q.spans:
			if batch = append(batch, s); len(batch) >= q.batch {
				batch = q.export(batch)
			}
		case <-tick.C:
			batch = q.export(batch)
		case ack := <-q.flushes:
			batch = q.export(q.drain(batch))
			close(ack)
		case <-q.stop:
			q.export(q.drain(batch))
			return
		}
	}
}

// drain appends the spans queued now to batch, exporting full batches.
func (q *queue) drain(batch []sdktrace.ReadOnlySpan) []sdktrace.ReadOnlySpan {
	for {
		select {
		case s := <-q.spans:
			if batch = append(batch, s); len(batch) >= q.batch {
				batch = q.export(batch)
			}
		default:
			return batch
		}
	}
}

// export sends batch, bounded in time, and returns it emptied.
func (q *queue) export(batch []sdktrace.ReadOnlySpan) []sdktrace.ReadOnlySpan {
	if len(batch) == 0 {
		return batch
	}
	ctx, cancel := context.WithTimeout(context.Background(), exportTimeout)
	defer cancel()
	if err := q.exp.ExportSpans(ctx, batch); err != nil {
		q.failed.Add(int64(len(batch)))
	}
	clear(batch)
	return batch[:0]
}

// ForceFlush exports what is queued, or gives up when ctx ends.
func (q *queue) ForceFlush(ctx context.Context) error {
	ack := make(chan struct{})
	select {
	case q.flushes <- ack:
	case <-q.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-ack:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Shutdown exports what is queued and stops, or gives up when ctx ends
// (the export goroutine then finishes its batch on its own).
func (q *queue) Shutdown(ctx context.Context) error {
	q.stopOnce.Do(func() { close(q.stop) })
	select {
	case <-q.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	return q.exp.Shutdown(ctx)
}
