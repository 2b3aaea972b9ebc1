// Command probe is a test plugin: each tool does one thing the runtime's
// and the host's tests look at (isolation, sleeping, spinning, panicking,
// big outputs, updates, configuration, files, HTTP). It is also a
// beforeToolCall and afterToolCall hook.
package main

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/wasmagent/wasmagent/sdk"
)

// State that must never survive from one call to the next.
var (
	counter int
	residue [16]byte
)

type empty struct{}

func init() {
	sdk.SetInfo(sdk.Info{Name: "probe", Version: "1.0.0", Needs: &sdk.Needs{
		Config: []sdk.ConfigNeed{{Key: "greeting", Optional: true, Why: "the config tool reads it"}},
	}})
	echo := sdk.NewTool("echo", "Returns its text.", func(c *sdk.Call, a struct {
		Text string `json:"text" description:"what to return"`
	}) (*sdk.Result, error) {
		return sdk.Text(a.Text).WithDetails(map[string]any{"id": c.ID}), nil
	})
	yes, no := true, false
	echo.Annotations = &sdk.Annotations{ReadOnly: &yes, OpenWorld: &no}
	sdk.RegisterTool(echo)
	sdk.RegisterTool(sdk.NewTool("state", "Reports the state left by earlier calls, then leaves its own.", func(c *sdk.Call, a struct {
		Mark string `json:"mark"`
	}) (*sdk.Result, error) {
		seen := map[string]any{"counter": counter, "residue": strings.TrimRight(string(residue[:]), "\x00"), "var": string(getVar("mark"))}
		counter++
		copy(residue[:], a.Mark)
		setVar("mark", []byte(a.Mark))
		b, _ := json.Marshal(seen)
		return sdk.Text(string(b)), nil
	}))
	sdk.RegisterTool(sdk.NewTool("sleep", "Sleeps.", func(c *sdk.Call, a struct {
		Ms int `json:"ms"`
	}) (*sdk.Result, error) {
		time.Sleep(time.Duration(a.Ms) * time.Millisecond)
		return sdk.Textf("slept %d ms", a.Ms), nil
	}))
	sdk.RegisterTool(sdk.NewTool("hash", "SHA-256 of n MiB of zeros, n times over (CPU-bound work).", func(c *sdk.Call, a struct {
		MiB int `json:"mib"`
	}) (*sdk.Result, error) {
		sum := sha256.Sum256(make([]byte, a.MiB<<20))
		return sdk.Text(hex.EncodeToString(sum[:])), nil
	}))
	sdk.RegisterTool(sdk.NewTool("fib", "Recursive Fibonacci (call-heavy work).", func(c *sdk.Call, a struct {
		N int `json:"n"`
	}) (*sdk.Result, error) {
		return sdk.Textf("%d", fib(a.N)), nil
	}))
	sdk.RegisterTool(sdk.NewTool("spin", "Never returns.", func(c *sdk.Call, _ empty) (*sdk.Result, error) {
		n := 0
		for {
			n++
		}
	}))
	sdk.RegisterTool(sdk.NewTool("panic", "Panics.", func(c *sdk.Call, _ empty) (*sdk.Result, error) {
		panic("boom")
	}))
	sdk.RegisterTool(sdk.NewTool("crash", "Panics on another goroutine, which kills the plugin.", func(c *sdk.Call, _ empty) (*sdk.Result, error) {
		go func() { panic("crash on a goroutine") }()
		time.Sleep(time.Second)
		return sdk.Text("unreachable"), nil
	}))
	sdk.RegisterTool(sdk.NewTool("fail", "Returns an error.", func(c *sdk.Call, a struct {
		Message string `json:"message"`
	}) (*sdk.Result, error) {
		return nil, fmt.Errorf("%s", a.Message)
	}))
	sdk.RegisterTool(sdk.NewTool("big", "Returns a text of n bytes, or the result it is given.", func(c *sdk.Call, a struct {
		Bytes  int         `json:"bytes"`
		Result *resultArgs `json:"result,omitempty"`
	}) (*sdk.Result, error) {
		if a.Result != nil {
			return a.Result.result(), nil
		}
		return sdk.Text(strings.Repeat("x", a.Bytes)), nil
	}))
	sdk.RegisterTool(sdk.NewTool("updates", "Sends n partial results.", func(c *sdk.Call, a struct {
		N int `json:"n"`
	}) (*sdk.Result, error) {
		for i := 1; i <= a.N; i++ {
			if err := c.Update(sdk.Textf("step %d", i)); err != nil {
				return nil, err
			}
		}
		return sdk.Textf("%d updates", a.N), nil
	}))
	sdk.RegisterTool(sdk.NewTool("config", "Reads a configuration value and logs it.", func(c *sdk.Call, a struct {
		Key string `json:"key"`
	}) (*sdk.Result, error) {
		v, ok := c.Config(a.Key)
		c.Logf(sdk.LogInfo, "config %s=%q", a.Key, v)
		if !ok {
			return sdk.Textf("%s is not set", a.Key), nil
		}
		return sdk.Text(v), nil
	}))
	read := sdk.NewTool("read", "Reads a file.", func(c *sdk.Call, a struct {
		Path string `json:"path"`
	}) (*sdk.Result, error) {
		b, err := os.ReadFile(a.Path)
		if err != nil {
			return nil, err
		}
		return sdk.Text(string(b)), nil
	})
	sdk.RegisterTool(read)
	write := sdk.NewTool("write", "Writes a file.", func(c *sdk.Call, a struct {
		Path string `json:"path"`
		Text string `json:"text"`
	}) (*sdk.Result, error) {
		if err := os.WriteFile(a.Path, []byte(a.Text), 0o644); err != nil {
			return nil, err
		}
		return sdk.Textf("wrote %d bytes", len(a.Text)), nil
	})
	write.ExecutionMode = sdk.Sequential
	write.Annotations = &sdk.Annotations{Destructive: &yes}
	sdk.RegisterTool(write)
	sdk.RegisterTool(sdk.NewTool("fsop", "A file-system operation: symlink, link, rename (to becomes path), remove, mkdir, readlink, list.", func(c *sdk.Call, a struct {
		Op   string `json:"op"`
		Path string `json:"path"`
		To   string `json:"to,omitempty"`
	}) (*sdk.Result, error) {
		var err error
		out := "ok"
		switch a.Op {
		case "symlink":
			err = os.Symlink(a.To, a.Path)
		case "link":
			err = os.Link(a.To, a.Path)
		case "rename":
			err = os.Rename(a.To, a.Path)
		case "remove":
			err = os.Remove(a.Path)
		case "mkdir":
			err = os.Mkdir(a.Path, 0o755)
		case "readlink":
			out, err = os.Readlink(a.Path)
		case "list":
			var entries []os.DirEntry
			entries, err = os.ReadDir(a.Path)
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			out = strings.Join(names, ",")
		default:
			return nil, fmt.Errorf("unknown op %q", a.Op)
		}
		if err != nil {
			return nil, err
		}
		return sdk.Text(out), nil
	}))
	sdk.RegisterTool(sdk.NewTool("ambient", "Reports what the process sees around it: random bytes, the clock, arguments, environment, stdout.", func(c *sdk.Call, _ empty) (*sdk.Result, error) {
		buf := make([]byte, 16)
		rand.Read(buf)
		fmt.Println("plugin stdout line")
		fmt.Fprintln(os.Stderr, "plugin stderr line")
		b, _ := json.Marshal(map[string]any{"rand": hex.EncodeToString(buf), "now": time.Now().Unix(), "args": os.Args, "env": os.Environ()})
		return sdk.Text(string(b)), nil
	}))
	sdk.RegisterTool(sdk.NewTool("fetch", "Fetches a URL (n times, default once).", func(c *sdk.Call, a struct {
		URL string `json:"url"`
		N   int    `json:"n"`
	}) (*sdk.Result, error) {
		status, body := fetch(a.URL)
		for i := 1; i < a.N; i++ {
			status, body = fetch(a.URL)
		}
		return sdk.Textf("%d %s", status, body), nil
	}))
	sdk.RegisterBeforeToolCall(func(c *sdk.Call, in *sdk.BeforeInput) (*sdk.BeforeOutput, error) {
		var args map[string]any
		_ = json.Unmarshal(in.Args, &args)
		if args["block"] == true {
			return &sdk.BeforeOutput{Block: true, Reason: "blocked by probe: " + c.Name}, nil
		}
		if args["text"] == "hook:fail" { // for on_error
			return nil, fmt.Errorf("probe hook failed on %s", c.Name)
		}
		if args["text"] == "hook:spin" { // for on_timeout
			n := 0
			for {
				n++
			}
		}
		return nil, nil
	})
	sdk.RegisterAfterToolCall(func(c *sdk.Call, in *sdk.AfterInput) (*sdk.AfterOutput, error) {
		if len(in.Result.Content) == 0 {
			return nil, nil
		}
		content := append([]sdk.Content(nil), in.Result.Content...)
		content[0].Text += " (seen by probe)"
		return &sdk.AfterOutput{Content: content}, nil
	})
}

func fib(n int) int {
	if n < 2 {
		return n
	}
	return fib(n-1) + fib(n-2)
}

func main() {}

// resultArgs is a result as the big tool is given it: texts and data in
// base64, so that they may hold any bytes.
type resultArgs struct {
	Content []struct {
		Type     string `json:"type"`
		Text     []byte `json:"text,omitempty"`
		Data     []byte `json:"data,omitempty"`
		MimeType string `json:"mimeType,omitempty"`
	} `json:"content"`
	Details   json.RawMessage `json:"details,omitempty"`
	IsError   bool            `json:"isError,omitempty"`
	Terminate bool            `json:"terminate,omitempty"`
}

func (a *resultArgs) result() *sdk.Result {
	r := &sdk.Result{IsError: a.IsError, Terminate: a.Terminate}
	if a.Details != nil {
		r.Details = a.Details
	}
	for _, b := range a.Content {
		r.Content = append(r.Content, sdk.Content{Type: b.Type, Text: string(b.Text), Data: string(b.Data), MimeType: b.MimeType})
	}
	return r
}
