package host

// CompileForCall is compileForCall for the external tests: a schema as
// the loop reads it, pi's reading, without CompileSchema's meta-schema
// check.
var CompileForCall = compileForCall
