package host

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// The compiled-schema cache holds a bounded amount of schema text however
// many different schemas a process meets (an MCP server that changes its
// tools on every listing kept every schema it had sent), and what it
// hands out is right: each generated schema, compiled once and again,
// admits the arguments it requires and refuses them missing, whether it
// came from the cache or was compiled again after the cache started
// over.
func TestSchemaCacheIsBounded(t *testing.T) {
	defer func(n int) { maxSchemaCacheBytes = n }(maxSchemaCacheBytes)
	maxSchemaCacheBytes = 4096
	r := rand.New(rand.NewPCG(3, 3))
	for i := 0; i < 300; i++ {
		prop := fmt.Sprintf("p%d_%s", i, strings.Repeat("x", r.IntN(300)))
		schema := fmt.Sprintf(`{"type":"object","properties":{%q:{"type":"integer"}},"required":[%q]}`, prop, prop)
		for round := 0; round < 2; round++ {
			s, err := compileForCall([]byte(schema))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.ValidateArguments("t", []byte(fmt.Sprintf(`{%q:%d}`, prop, i))); err != nil {
				t.Fatalf("schema %d, round %d: %v", i, round, err)
			}
			if _, err := s.ValidateArguments("t", []byte(`{}`)); err == nil {
				t.Fatalf("schema %d, round %d admits arguments without %s", i, round, prop)
			}
		}
		schemaCache.Lock()
		held, n := schemaCache.bytes, len(schemaCache.m)
		sum := 0
		for k := range schemaCache.m {
			sum += len(k)
		}
		schemaCache.Unlock()
		if held > maxSchemaCacheBytes || sum != held || n == 0 {
			t.Fatalf("after %d schemas the cache holds %d entries, %d bytes (counted %d; bound %d)", i+1, n, sum, held, maxSchemaCacheBytes)
		}
	}
}
