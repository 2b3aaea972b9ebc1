package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/config"
	"github.com/wasmagent/wasmagent/host/serve"
	"github.com/wasmagent/wasmagent/host/serve/web"
	"github.com/wasmagent/wasmagent/host/session"
	"github.com/wasmagent/wasmagent/internal/cdp"
	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

// hostile is text a model or a tool could send to take over the page.
const hostile = `<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>`

// browserScript: a parallel batch of two slow calls; a sequential batch
// (echo is configured sequential, which makes its whole batch so) of two
// slow calls around an echo of hostile text; a failing call; hostile text.
var browserScript = `{"chunkTokens": 4, "turns": [
 {"content": [
   {"type": "text", "text": "Two at once."},
   {"type": "toolCall", "id": "p1", "name": "sleep", "arguments": {"ms": 1500}},
   {"type": "toolCall", "id": "p2", "name": "sleep", "arguments": {"ms": 1500}}]},
 {"content": [
   {"type": "toolCall", "id": "s1", "name": "sleep", "arguments": {"ms": 400}},
   {"type": "toolCall", "id": "s2", "name": "echo", "arguments": {"text": ` + jsonString(hostile) + `}},
   {"type": "toolCall", "id": "s3", "name": "sleep", "arguments": {"ms": 400}}]},
 {"content": [{"type": "toolCall", "id": "f1", "name": "fail", "arguments": {"message": "it broke"}}]},
 {"content": ` + jsonString("All done. "+hostile) + `}
]}`

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

const browserToken = "correct-horse-battery-staple"

// server runs "wasmagent serve" in the test, wired from an agent.toml as
// the command wires it: the scripted model, the probe plugin (its sleep
// tool sleeps in the sandbox: the runtime grants time), the page at /.
//
// Every event stream is cut after cutAfter, so that the page reconnects,
// with Last-Event-ID, several times during the run; resumes counts the
// requests that carried one.
func server(t *testing.T, cutAfter time.Duration, resumes *atomic.Int32) *httptest.Server {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "script.json"), []byte(browserScript), 0o644); err != nil {
		t.Fatal(err)
	}
	toml := fmt.Sprintf(`[model]
provider = "scripted"
script = "script.json"
[runtime]
cache_dir = %q
[[tool]]
plugin = %q
sequential = ["echo"]
`, wasmbuild.TestCacheDir(), wasmbuild.ForTest(t, "internal/testplugins/probe"))
	path := filepath.Join(dir, "agent.toml")
	if err := os.WriteFile(path, []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := f.Wire(context.Background(), config.WireOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	info := host.ModelInfo{Provider: "scripted", ID: "scripted"}
	if d, ok := s.Model.(host.ModelDescriber); ok {
		info = d.ModelInfo()
	}
	backend, err := serve.NewLocal(serve.LocalOptions{
		Root: filepath.Join(dir, "serve"), NoSync: true, Events: s.Events,
		Session: session.Options{Agent: s.Options, Models: []session.Model{{Info: info, Model: s.Model}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	tokens, err := serve.ParseTokens([]byte("alice "+serve.HashToken(browserToken)), "the test's tokens")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := serve.New(serve.Options{Backend: backend, Web: web.Handler(), Heartbeat: time.Second, Tokens: tokens})
	if err != nil {
		t.Fatal(err)
	}
	api := srv.Handler()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/events") {
			if r.Header.Get("Last-Event-ID") != "" {
				resumes.Add(1)
			}
			ctx, cancel := context.WithTimeout(r.Context(), cutAfter)
			defer cancel()
			r = r.WithContext(ctx)
		}
		api.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		srv.Stop()
		hs.Close()
		backend.Close()
	})
	return hs
}

func api(t *testing.T, hs *httptest.Server, method, path, body string) []byte {
	t.Helper()
	req, err := http.NewRequest(method, hs.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+browserToken)
	req.Header.Set("Content-Type", "application/json")
	res, err := hs.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out json.RawMessage
	json.NewDecoder(res.Body).Decode(&out) //nolint:errcheck // checked by the status
	if res.StatusCode/100 != 2 {
		t.Fatalf("%s %s: %d %s", method, path, res.StatusCode, out)
	}
	return out
}

// artifact is where the screenshot is kept: testdata/out/ (git-ignored),
// or $WASMAGENT_TEST_ARTIFACTS when set (CI).
func artifact(t *testing.T, name string, data []byte) {
	t.Helper()
	dir := os.Getenv("WASMAGENT_TEST_ARTIFACTS")
	if dir == "" {
		dir, _ = filepath.Abs(filepath.Join("testdata", "out"))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Errorf("keeping %s: %v", name, err)
		return
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Errorf("keeping %s: %v", name, err)
		return
	}
	t.Logf("screenshot: %s", p)
}

type rect struct {
	ID, State          string
	Left, Right, Width float64
	Top, Height        float64
}

// bars reads the timeline's call bars as the browser lays them out.
const barsJS = `[...document.querySelectorAll('#turns a.bar.call')].map((a) => {
  const r = a.getBoundingClientRect();
  return {ID: a.dataset.callId, State: a.dataset.state, Left: r.left, Right: r.right, Width: r.width, Top: r.top, Height: r.height};
})`

const runningJS = `(() => { const s = new Set([...document.querySelectorAll('#turns a.bar.call[data-state="running"]')].map((a) => a.dataset.callId)); return %s; })()`

// TestBrowserTimeline opens the page in headless Chromium during a
// scripted session and checks what a person would see: the parallel
// calls running side by side, the sequential ones one after another,
// marks, live updates through dropped connections (nothing lost, nothing
// twice), hostile text shown as text, and the same picture after a
// reload (replayed from the journal).
func TestBrowserTimeline(t *testing.T) {
	chromium := cdp.Find()
	if chromium == "" {
		t.Skip("Chromium is not installed: the page is not checked in a browser (Debian: apt-get install chromium; .ci/run installs it)")
	}
	if testing.Short() {
		t.Skip("starts a browser and builds a plugin")
	}
	var resumes atomic.Int32
	hs := server(t, time.Second, &resumes)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	b, err := cdp.Start(ctx, cdp.Options{Path: chromium, UserDataDir: t.TempDir(), Width: 1400, Height: 1000})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	page, err := b.NewPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, l := range page.Log() {
			t.Log("page: " + l)
		}
	}()
	step := func(what string, d time.Duration, expr, describe string) {
		t.Helper()
		c, cancel := context.WithTimeout(ctx, d)
		defer cancel()
		if err := page.WaitFor(c, expr, describe); err != nil {
			if png, err := page.Screenshot(ctx); err == nil {
				artifact(t, "timeline-failed.png", png)
			}
			t.Fatalf("%s: %v", what, err)
		}
	}
	eval := func(expr string, out any) {
		t.Helper()
		if err := page.Eval(ctx, expr, out); err != nil {
			t.Fatal(err)
		}
	}

	// The token, typed into the form as a person would.
	if err := page.Navigate(ctx, hs.URL+"/"); err != nil {
		t.Fatal(err)
	}
	step("the page loads and asks for a token", 20*time.Second, `/needs a token/.test(document.getElementById('auth-status').textContent)`, `document.body.innerText`)
	typeToken := func(tok string) {
		t.Helper()
		eval(fmt.Sprintf(`(() => { document.getElementById('token').value = %s; document.getElementById('token-form').requestSubmit(); })()`, jsonString(tok)), nil)
	}
	typeToken("wrong")
	step("a wrong token is refused, saying so", 10*time.Second, `/refused this token/.test(document.getElementById('auth-status').textContent)`, `document.getElementById('auth-status').textContent`)
	typeToken(browserToken)
	step("the token is kept for the tab", 10*time.Second, `sessionStorage.getItem('wasmagent.token') === `+jsonString(browserToken), ``)

	var created serve.SessionInfo
	if err := json.Unmarshal(api(t, hs, "POST", "/v1/sessions", `{"name": "browser test"}`), &created); err != nil {
		t.Fatal(err)
	}
	eval(`document.getElementById('refresh').click()`, nil)
	link := fmt.Sprintf(`document.querySelector('#sessions a[href="#session=%s"]')`, created.ID)
	step("the new session is listed", 10*time.Second, link, `document.getElementById('sessions').innerText`)
	eval(link+`.click()`, nil)
	step("the page follows the session", 10*time.Second, `document.body.dataset.stream === 'open'`, `document.getElementById('conn').textContent`)

	api(t, hs, "POST", "/v1/sessions/"+created.ID+"/prompt", `{"message": "Go."}`)

	// Live: both calls of the parallel batch are running at once.
	step("the parallel calls run side by side, live", 60*time.Second, fmt.Sprintf(runningJS, `s.has('p1') && s.has('p2')`), barsJS)
	var motion string
	eval(`getComputedStyle(document.querySelector('#turns a.bar.call.running')).animationName`, &motion)
	if motion != "none" {
		t.Errorf("a running bar moves (animation %q) for a user who asked for reduced motion", motion)
	}
	step("the run ends", 90*time.Second, `document.getElementById('run-state').textContent.startsWith('The agent is idle') && document.querySelectorAll('#turns a.bar.call[data-state="done"]').length === 6`,
		`[document.getElementById('run-state').textContent, document.getElementById('conn').textContent]`)
	eval(`new Promise((r) => setTimeout(r, 200))`, nil) // the last draw

	var bars []rect
	eval(barsJS, &bars)
	byID := map[string]rect{}
	for _, r := range bars {
		byID[r.ID] = r
		if r.Width < 4 || r.Height < 4 {
			t.Errorf("bar %s is %.1f×%.1f px: not visible", r.ID, r.Width, r.Height)
		}
	}
	if len(byID) != 6 {
		t.Fatalf("bars %+v, want p1 p2 s1 s2 s3 f1", bars)
	}
	p1, p2 := byID["p1"], byID["p2"]
	if !(p2.Left < p1.Right-4 && p1.Left < p2.Right-4) {
		t.Errorf("the parallel calls do not overlap: p1 %.1f–%.1f, p2 %.1f–%.1f", p1.Left, p1.Right, p2.Left, p2.Right)
	}
	for _, pair := range [][2]string{{"s1", "s2"}, {"s2", "s3"}} {
		a, c := byID[pair[0]], byID[pair[1]]
		if a.Right > c.Left+0.5 {
			t.Errorf("the sequential calls %s (%.1f–%.1f) and %s (%.1f–%.1f) overlap", pair[0], a.Left, a.Right, pair[1], c.Left, c.Right)
		}
	}
	// Dropped connections lost and repeated nothing: each message is
	// shown once (user 1, model 4, results 6).
	var shown int
	eval(`document.querySelectorAll('#conversation > li.msg').length`, &shown)
	if shown != 11 {
		t.Errorf("%d messages in the conversation, want 11", shown)
	}
	if n := resumes.Load(); n < 1 {
		t.Errorf("the page never resumed with Last-Event-ID; the streams were cut every second of a run of several")
	}
	var marks map[string]string
	eval(`Object.fromEntries([...document.querySelectorAll('#turns a.bar.call')].map((a) => [a.dataset.callId, a.className]))`, &marks)
	if !strings.Contains(marks["f1"], "error") || strings.Contains(marks["p1"], "error") {
		t.Errorf("error marks: %v", marks)
	}

	// From the keyboard: Enter on a bar brings focus to its call in the
	// conversation.
	eval(`document.querySelector('#turns a.bar.call[data-call-id="s3"]').focus()`, nil)
	if err := page.Press(ctx, "Enter", 13); err != nil {
		t.Fatal(err)
	}
	step("Enter on a bar leads to its call", 5*time.Second,
		`document.activeElement.classList.contains('toolcall') && document.activeElement.textContent.includes('s3') && location.hash === '#session=`+created.ID+`'`,
		`[document.activeElement.outerHTML.slice(0, 200), location.hash]`)

	// Hostile text is shown, not run.
	var safe struct {
		Pwned    any
		Elements int
		Shown    bool
	}
	eval(fmt.Sprintf(`({Pwned: window.__pwned ?? null, Elements: document.querySelectorAll('#conversation img, #conversation script, #turns img').length,
  Shown: document.getElementById('conversation').textContent.split(%s).length - 1 === 2})`, jsonString(hostile)), &safe)
	if safe.Pwned != nil || safe.Elements != 0 || !safe.Shown {
		t.Errorf("hostile text: %+v (want it shown as text twice, in the echo's result and the model's answer; nothing run, no element made)", safe)
	}

	png, err := page.Screenshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	artifact(t, "timeline.png", png)
	if _, err := page.Call(ctx, "Emulation.setEmulatedMedia", map[string]any{"features": []map[string]string{{"name": "prefers-color-scheme", "value": "dark"}}}); err != nil {
		t.Fatal(err)
	}
	if png, err = page.Screenshot(ctx); err != nil {
		t.Fatal(err)
	}
	artifact(t, "timeline-dark.png", png)

	// A reload replays the session from its journal: the same picture.
	if err := page.Navigate(ctx, hs.URL+"/#session="+created.ID); err != nil {
		t.Fatal(err)
	}
	step("the reloaded page shows the session again", 20*time.Second, `document.querySelectorAll('#turns a.bar.call[data-state="done"]').length === 6`, barsJS)
	eval(`new Promise((r) => setTimeout(r, 200))`, nil)
	var again []rect
	eval(barsJS, &again)
	// Across, not down: the page above the timeline may be scrolled.
	across := func(rs []rect) string {
		var b strings.Builder
		for _, r := range rs {
			fmt.Fprintf(&b, "%s %s %.1f–%.1f; ", r.ID, r.State, r.Left, r.Right)
		}
		return b.String()
	}
	if across(again) != across(bars) {
		t.Errorf("after a reload the bars are\n%s\nnot\n%s", across(again), across(bars))
	}

	for _, l := range page.Log() {
		if strings.HasPrefix(l, "exception") || strings.Contains(l, "Content Security Policy") || strings.Contains(l, "Refused") {
			t.Errorf("the page said: %s", l)
		}
	}
}
