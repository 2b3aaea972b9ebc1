package wasmbuild

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// CommandForTest builds the Go command pkg of this module (relative to the
// module root, e.g. "cmd/wasmagent") for the host and returns the path of
// the executable; see Command.
func CommandForTest(tb testing.TB, pkg string) string {
	tb.Helper()
	path, err := Command(pkg)
	if err != nil {
		tb.Fatal(err)
	}
	return path
}

// Command builds the Go command pkg once per process and returns the path
// of an executable that no later build changes. The tests of several
// packages run wasmagent as a child process; each built its own copy,
// and go build links a command again for every new output file (the link
// of wasmagent, some 70 MB, is the slow part of a warm build). Here every
// process of every run builds into one file per checkout, under a lock, so
// go build finds it up to date and skips the link unless a source
// changed; the file handed out is a copy of that build named for its
// content, so a rebuild never rewrites an executable another test process
// may be starting.
func Command(pkg string) (string, error) {
	pkg = cleanPkg(pkg)
	mu.Lock()
	r := built["cmd:"+pkg]
	if r == nil {
		r = &buildResult{}
		built["cmd:"+pkg] = r
	}
	mu.Unlock()
	r.once.Do(func() { r.path, r.err = buildCommand(pkg) })
	return r.path, r.err
}

func buildCommand(pkg string) (string, error) {
	root, err := ModuleRoot()
	if err != nil {
		return "", err
	}
	return buildCommandIn(root, filepath.Join(cacheDir(), "testcommands"), pkg)
}

// buildCommandIn is buildCommand for the module at root, building into
// dir.
func buildCommandIn(root, dir, pkg string) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	pkg = cleanPkg(pkg)
	name := filepath.Base(pkg) + "-" + shortHash(root+"\x00"+pkg)
	unlock, err := lockFile(filepath.Join(dir, name+".lock"))
	if err != nil {
		return "", err
	}
	defer unlock()
	target := filepath.Join(dir, name+".build")
	env := hostEnv(os.Environ())
	// The stamp (stamp.go) notes the build's hash: a build skipped
	// hands out the executable published for it, if it is still there.
	key, keyErr := sourceKey(root, pkg, []string{"host", TestLinkFlags()}, env)
	if sum, ok := upToDate(key, target); keyErr == nil && ok {
		published := filepath.Join(dir, name+"-"+sum)
		if fi, err := os.Stat(published); err == nil && fi.Mode().IsRegular() {
			MarkUsed(filepath.Join(dir, name+".lock"))
			return published, nil
		}
	}
	removeStamp(target)
	cmd := exec.Command(GoTool(), "build", TestLinkFlags(), "-o", target, "./"+pkg)
	cmd.Dir = root
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build %s: %v\n%s", pkg, err, out.String())
	}
	sum, err := fileHash(target)
	if err != nil {
		return "", err
	}
	if keyErr == nil {
		writeStamp(key, target, sum)
	}
	published := filepath.Join(dir, name+"-"+sum)
	if _, err := os.Stat(published); err == nil {
		return published, nil
	}
	if err := publish(target, published); err != nil {
		return "", err
	}
	// Earlier builds of this command are out of date: remove those
	// published a while ago (a test process of a run still going, started
	// before a source changed, may be about to start one).
	old, _ := filepath.Glob(filepath.Join(dir, name+"-*"))
	for _, o := range old {
		if fi, err := os.Stat(o); err == nil && o != published && time.Since(fi.ModTime()) > 10*time.Minute {
			os.Remove(o)
		}
	}
	return published, nil
}

// fileHash is the start of the hex sha256 of the file at path.
func fileHash(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)[:8]), nil
}

// publish copies src to dst, which appears whole. Not a hard link: when
// go build cannot rename its output into place, it rewrites the file it
// finds there, which would rewrite a link's other name too.
func publish(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return replace(dst, b, 0o700)
}

// publishIfChanged publishes src at dst unless dst holds the same bytes.
// (go build touches a file it finds up to date, so its time says nothing.)
func publishIfChanged(src, dst string) error {
	a, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if b, err := os.ReadFile(dst); err == nil && bytes.Equal(a, b) {
		return nil
	}
	return replace(dst, a, 0o600)
}

// replace writes b to dst through dst.tmp renamed into place (callers
// hold the build lock, so one temporary name is enough).
func replace(dst string, b []byte, perm os.FileMode) error {
	tmp := dst + ".tmp"
	if err := os.WriteFile(tmp, b, perm); err != nil {
		return err
	}
	return os.Rename(tmp, dst)
}

// cleanPkg is pkg, a package directory relative to the module root, in
// one spelling: "./cmd/x/" and "cmd/x" name one build.
func cleanPkg(pkg string) string {
	return strings.TrimPrefix(filepath.ToSlash(filepath.Clean(pkg)), "./")
}

// hostEnv is env for a build for this machine: a GOOS or GOARCH set for
// the plugins' builds must not leak into it.
func hostEnv(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, "GOOS=") && !strings.HasPrefix(kv, "GOARCH=") {
			out = append(out, kv)
		}
	}
	return out
}
