package cli

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
)

func TestParseDir(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "file"), nil, 0o644)
	t.Chdir(dir)
	for _, c := range []struct {
		in    string
		host  string
		guest string
		write bool
		err   string
	}{
		{in: ".:/data", host: dir, guest: "/data"},
		{in: "./:/data/:rw", host: dir, guest: "/data", write: true},
		{in: dir + ":/w:ro", host: dir, guest: "/w"},
		{in: "nope:/data", err: "does not exist"},
		{in: "file:/data", err: "is not a directory"},
		{in: ".:data", err: "must be absolute"},
		{in: ".", err: "write HOST:GUEST"},
		{in: ".:/a:rx", err: "write HOST:GUEST"},
		{in: ":/a", err: "write HOST:GUEST"},
		{in: ".:/a:rw:x", err: "write HOST:GUEST"},
		{in: "~/notes:/work", err: "~ is not expanded here: write --dir ~/notes:/work (a space, not =,"},
		{in: "~:/work", err: "~ is not expanded here"},
	} {
		d, err := parseDir(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || !strings.Contains(err.Error(), c.in) {
				t.Errorf("%q: error %v, want one with %q naming the flag", c.in, err, c.err)
			}
			continue
		}
		if err != nil || d.Host != c.host || d.Guest != c.guest || d.Write != c.write {
			t.Errorf("%q: %+v, %v", c.in, d, err)
		}
	}
}

func FuzzParseDir(f *testing.F) {
	for _, s := range []string{".:/data", "/tmp:/x:rw", "a:b:c", "::", ":/:ro"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := parseDir(s)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "--dir ") {
				t.Fatalf("%q: %v does not name the flag", s, err)
			}
			return
		}
		if !filepath.IsAbs(d.Host) || !strings.HasPrefix(d.Guest, "/") {
			t.Fatalf("%q: %+v", s, d)
		}
	})
}

func TestRefuseForeignFlags(t *testing.T) {
	for _, args := range [][]string{{"--config", "k=v"}, {"-config=k=v"}, {"x.wasm", "--config", "a"}} {
		if err := refuseForeignFlags(args); err == nil || !strings.Contains(err.Error(), "--set KEY=VALUE") {
			t.Errorf("%q: %v", args, err)
		}
	}
	for _, args := range [][]string{{"--set", "config=1"}, {"x.wasm", "t", "--", "--config"}} {
		if err := refuseForeignFlags(args); err != nil {
			t.Errorf("%q: %v", args, err)
		}
	}
}

// The prompt comes from the arguments, with stdin's content where one is
// "-", or from stdin alone when there are none and stdin is not a
// terminal. Arguments without "-" never read stdin.
func TestReadPrompt(t *testing.T) {
	for _, c := range []struct {
		args     []string
		stdin    string
		terminal bool
		want     string
		err      string
	}{
		{args: []string{"a", "b"}, stdin: "never read", want: "a b"},
		{args: []string{"-", "review", "this"}, stdin: "diff --git a b\n+x\n", want: "diff --git a b\n+x\n\nreview this"},
		{args: []string{"review", "this", "-"}, stdin: "diff\n", want: "review this\n\ndiff"},
		{args: []string{"before", "-", "after"}, stdin: "middle\n", want: "before\n\nmiddle\n\nafter"},
		{args: []string{"review", "-"}, stdin: " \n", want: "review"},
		{args: []string{"-"}, stdin: "only stdin\n", want: "only stdin"},
		{args: []string{"-"}, stdin: "from <stdin> & co\n", want: "from <stdin> & co"},
		{args: []string{"-"}, stdin: "typed", terminal: true, want: "typed"},
		{args: nil, stdin: "piped\nlines\n", want: "piped\nlines"},
		{args: nil, stdin: "never read", terminal: true, err: "no prompt"},
		{args: nil, stdin: " \n", err: "stdin was empty"},
		{args: []string{"-", " "}, stdin: "\n", err: "stdin was empty"},
		{args: []string{"-", "-"}, stdin: "x", err: "once"},
		{args: []string{" "}, err: "no prompt"},
	} {
		stdin := &countingReader{r: strings.NewReader(c.stdin)}
		got, err := readPrompt(c.args, Env{Stdin: stdin, StdinTerminal: c.terminal})
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q %q: %q, %v; want error %q", c.args, c.stdin, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q %q: %q, %v; want %q", c.args, c.stdin, got, err, c.want)
		}
		if c.stdin == "never read" && stdin.reads > 0 {
			t.Errorf("%q: stdin was read", c.args)
		}
	}
	_, err := readPrompt([]string{"-"}, Env{Stdin: iotest.ErrReader(errors.New("boom"))})
	if err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("read error: %v", err)
	}
	_, err = readPrompt(nil, Env{Stdin: io.LimitReader(zeros{}, maxPrompt+10)})
	if err == nil || !strings.Contains(err.Error(), "MiB") {
		t.Errorf("a huge prompt: %v", err)
	}
}

type countingReader struct {
	r     io.Reader
	reads int
}

func (c *countingReader) Read(p []byte) (int, error) { c.reads++; return c.r.Read(p) }

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

// Imports are grouped by module, in first-seen order, sorted, once each.
func TestPrintImports(t *testing.T) {
	var b bytes.Buffer
	printImports(&b, []string{"wasi_snapshot_preview1.fd_write", "extism:host/env.output_set", "wasi_snapshot_preview1.args_get", "wasi_snapshot_preview1.fd_write", "extism:host/env.alloc"})
	want := "imports  wasi_snapshot_preview1  args_get fd_write\n         extism:host/env         alloc output_set\n"
	if b.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	printImports(&b, nil)
	if b.String() != "imports  (none)\n" {
		t.Fatalf("%q", b.String())
	}
}

// ctrlCReader turns every Ctrl-C into ctrlCKey and passes the rest as it
// is, whatever the read sizes.
func FuzzCtrlCReader(f *testing.F) {
	f.Add([]byte("ab\x03c\x03\x03"), uint8(1))
	f.Add([]byte("\x1b[A\x03"), uint8(7))
	f.Fuzz(func(t *testing.T, in []byte, size uint8) {
		r := &ctrlCReader{r: iotest.OneByteReader(bytes.NewReader(in))}
		var got []byte
		buf := make([]byte, int(size)+1)
		for {
			n, err := r.Read(buf)
			got = append(got, buf[:n]...)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		want := bytes.ReplaceAll(in, []byte{3}, []byte(string(ctrlCKey)))
		if !bytes.Equal(got, want) {
			t.Fatalf("%q → %q, want %q", in, got, want)
		}
	})
}
