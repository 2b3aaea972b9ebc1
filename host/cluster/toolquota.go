package cluster

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/internal/words"
)

// An owner's tool calls per minute are counted cluster-wide in the
// tool-call bucket: one key per owner and minute (UTC), the count of
// calls started in it, raised by compare-and-set so that hosts counting
// at once never lose a call. Keys expire with the bucket's TTL. The
// window is the calendar minute (serve's local backend slides one):
// across a minute's edge an owner may start up to twice its quota in 60
// seconds.
const toolCallBucket = "wa_toolcalls"

// quotaHeader carries the sender's tool calls per minute with a command:
// the host running the session applies the quota of the last command.
const quotaHeader = "Wa-Tool-Calls-Per-Minute"

// clockFunc is the quota's time (a test sets it, to stay in one minute;
// runs still going when the test ends read it, hence the atomic).
var clockFunc atomic.Pointer[func() time.Time]

// clock is the quota's time: time.Now unless a test set clockFunc.
func clock() time.Time {
	if f := clockFunc.Load(); f != nil {
		return (*f)()
	}
	return time.Now()
}

func toolCallKey(owner string, minute int64) string {
	return hex.EncodeToString([]byte(owner)) + "." + strconv.FormatInt(minute, 10)
}

// takeToolCall counts one call of owner against limit, and returns how
// long until one is allowed when the minute's calls are used up (the
// call is then not counted).
func takeToolCall(ctx context.Context, kv jetstream.KeyValue, owner string, limit int, now time.Time) (time.Duration, error) {
	minute := now.Unix() / 60
	key := toolCallKey(owner, minute)
	wait := time.Unix((minute+1)*60, 0).Sub(now)
	for range 100 {
		e, err := kv.Get(ctx, key)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			if _, err := kv.Create(ctx, key, []byte("1")); err == nil {
				return 0, nil
			} else if !errors.Is(err, jetstream.ErrKeyExists) {
				return 0, unavailableOp("counting tool calls", err)
			}
			continue
		}
		if err != nil {
			return 0, unavailableOp("counting tool calls", err)
		}
		n, _ := strconv.Atoi(string(e.Value()))
		if n >= limit {
			return wait, nil
		}
		if _, err := kv.Update(ctx, key, []byte(strconv.Itoa(n+1)), e.Revision()); err == nil {
			return 0, nil
		}
	}
	return 0, fmt.Errorf("counting tool calls: too many hosts counting at once")
}

// toolCallsUsed returns how long until owner may start a call, without
// counting one (0: now).
func toolCallsUsed(ctx context.Context, kv jetstream.KeyValue, owner string, limit int, now time.Time) (time.Duration, error) {
	minute := now.Unix() / 60
	e, err := kv.Get(ctx, toolCallKey(owner, minute))
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, unavailableOp("counting tool calls", err)
	}
	if n, _ := strconv.Atoi(string(e.Value())); n >= limit {
		return time.Unix((minute+1)*60, 0).Sub(now), nil
	}
	return 0, nil
}

// toolCallQuota is the first before-hook of every session a host runs:
// a call past its owner's tool calls per minute (the quota the last
// command carried) is blocked, and the model told why. When JetStream
// does not answer, the call is blocked too: a quota that cannot be
// counted is not granted.
func (r *runner) toolCallQuota(ctx context.Context, c *host.ToolCallContext) (*host.BeforeToolCallResult, error) {
	limit := int(r.toolQuota.Load())
	if limit <= 0 {
		return nil, nil
	}
	wait, err := takeToolCall(ctx, r.h.kv.toolCalls, r.owner, limit, clock())
	if err != nil {
		return &host.BeforeToolCallResult{Block: true, Reason: "Tool call quota: the cluster could not count this call (" + err.Error() + "); try again later."}, nil
	}
	if wait > 0 {
		return &host.BeforeToolCallResult{Block: true, Reason: fmt.Sprintf("Tool call quota exceeded: this server allows %s per minute for this token; the next is allowed in %ds.", words.Count(limit, "tool call"), int(wait.Seconds()+0.999))}, nil
	}
	return nil, nil
}
