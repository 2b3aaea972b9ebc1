package wasmbuild

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Over generated caches — builds of files of mixed ages in testcommands
// and testplugins, checkouts and wazero versions of mixed ages in
// testbin and test-wazero, the runtime's own cache beside them — a trim
// removes exactly the units (a build's files, a checkout's directory, a
// version's directory) none of whose files was used within TrimAge,
// keeps everything else, and does nothing again within a day.
func TestTrimRemovesExactlyTheUnused(t *testing.T) {
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	for seed := uint64(0); seed < 60; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		root := t.TempDir()
		want := map[string]bool{} // path -> kept
		age := func() time.Duration {
			// around TrimAge, and far either side
			return time.Duration(r.Int64N(int64(3*TrimAge))) - time.Hour
		}
		write := func(p string, a time.Duration) {
			if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
				t.Fatal(err)
			}
			at := now.Add(-a)
			if err := os.Chtimes(p, at, at); err != nil {
				t.Fatal(err)
			}
		}
		hex := func(n int) string {
			const digits = "0123456789abcdef"
			b := make([]byte, n)
			for k := range b {
				b[k] = digits[r.IntN(16)]
			}
			return string(b)
		}
		// One build's files go together, and only together.
		for _, c := range []string{"testcommands", "testplugins"} {
			for i := range r.IntN(8) {
				name := fmt.Sprintf("p%d-%s", i, hex(12))
				suffixes := []string{".lock", ".build", ".build.stamp", ".wasm", ".wasm.stamp", "-" + hex(16), "-" + hex(16)}
				var files []string
				kept := false
				for _, suf := range suffixes[:1+r.IntN(len(suffixes))] {
					p := filepath.Join(root, c, name+suf)
					a := age()
					write(p, a)
					files = append(files, p)
					kept = kept || a <= TrimAge
				}
				for _, p := range files {
					want[p] = kept
				}
			}
		}
		// The runtime's own cache is the user's: never trimmed.
		for i := range r.IntN(6) {
			p := filepath.Join(root, "wazero", fmt.Sprintf("v%d", r.IntN(2)), fmt.Sprintf("e%d", i))
			write(p, age())
			want[p] = true
		}
		// A checkout's binaries, a wazero version's modules: whole.
		for _, c := range []string{"testbin", "test-wazero"} {
			for i := range r.IntN(6) {
				dir := filepath.Join(root, c, fmt.Sprintf("c%d", i))
				var files []string
				kept := false
				for j := range 1 + r.IntN(4) {
					p := filepath.Join(dir, fmt.Sprintf("b%d", j))
					if r.IntN(2) == 0 {
						p = filepath.Join(dir, "sub", fmt.Sprintf("b%d", j))
					}
					a := age()
					write(p, a)
					files = append(files, p)
					kept = kept || a <= TrimAge
				}
				for _, p := range files {
					want[p] = kept
				}
			}
		}
		freed, err := trimIn(root, now, TrimAge)
		if err != nil {
			t.Fatal(err)
		}
		removed := int64(0)
		for _, kept := range want {
			if !kept {
				removed++ // each file holds one byte
			}
		}
		if freed != removed {
			t.Fatalf("seed %d: reported %d bytes removed, want %d", seed, freed, removed)
		}
		for p, kept := range want {
			_, err := os.Stat(p)
			if kept != (err == nil) {
				t.Fatalf("seed %d: %s: kept %v, want %v", seed, p, err == nil, kept)
			}
		}
		// Within a day, nothing more goes, however old.
		late := filepath.Join(root, "testplugins", "late")
		write(late, 10*TrimAge)
		if _, err := trimIn(root, now.Add(trimEvery-time.Minute), TrimAge); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(late); err != nil {
			t.Fatalf("seed %d: trimmed again within a day", seed)
		}
		if _, err := trimIn(root, now.Add(trimEvery+time.Minute), TrimAge); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(late); err == nil {
			t.Fatalf("seed %d: not trimmed after a day", seed)
		}
	}
}

// A cache hit marks its build's lock used, so a build read every day is
// never trimmed, however long ago it was made.
func TestMarkUsedKeepsWhatIsRead(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "testplugins", "p-0123456789ab.lock")
	os.MkdirAll(filepath.Dir(p), 0o700)
	os.WriteFile(p, []byte("x"), 0o600)
	old := time.Now().Add(-2 * TrimAge)
	os.Chtimes(p, old, old)
	MarkUsed(p, filepath.Join(root, "absent"))
	if _, err := trimIn(root, time.Now(), TrimAge); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatal("an entry marked used was trimmed")
	}
}

func TestFamily(t *testing.T) {
	for name, want := range map[string]string{
		"wasmagent-1a2b3c4d5e6f.build.stamp":      "wasmagent-1a2b3c4d5e6f",
		"wasmagent-1a2b3c4d5e6f.lock":             "wasmagent-1a2b3c4d5e6f",
		"wasmagent-1a2b3c4d5e6f-0123456789abcdef": "wasmagent-1a2b3c4d5e6f",
		"calc-0d9f22003d43.wasm.stamp":            "calc-0d9f22003d43",
		"text-as-0123456789ab.wasm":               "text-as-0123456789ab",
		"wasmagent-1a2b3c4d5e6f-0123456789abcdeg": "wasmagent-1a2b3c4d5e6f-0123456789abcdeg",
		"-0123456789abcdef":                       "-0123456789abcdef",
	} {
		if got := family(name); got != want {
			t.Errorf("family(%q) = %q, want %q", name, got, want)
		}
	}
}
