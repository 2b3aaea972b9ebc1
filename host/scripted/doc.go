// Package scripted is an offline [host.Model] that replays a script of
// assistant turns exactly as pi-ai 0.73.1's faux provider streams them
// (docs/loop.md section 16): one turn per model request, each block streamed as
// X_start, X_delta… in chunks of 4×ChunkTokens characters, X_end, then done
// or error. It is how the demo and the tests run without a key, and how tool
// authors test their plugins against scripted model output.
//
// A script is JSON:
//
//	{
//	  "model": {"api": "scripted", "provider": "scripted", "id": "scripted-1"},
//	  "chunkTokens": 4,
//	  "turns": [
//	    {"content": [
//	       {"type": "thinking", "thinking": "The user wants the file."},
//	       {"type": "text", "text": "Reading it."},
//	       {"type": "toolCall", "id": "call_1", "name": "read", "arguments": {"path": "a.txt"}}
//	     ]},
//	    {"content": "Done.", "delayMs": 50},
//	    {"throw": "rate limited"},
//	    {"content": [], "stopReason": "error", "errorMessage": "overloaded"}
//	  ]
//	}
//
// Per turn: content is a list of blocks or a string (one text block);
// stopReason defaults to "toolUse" when the turn has a tool call and "stop"
// otherwise; errorMessage, responseId and usage are copied into the
// message; throw makes the request fail with that message and no start
// event; delayMs waits before the first event and chunkDelayMs between
// chunks, both cut short by an abort. A tool call's arguments may be given
// as "rawArguments", a string sent as it is, to script malformed output.
//
// Blocks carry what pi-ai's assistant content allows: a text block
// "textSignature", a thinking block "thinkingSignature" and "redacted"
// (redacted thinking: the signature is the provider's opaque payload), a
// tool call its "id" (required) and "thoughtSignature". They reach the
// final message and a tool call's end event; the partials hold only what
// the faux provider streams (text, thinking, a call's id, name and
// arguments). A field of another type's block is an error.
package scripted
