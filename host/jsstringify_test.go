package host_test

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/hosttest"
)

// The cases where encoding/json (or a model, a plugin, a file) writes
// other bytes than JSON.stringify, each with what node writes.
func TestJSONStringifyCases(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`"\u003ca\u003e \u0026"`, `"<a> &"`},
		{`"<a> &"`, `"<a> &"`},
		{`"\u2028\u2029"`, "\"\u2028\u2029\""},
		{`"\ufffd"`, "\"\ufffd\""},
		{"\"\xff\"", "\"\ufffd\""},
		{"\"a\xe2\x82\"", "\"a\ufffd\ufffd\""},
		{`"\ud800"`, `"\ud800"`},
		{`"\uD800x"`, `"\ud800x"`},
		{`"\udc00\ud800"`, `"\udc00\ud800"`},
		{`"\ud83d\ude00"`, `"😀"`},
		{`"\\ud800"`, `"\\ud800"`},
		{`"\u0041\/"`, `"A/"`},
		{`"\u001f\u001F\u0008\u000c\u007f"`, "\"\\u001f\\u001f\\b\\f\x7f\""},
		{`1e21`, `1e+21`},
		{`1E+21`, `1e+21`},
		{`1.5e-7`, `1.5e-7`},
		{`0.00000015`, `1.5e-7`},
		{`0.000001`, `0.000001`},
		{`-0`, `0`},
		{`-0.0e5`, `0`},
		{`1.0`, `1`},
		{`100e-2`, `1`},
		{`9007199254740993`, `9007199254740992`},
		{`123456789012345`, `123456789012345`},
		{`123456789012345678901234`, `1.2345678901234569e+23`},
		{`100000000000000000000`, `100000000000000000000`},
		{`1e400`, `null`},
		{`-1e400`, `null`},
		{`1e-400`, `0`},
		{`5e-324`, `5e-324`},
		{` { "a" : [ 1 , 2 , { } , [ ] ] } ` + "\n", `{"a":[1,2,{},[]]}`},
		{`{"b":1,"a":2,"1":3,"0":4}`, `{"0":4,"1":3,"b":1,"a":2}`},
		{`{"a":1,"b":2,"a":3}`, `{"a":3,"b":2}`},
		{`{"a":{"x":1.0},"b":2,"a":{"y":1e21}}`, `{"a":{"y":1e+21},"b":2}`},
		{`{"4294967295":1,"4294967294":2}`, `{"4294967294":2,"4294967295":1}`},
		{`{"01":1,"1":2,"-1":3}`, `{"1":2,"01":1,"-1":3}`},
		{`{"k\u0041":"\u003c"}`, `{"kA":"<"}`},
		{`[{"b":1,"0":2},"\u003c"]`, `[{"0":2,"b":1},"<"]`},
	} {
		got, err := host.JSONStringify([]byte(c.in))
		if err != nil || string(got) != c.want {
			t.Errorf("JSONStringify(%s) = %s, %v; node writes %s", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{``, `{`, `[1,]`, `{"a"}`, `01`, `1.`, `"\x"`, "\"\x01\"", `tru`, `1 2`, `"\u12"`} {
		if got, err := host.JSONStringify([]byte(bad)); err == nil {
			t.Errorf("JSONStringify(%q) = %s, not an error", bad, got)
		}
	}
}

// TestJSONStringifyMatchesNode compares JSONStringify with node's
// JSON.stringify(JSON.parse(text)) on generated JSON texts (jsText: every
// escape, number spelling, key order, duplicate and white space that
// differs from JSON.stringify's), in one node process.
//
// WASMAGENT_JSSTRINGIFY_N sets the number of texts (default 300),
// WASMAGENT_JSSTRINGIFY_SEED the first seed (default 1).
func TestJSONStringifyMatchesNode(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: cannot compare with JSON.stringify (CI has Node 20)")
	}
	n, seed := hosttest.EnvInt(t, "WASMAGENT_JSSTRINGIFY_N", 300), hosttest.EnvInt(t, "WASMAGENT_JSSTRINGIFY_SEED", 1)
	texts := make([][]byte, n)
	var in bytes.Buffer
	for i := range n {
		r := rand.New(rand.NewPCG(uint64(seed+i), 0x15))
		texts[i] = jsText(r, 0)
		fmt.Fprintln(&in, base64.StdEncoding.EncodeToString(texts[i]))
	}
	const script = `
const rl = require("readline").createInterface({input: process.stdin, crlfDelay: Infinity});
rl.on("line", (l) => {
  const s = Buffer.from(l, "base64").toString("utf8");
  let out;
  try { out = JSON.stringify(JSON.parse(s)); } catch (e) { out = "error"; }
  process.stdout.write(Buffer.from(out, "utf8").toString("base64") + "\n");
});`
	cmd := exec.Command(node, "-e", script)
	cmd.Stdin = &in
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 16<<20)
	failures := 0
	i := 0
	for ; sc.Scan(); i++ {
		want, _ := base64.StdEncoding.DecodeString(sc.Text())
		got, err := host.JSONStringify(texts[i])
		if err != nil {
			got = []byte("error")
		}
		if !bytes.Equal(got, want) {
			t.Errorf("seed %d: JSONStringify(%s)\n = %s\nnode: %s", seed+i, texts[i], got, want)
			if failures++; failures == 5 {
				t.FailNow()
			}
		}
	}
	if i != n {
		t.Fatalf("node answered %d of %d texts", i, n)
	}
	t.Logf("%d of %d texts (seeds %d…%d) as node writes them", n-failures, n, seed, seed+n-1)
}

// jsText is a random JSON text: valid UTF-8 (node reads invalid UTF-8
// otherwise than encoding/json: TestJSONStringifyCases), with the
// spellings JSON.stringify does not write.
func jsText(r *rand.Rand, depth int) []byte {
	ws := func() string {
		if r.IntN(4) > 0 {
			return ""
		}
		return []string{" ", "\n", "\t", "\r\n ", "  "}[r.IntN(5)]
	}
	var b strings.Builder
	b.WriteString(ws())
	switch k := r.IntN(10); {
	case depth < 4 && k < 2:
		b.WriteByte('{')
		for i := range r.IntN(6) {
			if i > 0 {
				b.WriteString(ws() + "," + ws())
			}
			b.WriteString(jsKey(r) + ws() + ":")
			b.Write(jsText(r, depth+1))
		}
		b.WriteString(ws() + "}")
	case depth < 4 && k < 4:
		b.WriteByte('[')
		for i := range r.IntN(5) {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(jsText(r, depth+1))
		}
		b.WriteString(ws() + "]")
	case k < 7:
		b.WriteString(jsString(r))
	case k < 9:
		b.WriteString(jsNumber(r))
	default:
		b.WriteString([]string{"true", "false", "null"}[r.IntN(3)])
	}
	b.WriteString(ws())
	return []byte(b.String())
}

func jsKey(r *rand.Rand) string {
	if r.IntN(3) == 0 {
		return jsString(r)
	}
	keys := []string{"a", "b", "type", "0", "1", "2", "10", "01", "-1", "1.5", "4294967294", "4294967295", "9007199254740993", "__proto__", "<", "é"}
	return strconv.Quote(keys[r.IntN(len(keys))])
}

func jsString(r *rand.Rand) string {
	units := []string{"a", "Z", " ", "<", ">", "&", "/", "'", "é", "€", "😀", "\u2028", "\u2029", "\ufffd", "\u007f", "\u0000", "\u0008", "\t", "\n", "\u000b", "\u000c", "\r", "\u001f", "\"", "\\",
		"\\ud800", "\\udbff", "\\udc00", "\\udfff", "\\uD83D\\uDE00", "\\ud83d\\ude00", "\\ud83d", "\\ude00\\ud83d"}
	var b strings.Builder
	b.WriteByte('"')
	for range r.IntN(8) {
		u := units[r.IntN(len(units))]
		if strings.HasPrefix(u, `\u`) {
			b.WriteString(u) // a surrogate escape: only so
			continue
		}
		c := []rune(u)[0]
		switch r.IntN(4) {
		case 0: // as an escape, in either case
			hex := fmt.Sprintf("%04x", c)
			if c > 0xFFFF {
				hi, lo := 0xD800+(c-0x10000)>>10, 0xDC00+(c-0x10000)&0x3FF
				hex = fmt.Sprintf("%04x\\u%04x", hi, lo)
			}
			if r.IntN(2) == 0 {
				hex = strings.ToUpper(hex)
			}
			b.WriteString(`\u` + hex)
			continue
		case 1: // a short escape where there is one
			if e, ok := map[rune]string{'"': `\"`, '\\': `\\`, '/': `\/`, '\b': `\b`, '\f': `\f`, '\n': `\n`, '\r': `\r`, '\t': `\t`}[c]; ok {
				b.WriteString(e)
				continue
			}
		}
		switch {
		case c < 0x20:
			fmt.Fprintf(&b, `\u%04x`, c)
		case c == '"' || c == '\\':
			b.WriteString(`\` + string(c))
		default:
			b.WriteRune(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func jsNumber(r *rand.Rand) string {
	spellings := []string{"0", "-0", "0.0", "-0e0", "1", "1.0", "1.50", "1e2", "1E2", "1e+2", "100e-2", "1e21", "1e20", "999999999999999999999", "1e-6", "1e-7", "0.000001", "0.0000001", "1.5e-7",
		"9007199254740993", "9007199254740992", "-9007199254740993", "123456789012345678", "1e308", "1.7976931348623157e308", "1e309", "-1e400", "1e-400", "5e-324", "2.5e-324", "0.1", "0.30000000000000004", "12345678901234567890123"}
	switch r.IntN(4) {
	case 0:
		return strconv.FormatInt(r.Int64N(1<<62)-1<<61, 10)
	case 1:
		return strconv.FormatFloat(r.NormFloat64()*math.Pow10(r.IntN(60)-30), []byte("efg")[r.IntN(3)], -1, 64)
	}
	return spellings[r.IntN(len(spellings))]
}

// FuzzJSONStringify: any JSON text encoding/json accepts is written
// again, as JSON, and writing that again changes nothing; what it does
// not accept is an error, never a panic.
func FuzzJSONStringify(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.50,"\u003c\ud800"],"0":-0}`, `"\u2028"`, `1e400`, ` [ ] `, `{"a":1,"a":2}`, "\"\xff\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, err := host.JSONStringify(raw)
		if valid := json.Valid(raw); valid != (err == nil) {
			t.Fatalf("json.Valid %v, JSONStringify error %v: %q", valid, err, raw)
		}
		if err != nil {
			return
		}
		if !json.Valid(got) {
			t.Fatalf("JSONStringify(%q) = %q, not JSON", raw, got)
		}
		again, err := host.JSONStringify(got)
		if err != nil || !bytes.Equal(again, got) {
			t.Fatalf("JSONStringify(%q) = %q, and again %q (%v)", raw, got, again, err)
		}
	})
}

// MarshalJS writes what JSON.stringify writes for Go values that
// encoding/json writes otherwise.
func TestMarshalJS(t *testing.T) {
	got, err := host.MarshalJS(map[string]any{"b": "<&>\u2028", "a": -0.0, "1": json.RawMessage(`1.0`)})
	if want := "{\"1\":1,\"a\":0,\"b\":\"<&>\u2028\"}"; err != nil || string(got) != want {
		t.Errorf("MarshalJS = %s, %v; want %s", got, err, want)
	}
}

// EditObject sets members where they are and adds new ones last, as a
// JavaScript assignment does.
func TestEditObject(t *testing.T) {
	for _, c := range []struct {
		in   string
		set  []host.Member
		del  []string
		want string
	}{
		{`{"type":"x","a":1}`, []host.Member{{"id", json.RawMessage(`"i"`)}, {"parentId", json.RawMessage(`null`)}}, nil, `{"type":"x","a":1,"id":"i","parentId":null}`},
		{`{"parentId":"p","type":"x","id":"o"}`, []host.Member{{"id", json.RawMessage(`"i"`)}, {"parentId", json.RawMessage(`null`)}}, nil, `{"parentId":null,"type":"x","id":"i"}`},
		{`{"a":1,"k":2,"b":3}`, []host.Member{{"n", json.RawMessage(`"<"`)}}, []string{"k"}, `{"a":1,"b":3,"n":"<"}`},
		{`{"role":"hookMessage","x":"\u003c"}`, []host.Member{{"role", json.RawMessage(`"custom"`)}}, nil, `{"role":"custom","x":"<"}`},
	} {
		got, err := host.EditObject([]byte(c.in), c.set, c.del...)
		if err != nil || string(got) != c.want {
			t.Errorf("EditObject(%s) = %s, %v; want %s", c.in, got, err, c.want)
		}
	}
	if _, err := host.EditObject([]byte(`[1]`), nil); err == nil {
		t.Error("EditObject of an array: no error")
	}
}
