package wasmtool

// The decoders of an execute output, for the tests that compare them.
var (
	ParseResult      = parseResult
	ParseResultParts = parseResultParts
	ParseBefore      = parseBefore
	ParseAfter       = parseAfter
)

// TakeEveryTurn takes every turn of the background loads, as loads of
// other plugins would, until release.
func TakeEveryTurn() (release func()) {
	for range cap(behind) {
		behind <- struct{}{}
	}
	return func() {
		for range cap(behind) {
			<-behind
		}
	}
}
