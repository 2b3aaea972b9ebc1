package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/internal/cli"
)

// Sessions of these tests go to a temporary state directory, never the
// user's.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "wasmagent-cli-state-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_STATE_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func runCLI(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var o, e bytes.Buffer
	code = cli.Main(context.Background(), args, cli.Env{Stdin: strings.NewReader(""), Stdout: &o, Stderr: &e})
	return o.String(), e.String(), code
}

// chdir moves the test into a fresh working directory: sessions are kept
// per directory.
func chdir(t *testing.T) {
	t.Helper()
	t.Chdir(t.TempDir())
}

// run writes a session; --continue, --session with an id prefix and
// --fork find it; sessions ls, show, export and rm act on it.
func TestRunSessions(t *testing.T) {
	chdir(t)
	cfg := scriptedConfig(t, `{"turns":[{"content":"first answer"},{"content":"second answer"},{"content":"third answer"}]}`)
	if _, e, code := runCLI(t, "run", "--config", cfg, "hello there"); code != 0 {
		t.Fatal(e)
	}
	ls, _, _ := runCLI(t, "sessions", "ls", "--config", cfg)
	lines := strings.Split(strings.TrimSpace(ls), "\n")
	if len(lines) != 2 || !strings.Contains(lines[1], "hello there") {
		t.Fatalf("ls:\n%s", ls)
	}
	// "sessions" alone (with flags or none) is ls.
	if bare, e, code := runCLI(t, "sessions", "--config", cfg); code != 0 || bare != ls {
		t.Fatalf("sessions --config: exit %d, %q, stderr %q; want ls's %q", code, bare, e, ls)
	}
	id := strings.Fields(lines[1])[0]
	// The script restarts in each process: "first answer" again.
	if _, e, code := runCLI(t, "run", "--config", cfg, "--session", id[:23], "and again"); code != 0 {
		t.Fatal(e)
	}
	md, _, code := runCLI(t, "sessions", "show", "--config", cfg, id[:23])
	if code != 0 || strings.Count(md, "## User") != 2 || !strings.Contains(md, "and again") {
		t.Fatalf("show:\n%s", md)
	}
	jsonl, _, _ := runCLI(t, "sessions", "export", "--format", "jsonl", "--config", cfg, id)
	if n := strings.Count(jsonl, "\n"); n != 5 || !strings.HasPrefix(jsonl, `{"type":"session","version":3`) {
		t.Fatalf("export jsonl (%d lines):\n%s", n, jsonl)
	}
	if _, e, code := runCLI(t, "run", "--config", cfg, "--fork", id, "forked"); code != 0 {
		t.Fatal(e)
	}
	if _, e, code := runCLI(t, "run", "--config", cfg, "--continue", "latest"); code != 0 {
		t.Fatal(e)
	}
	ls, _, _ = runCLI(t, "sessions", "ls", "--config", cfg)
	if strings.Count(ls, "\n") != 3 {
		t.Fatalf("ls after fork:\n%s", ls)
	}
	if _, e, code := runCLI(t, "sessions", "rm", "--config", cfg, id); code != 0 {
		t.Fatal(e)
	}
	// A session that is not there (said with the command that lists
	// them), a bad --format
	// (before any session is looked up) and a --config that is not there
	// are usage errors (exit 2), as run --session's.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sessions", "show", "--config", cfg, id}, "no such session of this directory's (wasmagent sessions ls lists them"},
		{[]string{"sessions", "rm", "--config", cfg, id}, "no such session of this directory's (wasmagent sessions ls lists them"},
		{[]string{"sessions", "export", "--config", cfg, "--format", "html", "nope"}, `--format "html": want md or jsonl`},
		{[]string{"sessions", "ls", "--config", cfg + ".typo"}, cfg + ".typo does not exist"},
		{[]string{"run", "--config", cfg, "--session", id, "x"}, "no such session of this directory's (wasmagent sessions ls lists them"},
	} {
		if _, e, code := runCLI(t, c.args...); code != cli.ExitUsage || !strings.Contains(e, c.want) {
			t.Errorf("%q: exit %d, %q; want exit 2 and %q", c.args, code, e, c.want)
		}
	}
	if _, e, code := runCLI(t, "run", "--config", cfg, "--continue", "--no-session", "x"); code != cli.ExitUsage || !strings.Contains(e, "at most one") {
		t.Fatalf("conflicting flags: %d %s", code, e)
	}
}

// --continue where no session was kept starts a new one, as pi does, and
// says so (sessions are per directory: one started elsewhere is not
// found); where one was, it says nothing.
func TestContinueWithNoSession(t *testing.T) {
	chdir(t)
	cfg := scriptedConfig(t, `{"turns":[{"content":"one"},{"content":"two"}]}`)
	_, e, code := runCLI(t, "run", "--config", cfg, "--continue", "hello")
	if wd, _ := os.Getwd(); code != cli.ExitOK || !strings.Contains(e, "note: no session of "+wd+" to continue") {
		t.Fatalf("exit %d: %q", code, e)
	}
	if _, e, code := runCLI(t, "run", "--config", cfg, "--continue", "again"); code != cli.ExitOK || strings.Contains(e, "note:") {
		t.Fatalf("a second --continue: exit %d: %q", code, e)
	}
}

// --no-session leaves nothing behind.
func TestRunNoSession(t *testing.T) {
	chdir(t)
	cfg := scriptedConfig(t, `{"turns":[{"content":"hi"}]}`)
	if _, e, code := runCLI(t, "run", "--config", cfg, "--no-session", "hello"); code != 0 {
		t.Fatal(e)
	}
	if ls, e, _ := runCLI(t, "sessions", "ls", "--config", cfg); ls != "" || !strings.Contains(e, "no sessions") {
		t.Fatalf("ls: %q %q", ls, e)
	}
}

// The [sessions] dir of agent.toml is where the files go.
func TestSessionsDirFromConfig(t *testing.T) {
	chdir(t)
	cfg := scriptedConfig(t, `{"turns":[{"content":"hi"}]}`)
	text, _ := os.ReadFile(cfg)
	os.WriteFile(cfg, append(text, "[sessions]\ndir = \"kept\"\n"...), 0o644)
	if _, e, code := runCLI(t, "run", "--config", cfg, "hello"); code != 0 {
		t.Fatal(e)
	}
	files, _ := filepath.Glob(filepath.Join(filepath.Dir(cfg), "kept", "*", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("files %v", files)
	}
}

// Chat's slash commands: /name, /session, /new, /resume with an id
// prefix (the transcript comes back), /reload between runs.
func TestChatSlashCommands(t *testing.T) {
	chdir(t)
	cfg := scriptedConfig(t, `{"turns":[{"content":"one"},{"content":"two"},{"content":"three"}]}`)
	in, feed := io.Pipe()
	var out, errOut lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- cli.Main(context.Background(), []string{"chat", "--config", cfg}, cli.Env{Stdin: in, Stdout: &out, Stderr: &errOut, Interrupt: make(chan struct{})})
	}()
	waitFor(t, &errOut, "type a prompt")
	io.WriteString(feed, "hello\n")
	waitFor(t, &out, "one")
	io.WriteString(feed, "/name greeting\n")
	waitFor(t, &errOut, `(named "greeting")`)
	io.WriteString(feed, "/session\n")
	waitFor(t, &errOut, "messages: 2 (1 user, 1 assistant")
	first := errOut.String()
	id := first[strings.Index(first, "session ")+8:]
	id = id[:strings.IndexAny(id, " \n")]
	io.WriteString(feed, "/new\n")
	waitFor(t, &errOut, "(new session ")
	io.WriteString(feed, "other\n")
	waitFor(t, &out, "two")
	io.WriteString(feed, "/resume\n")
	waitFor(t, &errOut, "/resume ID resumes one")
	// A prefix that runs into the id's random bits: ids are time-ordered
	// (UUIDv7), and two sessions made in the same millisecond share their
	// first 13 characters.
	io.WriteString(feed, "/resume "+id[:23]+"\n")
	waitFor(t, &errOut, "(resumed "+id+": 2 messages)")
	io.WriteString(feed, "/reload\n")
	waitFor(t, &errOut, "(reloaded ")
	// The reloaded configuration's scripted model starts its script again.
	io.WriteString(feed, "again\n")
	waitFor(t, &out, "one\ntwo\none\n")
	feed.Close()
	if code := <-done; code != cli.ExitOK {
		t.Fatalf("exit %d\n%s", code, errOut.String())
	}
	md, _, _ := runCLI(t, "sessions", "show", "--config", cfg, id)
	if !strings.Contains(md, "# greeting") || !strings.Contains(md, "again") || strings.Contains(md, "other") {
		t.Fatalf("resumed session:\n%s", md)
	}
}

// A session in use by another process is refused with the holder's pid.
func TestSessionInUse(t *testing.T) {
	chdir(t)
	cfg := scriptedConfig(t, `{"turns":[{"content":"one","delayMs":30000}]}`)
	in, feed := io.Pipe()
	var out, errOut lockedBuffer
	interrupt := make(chan struct{}, 2)
	done := make(chan int, 1)
	go func() {
		done <- cli.Main(context.Background(), []string{"chat", "--config", cfg}, cli.Env{Stdin: in, Stdout: &out, Stderr: &errOut, Interrupt: interrupt})
	}()
	waitFor(t, &errOut, "type a prompt")
	io.WriteString(feed, "hello\n")
	deadline := time.Now().Add(10 * time.Second)
	var ls string
	for !strings.Contains(ls, "hello") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
		ls, _, _ = runCLI(t, "sessions", "ls", "--config", cfg)
	}
	_, e, code := runCLI(t, "run", "--config", cfg, "--continue", "x")
	if code != cli.ExitUsage || !strings.Contains(e, fmt.Sprintf("pid %d", os.Getpid())) {
		t.Fatalf("exit %d: %s", code, e)
	}
	interrupt <- struct{}{}
	interrupt <- struct{}{}
	feed.Close()
	<-done
}

// An id (or a prefix) of a session kept for another working directory is
// no session here, and the error says where it is, by the path that names
// it from anywhere.
func TestSessionOfAnotherDirectory(t *testing.T) {
	chdir(t)
	cfg := scriptedConfig(t, `{"turns":[{"content":"first answer"},{"content":"again"}]}`)
	if _, e, code := runCLI(t, "run", "--config", cfg, "hello there"); code != 0 {
		t.Fatal(e)
	}
	ls, _, _ := runCLI(t, "sessions", "--config", cfg)
	id := strings.Fields(strings.Split(ls, "\n")[1])[0]
	chdir(t)
	for _, args := range [][]string{{"sessions", "show", "--config", cfg, id[:13]}, {"run", "--config", cfg, "--session", id, "x"}} {
		_, e, code := runCLI(t, args...)
		if code != cli.ExitUsage || !strings.Contains(e, "no such session in ") || !strings.Contains(e, "sessions are kept per working directory") {
			t.Fatalf("%q: exit %d, %q", args, code, e)
		}
		path := e[strings.LastIndex(e, " ")+1 : len(e)-1]
		if !strings.HasSuffix(path, id+".jsonl") {
			t.Fatalf("%q: no path to the session: %q", args, e)
		}
		if md, e, code := runCLI(t, "sessions", "show", "--config", cfg, path); code != 0 || !strings.Contains(md, "hello there") {
			t.Fatalf("show by the path given: exit %d, %q", code, e)
		}
	}
	if _, e, _ := runCLI(t, "sessions", "show", "--config", cfg, "nope"); strings.Contains(e, "per working directory") {
		t.Fatalf("an id of no session anywhere: %q", e)
	}
}
