package cluster

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// The work queue holds, per session, at most one message saying "this
// session has input no host is acting on". A host with a free run slot
// takes one, runs the session until nothing is pending, and acknowledges
// it; while it works it tells the server so (InProgress) every
// workHeartbeat, and a host that dies stops doing that: after AckWait the
// message goes to another host.
//
// While a host holds a session's work message, a second mark is refused
// (one message per subject, discard new): the holder reads the command
// stream again after it acknowledges (see runner.finish), so a command
// stored meanwhile is never left without a host.

// markWork says session id has pending input. A mark already waiting (or
// being worked on) is enough, and not an error.
func markWork(ctx context.Context, js jetstream.JetStream, id string) error {
	_, err := js.Publish(ctx, workSubject(id), nil, jetstream.WithExpectStream(workStream))
	if err == nil || isPerSubjectFull(err) {
		return nil
	}
	return unavailableOp("queueing the session's work", err)
}

func isPerSubjectFull(err error) bool {
	var api *jetstream.APIError
	return errors.As(err, &api) && strings.Contains(api.Description, "maximum messages per subject")
}

// Timings of the work queue, from the lease TTL (Config.LeaseTTL).
type queueTimes struct {
	ackWait   time.Duration // a silent host's work goes elsewhere after this
	heartbeat time.Duration // InProgress while a session runs
	retry     time.Duration // a session held by another host is tried again after this
}

func timesFor(leaseTTL time.Duration) queueTimes {
	return queueTimes{ackWait: leaseTTL, heartbeat: leaseTTL / 4, retry: leaseTTL / 2}
}

// setupStreams creates (or updates) the streams, consumer and bucket the
// service uses, with replicas copies of each.
func setupStreams(ctx context.Context, js jetstream.JetStream, replicas int, t queueTimes) (jetstream.Consumer, buckets, error) {
	streams := []jetstream.StreamConfig{
		{
			Name: cmdStream, Subjects: []string{cmdPrefix + "*"}, Storage: jetstream.FileStorage, Replicas: replicas,
			Duplicates: 10 * time.Minute, MaxMsgSize: MaxCommand + 4096,
		},
		{
			Name: eventStream, Subjects: []string{eventPrefix + "*"}, Storage: jetstream.FileStorage, Replicas: replicas,
		},
		{
			Name: workStream, Subjects: []string{workPrefix + "*"}, Storage: jetstream.FileStorage, Replicas: replicas,
			Retention: jetstream.WorkQueuePolicy, MaxMsgsPerSubject: 1, Discard: jetstream.DiscardNew, DiscardNewPerSubject: true,
		},
	}
	for _, cfg := range streams {
		if _, err := js.CreateOrUpdateStream(ctx, cfg); err != nil {
			return nil, buckets{}, unavailableOp("creating stream "+cfg.Name, err)
		}
	}
	c, err := js.CreateOrUpdateConsumer(ctx, workStream, jetstream.ConsumerConfig{
		Durable: runnerConsumer, AckPolicy: jetstream.AckExplicitPolicy, AckWait: t.ackWait,
		MaxAckPending: -1, MaxDeliver: -1,
	})
	if err != nil {
		return nil, buckets{}, unavailableOp("creating consumer "+runnerConsumer, err)
	}
	b := buckets{}
	for _, cfg := range []struct {
		kv  *jetstream.KeyValue
		cfg jetstream.KeyValueConfig
	}{
		{&b.cursors, jetstream.KeyValueConfig{Bucket: cursorBucket}},
		{&b.meta, jetstream.KeyValueConfig{Bucket: metaBucket}},
		{&b.running, jetstream.KeyValueConfig{Bucket: runningBucket, TTL: t.ackWait}},
		{&b.toolCalls, jetstream.KeyValueConfig{Bucket: toolCallBucket, TTL: 2 * time.Minute}},
	} {
		cfg.cfg.Storage, cfg.cfg.Replicas = jetstream.FileStorage, replicas
		kv, err := js.CreateOrUpdateKeyValue(ctx, cfg.cfg)
		if err != nil {
			return nil, b, unavailableOp("creating bucket "+cfg.cfg.Bucket, err)
		}
		*cfg.kv = kv
	}
	return c, b, nil
}

// buckets are the service's key-value buckets.
type buckets struct {
	cursors jetstream.KeyValue // session id → its command cursor
	meta    jetstream.KeyValue // meta.go
	running jetstream.KeyValue // <hex owner>.<id> → the host running it, while it does
	// toolCalls counts each owner's tool calls per minute (toolquota.go).
	toolCalls jetstream.KeyValue
}
