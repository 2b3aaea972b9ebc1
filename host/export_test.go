package host

// CompileForCall is compileForCall for the external tests: a schema as
// the loop reads it, pi's reading, without CompileSchema's meta-schema
// check.
var CompileForCall = compileForCall

// DecodeMessageFast and DecodeMessageJSON are DecodeMessage's two ways,
// for the test that holds them to one result.
var (
	DecodeMessageFast = decodeMessageFast
	DecodeMessageJSON = decodeMessageJSON
)
