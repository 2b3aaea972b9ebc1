package fuel

import "embed"

// Source is this package's source, which the runtime hashes into the
// version of its rewrite cache (runtime/rewritecache.go): a change here
// misses every entry made before.
//
//go:embed *.go
var Source embed.FS
