package host

import (
	"sync"
)

// executeToolCalls runs one assistant message's tool calls (docs/loop.md 6): in
// sequence when the config or any called tool says so, else in parallel.
func (r *run) executeToolCalls(msg *AssistantMessage, calls []ToolCall) ([]*ToolResultMessage, bool, error) {
	var done []*CallOutcome
	var results []*ToolResultMessage
	var err error
	if r.sequential(calls) {
		done, results, err = r.executeSequential(msg, calls)
	} else {
		done, results, err = r.executeParallel(msg, calls)
	}
	return results, terminates(done), err
}

func (r *run) sequential(calls []ToolCall) bool {
	if r.cfg.ToolExecution == ExecutionSequential {
		return true
	}
	for _, call := range calls {
		if t := findTool(r.c.Tools, call.Name); t != nil && t.Info().ExecutionMode == ExecutionSequential {
			return true
		}
	}
	return false
}

// executeSequential runs the five stages call by call.
func (r *run) executeSequential(msg *AssistantMessage, calls []ToolCall) ([]*CallOutcome, []*ToolResultMessage, error) {
	var done []*CallOutcome
	var results []*ToolResultMessage
	for _, call := range calls {
		if err := r.em.emit(startEvent(call)); err != nil {
			return done, results, err
		}
		prep, fin := r.prepare(msg, call)
		if fin == nil {
			out, err := r.execute(prep)
			if err != nil {
				abandon([]*PreparedCall{prep})
				return done, results, err
			}
			fin = r.finalize(prep, out)
		}
		if err := r.em.emit(endEvent(fin)); err != nil {
			return done, results, err
		}
		res := r.resultMessage(fin)
		if err := r.emitAll(MessageStartEvent{Message: res}, MessageEndEvent{Message: res}); err != nil {
			return done, results, err
		}
		done = append(done, fin)
		results = append(results, res)
	}
	return done, results, nil
}

// executeParallel prepares every call in order (immediate outcomes end at
// once), then executes the prepared ones concurrently, each emitting its
// end as it finishes, then emits the result messages in source order.
func (r *run) executeParallel(msg *AssistantMessage, calls []ToolCall) ([]*CallOutcome, []*ToolResultMessage, error) {
	done := make([]*CallOutcome, len(calls))
	var ready []int
	preps := make([]*PreparedCall, len(calls))
	for i, call := range calls {
		if err := r.em.emit(startEvent(call)); err != nil {
			abandon(preps)
			return nil, nil, err
		}
		prep, fin := r.prepare(msg, call)
		if fin != nil {
			done[i] = fin
			if err := r.em.emit(endEvent(fin)); err != nil {
				abandon(preps)
				return nil, nil, err
			}
			continue
		}
		preps[i] = prep
		ready = append(ready, i)
	}
	r.runConcurrently(ready, func(i int) {
		out, err := r.execute(preps[i])
		if err != nil {
			r.em.fail(err) // pi's batch fails here; nothing more is delivered
			abandon(preps[i : i+1])
			return
		}
		fin := r.finalize(preps[i], out)
		done[i] = fin
		r.em.emit(endEvent(fin)) // a sink error is kept by the emitter
	})
	if err := r.em.failed(); err != nil {
		return nil, nil, err
	}
	results := make([]*ToolResultMessage, 0, len(calls))
	for _, fin := range done {
		res := r.resultMessage(fin)
		if err := r.emitAll(MessageStartEvent{Message: res}, MessageEndEvent{Message: res}); err != nil {
			return nil, nil, err
		}
		results = append(results, res)
	}
	return done, results, nil
}

// runConcurrently calls f for each index, at most cfg.MaxConcurrency at a
// time (all at once when 0), starting them in the given order, and waits.
func (r *run) runConcurrently(indexes []int, f func(int)) {
	workers := len(indexes)
	if n := r.cfg.MaxConcurrency; n > 0 && n < workers {
		workers = n
	}
	next := make(chan int, len(indexes))
	for _, i := range indexes {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range next {
				f(i)
			}
		})
	}
	wg.Wait()
}

// terminates is pi's shouldTerminateToolBatch: every result must ask.
func terminates(done []*CallOutcome) bool {
	if len(done) == 0 {
		return false
	}
	for _, fin := range done {
		if fin == nil || fin.Result.Terminate == nil || !*fin.Result.Terminate {
			return false
		}
	}
	return true
}

func startEvent(call ToolCall) Event {
	return ToolExecutionStartEvent{ToolCallID: call.ID, ToolName: call.Name, Args: call.Arguments}
}

func endEvent(fin *CallOutcome) Event {
	return ToolExecutionEndEvent{ToolCallID: fin.Call.ID, ToolName: fin.Call.Name, Result: fin.Result, IsError: fin.IsError}
}

func (r *run) resultMessage(fin *CallOutcome) *ToolResultMessage {
	return &ToolResultMessage{
		ToolCallID: fin.Call.ID,
		ToolName:   fin.Call.Name,
		Content:    fin.Result.Content,
		Details:    fin.Result.Details,
		IsError:    fin.IsError,
		Timestamp:  r.cfg.now(),
	}
}
