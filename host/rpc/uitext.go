package rpc

import "github.com/wasmagent/wasmagent/internal/safetext"

// Caps on what a question shows the client, in runes.
const (
	maxNameRunes     = 200  // a hook's or tool's name
	maxQuestionRunes = 1000 // a hook's question
	maxArgsRunes     = 2000 // the arguments the call would run with
)

// displayText makes s fit to show in a client's dialog, as every door
// shows hook questions (internal/safetext): no control or bidi character,
// valid UTF-8, and at most n runes, the middle cut when it is longer.
func displayText(s string, n int) string { return safetext.Clip(safetext.Clean(s), n) }
