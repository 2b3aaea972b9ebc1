// Package cluster keeps sessions on NATS JetStream, so that any host of a
// cluster can run any session and a session's log survives its host.
//
// One code path serves two deployments: [StartServer] runs an embedded
// NATS server with JetStream storing in a state directory (the
// single-machine default), and [Connect] joins an existing NATS cluster;
// both give a [Conn], and [NewStore] keeps sessions through it.
//
// A session's entries, the same lines as its JSONL file, are appended to
// one stream under a subject of their own. Each append is conditional on
// the sequence of the subject's last message, and a host writes a
// session only while it holds the session's lease, a key in a KV bucket
// with a TTL that the holder renews. The lease says who should write; the
// conditional append makes sure nobody else does: a host that paused past
// its lease finds, at its next append, that another host has written
// since, and stops with a *[FencedError] (see docs/scaling.md).
package cluster
