// Package session is wasmagent's session service: one conversation, an
// Agent and the log that keeps it, behind the commands every door
// translates into (the CLI's run and chat, the RPC mode; later an HTTP
// server): prompt, steer, follow-up, abort, new, switch, fork, state.
//
// Sessions are stored in pi-coding-agent's session format, version 3: a
// JSONL file whose first line is a header and whose other lines are
// entries of a tree (id, parentId), messages carried as pi's
// AgentMessage JSON. pi's SessionManager reads our files and we read its.
//
// # Durability
//
//  1. Each message is appended to the log at its message_end, in one
//     write (and fsync, unless FileStore.NoSync), before any other
//     listener hears of the event: what a client saw end is on disk.
//  2. A file cut anywhere (kill -9 mid-write) loads: the torn last line is
//     dropped with a warning and cut off before the next append.
//  3. An assistant message whose tool calls have no results gets error
//     results saying the calls were interrupted ([InterruptedText]), so the
//     transcript may continue as pi's rules require; Options.Warn names
//     the calls, which may have had side effects.
//  4. One process at a time writes a session: [Store.Open] takes a lock
//     the kernel releases when its holder dies, and a second opener gets a
//     [*LockedError] naming the holder's pid.
//
// The [Store] interface is all the Session needs of storage; [FileStore]
// is the file implementation.
package session
