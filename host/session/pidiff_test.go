package session_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/hosttest"
	"github.com/wasmagent/wasmagent/host/session"
)

// TestSessionMatchesPiGenerated writes generated session files in pi's
// format (generateSessionFile: every entry type, messages in the shapes
// pi passes on untouched, branches, older versions), loads each with
// pi-coding-agent 0.73.1's SessionManager (testdata session_diff.mjs, one
// node process for all) and with ours, and compares what each sees: the
// messages of the current branch, its thinking level and the session's
// name; and for a file of an older version, the file each rewrites when
// opening it (entry ids, which each side draws at random, numbered by
// first appearance).
//
// WASMAGENT_SESSIONDIFF_N sets the number of files (default 60),
// WASMAGENT_SESSIONDIFF_SEED the first seed (default 1).
func TestSessionMatchesPiGenerated(t *testing.T) {
	node := needPi(t)
	t.Parallel()
	n, seed := hosttest.EnvInt(t, "WASMAGENT_SESSIONDIFF_N", 60), hosttest.EnvInt(t, "WASMAGENT_SESSIONDIFF_SEED", 1)
	dir := t.TempDir()
	var list bytes.Buffer
	files := make([]string, n)
	for i := range n {
		files[i] = generateSessionFile(uint64(seed + i))
		for _, side := range []string{"pi", "ours"} {
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("%d-%s.jsonl", i, side)), []byte(files[i]), 0o600)
		}
		fmt.Fprintln(&list, filepath.Join(dir, fmt.Sprintf("%d-pi.jsonl", i)))
	}
	cmd := exec.Command("node", filepath.Join(node, "session_diff.mjs"))
	cmd.Stdin = &list
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("session_diff.mjs: %v\n%s", err, stderr.Bytes())
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 64<<20)
	failures := 0
	for i := 0; sc.Scan(); i++ {
		var pi piSeen
		if err := json.Unmarshal(sc.Bytes(), &pi); err != nil || pi.Error != "" {
			t.Fatalf("seed %d: pi: %v %s\n%s", seed+i, err, pi.Error, files[i])
		}
		ours := oursSeen(t, filepath.Join(dir, fmt.Sprintf("%d-ours.jsonl", i)))
		if d := diffSeen(&ours, &pi); d != "" {
			t.Errorf("seed %d: wasmagent reads the session otherwise than pi\n%s\nfile:\n%s\nreplay: WASMAGENT_SESSIONDIFF_SEED=%d WASMAGENT_SESSIONDIFF_N=1 go test ./host/session -run SessionMatchesPiGenerated",
				seed+i, d, files[i], seed+i)
			if failures++; failures == 3 {
				t.Fatal("stopping after 3 differing files")
			}
		}
	}
	t.Logf("%d of %d session files (seeds %d…%d) read as pi reads them", n-failures, n, seed, seed+n-1)
}

// piSeen is what one side sees of a session file (session_diff.mjs).
type piSeen struct {
	Name          string            `json:"name"`
	ThinkingLevel string            `json:"thinkingLevel"`
	Messages      []json.RawMessage `json:"messages"`
	File          string            `json:"file"`
	Rewritten     string            `json:"rewritten"`
	Error         string            `json:"error"`
}

// oursSeen reads the file as wasmagent does: decoded, the current
// branch's view; then opened for writing (a file of an older version is
// rewritten).
func oursSeen(t *testing.T, path string) piSeen {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := session.Decode(data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	v := tr.View(tr.Leaf())
	seen := piSeen{Name: tr.Name(), ThinkingLevel: v.ThinkingLevel}
	if seen.ThinkingLevel == "" {
		seen.ThinkingLevel = "off" // pi's when the branch records none
	}
	for _, m := range v.Messages {
		b, err := host.MarshalJS(m)
		if err != nil {
			t.Fatalf("%v: %#v", err, m)
		}
		seen.Messages = append(seen.Messages, b)
	}
	back, err := session.EncodeLines(&tr.Header, tr.Entries)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	seen.Rewritten = string(back)
	store := &session.FileStore{Dir: filepath.Dir(path), NoSync: true, NoListCache: true}
	l, _, err := store.Open(context.Background(), path)
	if err == nil {
		l.Close()
	}
	after, _ := os.ReadFile(path)
	seen.File = string(after)
	return seen
}

// diffSeen returns "" when the two sides saw the same, byte for byte,
// else the first difference: the messages as JSON.stringify writes them,
// the file as opened and the file written back, entry ids (which each
// side draws at random where it upgrades) numbered by first appearance.
func diffSeen(ours, pi *piSeen) string {
	if ours.Name != pi.Name || ours.ThinkingLevel != pi.ThinkingLevel {
		return fmt.Sprintf("name %q thinking level %q; pi: name %q thinking level %q", ours.Name, ours.ThinkingLevel, pi.Name, pi.ThinkingLevel)
	}
	for i := range max(len(ours.Messages), len(pi.Messages)) {
		var o, p string
		if i < len(ours.Messages) {
			o = string(ours.Messages[i])
		}
		if i < len(pi.Messages) {
			p = string(pi.Messages[i])
		}
		if o != p {
			return fmt.Sprintf("message %d of %d (pi: %d) differs\n ours: %s\n   pi: %s", i+1, len(ours.Messages), len(pi.Messages), o, p)
		}
	}
	if d := diffLines("the file as opened", ours.File, pi.File); d != "" {
		return d
	}
	return diffLines("the file written back", ours.Rewritten, pi.Rewritten)
}

// diffLines compares two session files line by line, byte for byte, but
// for the entry ids, numbered by first appearance (renumberIDs).
func diffLines(what, ours, pi string) string {
	ol, pl := renumberIDs(ours), renumberIDs(pi)
	for i := range max(len(ol), len(pl)) {
		var o, p string
		if i < len(ol) {
			o = ol[i]
		}
		if i < len(pl) {
			p = pl[i]
		}
		if o != p {
			return fmt.Sprintf("%s: line %d of %d (pi: %d) differs\n ours: %s\n   pi: %s", what, i+1, len(ol), len(pl), o, p)
		}
	}
	return ""
}

// renumberIDs splits file into lines and replaces each entry id (the id
// of each line but the header) by "<entry n>", n counting first
// appearances, wherever it is quoted, leaving every other byte.
func renumberIDs(file string) []string {
	lines := strings.Split(strings.TrimSuffix(file, "\n"), "\n")
	var pairs []string
	for _, l := range lines {
		var e struct {
			Type string `json:"type"`
			ID   any    `json:"id"`
		}
		if json.Unmarshal([]byte(l), &e) != nil || e.Type == "session" {
			continue
		}
		if id, ok := e.ID.(string); ok && id != "" {
			q, _ := json.Marshal(id)
			pairs = append(pairs, string(q), fmt.Sprintf(`"<entry %d>"`, len(pairs)/2+1))
		}
	}
	r := strings.NewReplacer(pairs...)
	for i, l := range lines {
		lines[i] = r.Replace(l)
	}
	return lines
}

// generateSessionFile is the session file of seed (hosttest.Given).
func generateSessionFile(seed uint64) string {
	return hosttest.Given{R: rand.New(rand.NewPCG(seed, 0x5e5510))}.SessionFile(fmt.Sprintf("0190a000-0000-7000-8000-%012d", seed), false)
}
