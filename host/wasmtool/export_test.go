package wasmtool

// The decoders of an execute output, for the tests that compare them.
var (
	ParseResult      = parseResult
	ParseResultParts = parseResultParts
)
