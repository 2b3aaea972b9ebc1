package host

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

// argumentShapes are tool-call arguments of the shapes a model (or a
// hostile one) sends, each about size bytes long.
var argumentShapes = []struct {
	name string
	gen  func(size int) []byte
}{
	{"keys", func(size int) []byte { // one object, many small keys
		var b strings.Builder
		b.WriteByte('{')
		for i := 0; b.Len() < size; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"k%d":%d`, i, i%7)
		}
		b.WriteByte('}')
		return []byte(b.String())
	}},
	{"escapes", func(size int) []byte { // a file's text, as write's content
		const line = `\tif s == \"x\\y\" { return \"é\u00e9\ud83d\ude00\" } // a line of code\n`
		return []byte(`{"path":"a/b.go","content":"` + strings.Repeat(line, max(1, size/len(line))) + `"}`)
	}},
	{"deep", func(size int) []byte { // objects nested to the bound, repeated
		one := strings.Repeat(`{"a":`, MaxArgumentDepth-1) + "1" + strings.Repeat("}", MaxArgumentDepth-1)
		return []byte("[" + strings.Repeat(one+",", max(1, size/(len(one)+1))) + "0]")
	}},
	{"numbers", func(size int) []byte { // an array of numbers of every form
		nums := []string{"0", "-17", "3.25", "1e10", "-2.5E-3", "123456789012", "0.1"}
		var b strings.Builder
		b.WriteByte('[')
		for i := 0; b.Len() < size; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(nums[i%len(nums)])
		}
		b.WriteByte(']')
		return []byte(b.String())
	}},
	{"tiny", func(size int) []byte { // a hostile model's: a value every few bytes
		const some = `{},[],"",0,{"":0},[1],true,`
		return []byte("[" + strings.Repeat(some, max(1, size/len(some))) + "null]")
	}},
}

// benchSizes are 1 KB and 1 MB, and 16 MiB (DefaultMaxArgumentBytes) when
// WASMAGENT_JSON_BENCH_16M is set: the oracle takes seconds on one.
func benchSizes() []int {
	sizes := []int{1 << 10, 1 << 20}
	if os.Getenv("WASMAGENT_JSON_BENCH_16M") != "" {
		sizes = append(sizes, DefaultMaxArgumentBytes-1024)
	}
	return sizes
}

// reportCPU reports the process's CPU time (user and system, the
// collector's threads included) per operation as cpu-ns/op, where the
// system says it: on a shared machine ns/op, wall time, measures the
// neighbours too.
func reportCPU(b *testing.B) func() {
	start, ok := cpuTime()
	return func() {
		if end, _ := cpuTime(); ok {
			b.ReportMetric(float64(end-start)/float64(b.N), "cpu-ns/op")
		}
	}
}

func sizeName(n int) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%dMB", (n+1024)>>20)
	}
	return fmt.Sprintf("%dKB", n>>10)
}

func benchDecode(b *testing.B, decode func([]byte) (any, *keyOrder, error)) {
	for _, size := range benchSizes() {
		for _, shape := range argumentShapes {
			raw := shape.gen(size)
			b.Run(shape.name+"/"+sizeName(size), func(b *testing.B) {
				b.SetBytes(int64(len(raw)))
				b.ReportAllocs()
				defer reportCPU(b)()
				for b.Loop() {
					if _, _, err := decode(raw); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkDecodeOrdered and BenchmarkDecodeOrderedOracle: the scanner
// and the Decoder.Token walk it replaced, on the same arguments.
func BenchmarkDecodeOrdered(b *testing.B)       { benchDecode(b, decodeOrdered) }
func BenchmarkDecodeOrderedOracle(b *testing.B) { benchDecode(b, decodeOrderedOracle) }

// BenchmarkDecodeOrderedUnmarshal is the floor the two are measured
// against: encoding/json's Decoder, numbers as json.Number, into an any,
// with none of decodeOrdered's checks and no key order.
func BenchmarkDecodeOrderedUnmarshal(b *testing.B) {
	benchDecode(b, func(raw []byte) (any, *keyOrder, error) {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var v any
		return v, nil, dec.Decode(&v)
	})
}

// BenchmarkEncodeOrdered and BenchmarkEncodeOrderedOracle write the
// decoded arguments back, as ValidateArguments does after the schema
// check: the encoder and the one it replaced.
func BenchmarkEncodeOrdered(b *testing.B) { benchEncode(b, decodeOrdered, encodeOrdered) }
func BenchmarkEncodeOrderedOracle(b *testing.B) {
	benchEncode(b, decodeOrderedOracle, encodeOrderedOracle)
}

func benchEncode(b *testing.B, decode func([]byte) (any, *keyOrder, error), encode func(any, *keyOrder) (json.RawMessage, error)) {
	for _, size := range benchSizes() {
		for _, shape := range argumentShapes {
			v, order, err := decode(shape.gen(size))
			if err != nil {
				b.Fatal(err)
			}
			b.Run(shape.name+"/"+sizeName(size), func(b *testing.B) {
				b.ReportAllocs()
				defer reportCPU(b)()
				for b.Loop() {
					if _, err := encode(v, order); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkValidateArguments is the whole of what the host does with a
// call's arguments before the tool runs (decode, schema check and
// coercion within MaxValidationWork, encode), under a schema that takes
// every shape.
func BenchmarkValidateArguments(b *testing.B) {
	schema, err := CompileSchema(json.RawMessage(`{"type":["object","array"],"properties":{"path":{"type":"string"}}}`))
	if err != nil {
		b.Fatal(err)
	}
	for _, size := range benchSizes() {
		for _, shape := range argumentShapes {
			raw := shape.gen(size)
			b.Run(shape.name+"/"+sizeName(size), func(b *testing.B) {
				b.SetBytes(int64(len(raw)))
				b.ReportAllocs()
				defer reportCPU(b)()
				for b.Loop() {
					if _, err := schema.ValidateArguments("t", raw); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
