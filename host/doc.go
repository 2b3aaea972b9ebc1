// Package host is wasmagent's agent core: the loop and the Agent of
// pi-agent-core 0.73.1, in Go, event for event. It imports nothing outside
// the standard library but a JSON Schema validator.
//
// # The loop
//
// [RunLoop] and [RunLoopContinue] are stateless: a [Context] (system
// prompt, transcript, tools) and a [Config] go in, events come out through
// a [Sink], and the new messages are returned. Two nested loops: the inner
// one streams an assistant message, runs its tool calls and injects
// steering messages, going round while there are tool calls or steering;
// the outer one asks for follow-up messages once the inner loop would stop.
//
// Each tool call goes through five stages:
//
//  1. tool_execution_start, with the raw arguments;
//  2. prepare: the caps (unlike pi, a call past Config.MaxToolCalls of
//     its message, 128 by default, or with arguments over
//     Config.MaxArgumentBytes does not run), look the tool up,
//     PrepareArguments, pi's coercion pass (with JavaScript's Number() and
//     String()) and JSON Schema validation, then the before-hooks: those
//     that may rewrite in order, then the gates (the first block wins; see
//     docs/hooks.md for rewrite, ask and the fallbacks) — a failure here
//     is an immediate error result;
//  3. execute, with the context of the run and an update callback that
//     queues the update and returns at once;
//  4. finalize: the after-hooks in order, each overriding the result field
//     by field, each seeing the previous one's result;
//  5. tool_execution_end, then the toolResult message.
//
// Sequentially (Config.ToolExecution "sequential", or any called tool with
// ExecutionMode "sequential") the five stages run call by call. In parallel
// the calls are prepared one by one in source order, then executed
// together (at most Config.MaxConcurrency at once); tool_execution_end
// follows completion order, the toolResult messages assistant order.
//
// Stages 2–4 are [ToolRunner], which other doors (an MCP server) use to
// run a single call exactly as the loop does.
//
// # Event delivery
//
// Events are delivered one at a time, in order, from whichever goroutine
// produced them; the loop waits for the sink (pi awaits its listeners too).
// Unlike pi, two parallel tools' events never reach a subscriber at the
// same time (docs/loop.md 15.1). A tool's update is the exception to the
// waiting, as in pi: it is queued, the tool goes on, and the call's result
// waits until its updates have been delivered — a slow subscriber delays
// delivery, never a running tool. The event flow of a run:
//
//	agent_start
//	turn_start
//	├─ message_start / message_end          prompts, then steering or follow-ups
//	├─ message_start                        assistant (partial)
//	│  ├─ message_update …                  text, thinking, toolcall deltas
//	│  message_end                          assistant (final)
//	├─ tool_execution_start                 per call, source order
//	│  ├─ tool_execution_update …
//	│  tool_execution_end                   completion order when parallel
//	├─ message_start / message_end          toolResult, source order
//	turn_end
//	turn_start …                            while tool calls or steering remain
//	agent_end
//
// # Failures are data
//
// A tool or hook that fails — returns an error, panics, is not found, gets
// invalid arguments — produces an error result and the batch goes on. A
// model reports failures in its message's stop reason. Only a failure that
// escapes the loop (the sink, a callback, a panicking model) ends a run
// early, and then with a synthetic error message in agent_end, never a hang.
//
// # The Agent
//
// [Agent] holds the transcript and the queues: Prompt, Continue, Steer,
// FollowUp, Abort, WaitForIdle, Reset, Subscribe, with pi's preconditions
// and error texts. Abort cancels the run's context, which reaches running
// tools and hooks.
package host
