package assemblyscript_test

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/wasmagent/wasmagent/host/wasmtool"
	"github.com/wasmagent/wasmagent/internal/plugintest"
	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

// decode is Go's reading of JSON text, numbers kept as text.
func decode(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if !json.Valid([]byte(s)) {
		return nil, json.Unmarshal([]byte(s), &v) // trailing data: its error
	}
	return v, nil
}

// The SDK's JSON parser, run in the plugin through the host, accepts what
// Go's accepts and refuses what it refuses, and writes back the same value
// (numbers as written). It never traps: a refusal is the SDK's error.
func FuzzJSON(f *testing.F) {
	for _, s := range []string{
		`{}`, `[]`, `null`, `true`, `-0.5e+10`, `"\u00e9\ud83d\ude00\ud800"`, `{"a":[1,{"b":null}],"a":2}`,
		`12345678901234567890123`, `[1,]`, `{"a" 1}`, `"\x"`, `01`, `1.`, ` [ "x" ] `, `[[[[[[]]]]]]`, `"tab	in"`, `{"é":"\/"}`,
	} {
		f.Add(s)
	}
	if testing.Short() {
		f.Skip("builds and runs the plugin in the host")
	}
	p, err := wasmtool.Load(context.Background(), plugintest.Runtime(f), wasmbuild.ASForTest(f, probe), wasmtool.Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(p.Close)
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) || strings.Count(s, "[")+strings.Count(s, "{") > 400 {
			t.Skip("not UTF-8 (JSON arguments cannot carry it), or nested past the SDK's limit")
		}
		args, _ := json.Marshal(map[string]string{"text": s})
		r, err := plugintest.Run(t, p, "json", string(args))
		want, goErr := decode(s)
		if goErr != nil {
			if err == nil {
				t.Fatalf("%q: Go refuses it (%v), the SDK wrote %q", s, goErr, r.Content.TextOf())
			}
			if !strings.Contains(err.Error(), "JSON at offset") {
				t.Fatalf("%q: the SDK's refusal does not say where: %v", s, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("%q: Go reads it as %v, the SDK refuses: %v", s, want, err)
		}
		out := r.Content.TextOf()
		got, err := decode(out)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: the SDK wrote %q (%v), Go reads %#v", s, out, err, want)
		}
		if bytes.ContainsAny([]byte(out), "\n\t ") && !strings.ContainsAny(s, "\n\t ") {
			t.Fatalf("%q: the SDK's output is not compact: %q", s, out)
		}
	})
}
