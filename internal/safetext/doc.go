// Package safetext makes text that others wrote (a hook's question, a
// model's arguments) safe to show to the person who must answer it: no
// control character moves the cursor, rewrites the screen or starts a new
// line that looks like the host's own, no bidi override shows the text in
// an order other than its own, and no text floods the screen.
//
// Approval prompts use it on every door (MCP elicitation, the chat, pi's
// RPC extension_ui_request), so that one question reads the same and is
// bounded the same whichever client shows it.
package safetext
