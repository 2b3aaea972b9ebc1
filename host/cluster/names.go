package cluster

import (
	"fmt"
	"strings"
)

// Streams, subjects and buckets of the cluster service. A session's
// subjects end with its id, one token: commands on wa.cmd.<id>, events on
// wa.ev.<id>, its pending work on wa.work.<id>.
const (
	cmdStream     = "WA_COMMANDS"
	eventStream   = "WA_EVENTS"
	workStream    = "WA_WORK"
	cursorBucket  = "wa_cursors"
	runningBucket = "wa_running"

	cmdPrefix   = "wa.cmd."
	eventPrefix = "wa.ev."
	workPrefix  = "wa.work."

	runnerConsumer = "runners"
)

// maxIDLen bounds a session id taken from a client (a UUIDv7 has 36).
const maxIDLen = 128

// checkID refuses what cannot be one subject token: a client's session
// id must not reach another session's subject (wa.cmd.x.y, wa.cmd.*).
func checkID(id string) error {
	if id == "" {
		return fmt.Errorf("session id: empty")
	}
	if len(id) > maxIDLen {
		return fmt.Errorf("session id: %d bytes, more than %d", len(id), maxIDLen)
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_'
		if !ok {
			return fmt.Errorf("session id %q: byte %d (%q) is not a letter, digit, '-' or '_'", id, i, c)
		}
	}
	return nil
}

func cmdSubject(id string) string   { return cmdPrefix + id }
func eventSubject(id string) string { return eventPrefix + id }
func workSubject(id string) string  { return workPrefix + id }

// idOf returns the session id a subject ends with.
func idOf(subject string) string {
	return subject[strings.LastIndexByte(subject, '.')+1:]
}
