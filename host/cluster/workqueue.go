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
	return unavailable("queueing the session's work", err)
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
func setupStreams(ctx context.Context, js jetstream.JetStream, replicas int, t queueTimes) (jetstream.Consumer, jetstream.KeyValue, error) {
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
			return nil, nil, unavailable("creating stream "+cfg.Name, err)
		}
	}
	c, err := js.CreateOrUpdateConsumer(ctx, workStream, jetstream.ConsumerConfig{
		Durable: runnerConsumer, AckPolicy: jetstream.AckExplicitPolicy, AckWait: t.ackWait,
		MaxAckPending: -1, MaxDeliver: -1,
	})
	if err != nil {
		return nil, nil, unavailable("creating consumer "+runnerConsumer, err)
	}
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: cursorBucket, Storage: jetstream.FileStorage, Replicas: replicas})
	if err != nil {
		return nil, nil, unavailable("creating bucket "+cursorBucket, err)
	}
	return c, kv, nil
}
