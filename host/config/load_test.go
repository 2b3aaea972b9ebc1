package config_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host/config"
	"github.com/wasmagent/wasmagent/host/hosttest"
)

// Each broken configuration gives precise messages: file, line, key and
// what is wrong (testdata/broken/*.err; -update rewrites them).
func TestBrokenConfigs(t *testing.T) {
	files, _ := filepath.Glob("testdata/broken/*.toml")
	if len(files) < 10 {
		t.Fatalf("only %d broken configs", len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			_, err := config.Load(f)
			if err == nil {
				t.Fatal("no error")
			}
			hosttest.Golden(t, strings.TrimSuffix(f, ".toml")+".err", []byte(err.Error()+"\n"))
		})
	}
}

func TestMissingFile(t *testing.T) {
	_, err := config.Load("testdata/none.toml")
	if err == nil || !strings.Contains(err.Error(), "testdata/none.toml") {
		t.Fatalf("err = %v", err)
	}
}

// A good file: every key, paths made absolute relative to the file.
func TestLoad(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "prompt.md"), []byte("Be brief."), 0o644)
	os.WriteFile(filepath.Join(dir, "p.wasm"), nil, 0o644)
	os.Mkdir(filepath.Join(dir, "work"), 0o755)
	path := filepath.Join(dir, "agent.toml")
	os.WriteFile(path, []byte(`
[model]
provider = "openai"
name = "gpt-4o-mini"
base_url = "http://localhost:11434/v1"
api_key_env = "MY_KEY"
temperature = 0.2
max_tokens = 1000
reasoning_effort = "low"
timeout = "90s"
retries = 3
max_response_bytes = "32MiB"

[agent]
system_prompt_file = "prompt.md"
thinking = "low"
tool_execution = "sequential"
max_concurrency = 2
max_turns = 10
steering_mode = "all"
follow_up_mode = "one-at-a-time"
max_tool_calls = 200
max_argument_bytes = "1MiB"

[events]
updates = "deltas"
floor = "64KiB"
ratio = 8

[runtime]
cache_dir = "cache"
max_memory = "512MiB"
log_level = "warn"

[[tool]]
plugin = "p.wasm"
name = "files"
sha256 = "`+strings.Repeat("ab", 32)+`"
pool = 2
image = false
disable = ["rm"]
sequential = ["edit"]
rename = { read = "fs_read" }
config = { root = "/work", token = { env = "TOKEN", default = "none" } }

[tool.grants]
dirs = [{ host = "work", guest = "/work", write = true }]
hosts = ["api.github.com", "*.example.com:8443"]
memory = "64MiB"
timeout = "5s"
max_input = 65536
max_output = "1MiB"
max_http_response = "2MB"
max_vars = "4KiB"
log_level = "debug"

[[hook]]
plugin = "p.wasm"
tools = ["fs_*", "write"]
order = -1
`), 0o644)
	f, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if f.Agent.SystemPrompt != "Be brief." || f.Runtime.CacheDir != filepath.Join(dir, "cache") || f.Runtime.MaxMemory != 512<<20 {
		t.Fatalf("agent/runtime: %+v %+v", f.Agent, f.Runtime)
	}
	tool := f.Tools[0]
	g := tool.Grants
	if tool.Plugin.Plugin != filepath.Join(dir, "p.wasm") || g.Dirs[0].Host != filepath.Join(dir, "work") || g.Memory != 64<<20 ||
		g.Timeout.Seconds() != 5 || g.MaxInput != 65536 || g.MaxOutput != 1<<20 || g.MaxHTTPResponse != 2_000_000 || g.MaxVars != 4096 {
		t.Fatalf("tool: %+v", tool)
	}
	if tool.Image == nil || *tool.Image {
		t.Fatalf("image: %v, want false", tool.Image)
	}
	if tool.Config["token"].Env != "TOKEN" || *tool.Config["token"].Default != "none" || tool.Config["root"].Literal != "/work" {
		t.Fatalf("config: %+v", tool.Config)
	}
	if f.Model.MaxResponseBytes != 32<<20 || f.Agent.MaxToolCalls != 200 || f.Agent.MaxArgumentBytes != 1<<20 ||
		f.Events != (config.Events{Updates: "deltas", Floor: 64 << 10, Ratio: 8}) {
		t.Fatalf("caps: %+v %+v %+v", f.Model, f.Agent, f.Events)
	}
	if f.Hooks[0].Order != -1 || len(f.Hooks[0].Tools) != 2 || f.Model.Timeout.Seconds() != 90 || *f.Model.Retries != 3 {
		t.Fatalf("hook/model: %+v %+v", f.Hooks[0], f.Model)
	}
}

func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/broken/*.toml")
	for _, name := range files {
		b, _ := os.ReadFile(name)
		f.Add(b)
	}
	f.Add([]byte("[model]\nprovider = \"scripted\"\nscript = \"testdata/script.json\"\n[[tool]]\nplugin = \"testdata/placeholder-plugin\"\n[tool.grants]\nmemory = \"1MiB\"\n"))
	f.Add([]byte("[model]\nprovider = \"scripted\"\nscript = \"~/s.json\"\n[sessions]\ndir = \"~\"\n[[tool]]\nplugin = \"~/p.wasm\"\n[tool.grants]\ndirs = [{ host = \"~\", guest = \"/w\" }]\n"))
	f.Fuzz(func(t *testing.T, text []byte) {
		file, err := config.Parse("fuzz.toml", text)
		if err == nil && file == nil {
			t.Fatal("no file and no error")
		}
		if err != nil && !strings.HasPrefix(err.Error(), "fuzz.toml") {
			t.Fatalf("error does not name the file: %v", err)
		}
	})
}

// Structured configuration values reach the plugin as JSON whatever TOML
// form they are written in: inline, or as an array of tables.
func TestStructuredConfigValue(t *testing.T) {
	for _, form := range []string{
		"config = { rules = [{ name = \"a\" }, { name = \"b\" }] }\n",
		"[[tool.config.rules]]\nname = \"a\"\n[[tool.config.rules]]\nname = \"b\"\n",
	} {
		text := "[model]\nprovider = \"scripted\"\nscript = \"script.json\"\n[[tool]]\nplugin = \"placeholder-plugin\"\n" + form
		f, err := config.Parse("testdata/agent.toml", []byte(text))
		if err != nil {
			t.Fatalf("%s: %v", form, err)
		}
		if got := f.Tools[0].Config["rules"].Literal; got != `[{"name":"a"},{"name":"b"}]` {
			t.Fatalf("%s: rules = %s", form, got)
		}
	}
}

// A directory given as the configuration is answered with the agent.toml
// in it, or with what is missing; it was "read DIR: is a directory".
func TestConfigIsADirectory(t *testing.T) {
	dir := t.TempDir()
	with := filepath.Join(dir, "with")
	os.MkdirAll(with, 0o755)
	os.WriteFile(filepath.Join(with, "agent.toml"), []byte("[model]\nprovider = \"openai\"\nname = \"m\"\n"), 0o644)
	without := filepath.Join(dir, "without")
	os.MkdirAll(without, 0o755)
	for _, load := range []func(string) (*config.File, error){config.Load, config.LoadTools} {
		if _, err := load(with); err == nil || !strings.Contains(err.Error(), with+" is a directory: name the file, "+filepath.Join(with, "agent.toml")) {
			t.Errorf("%s: %v", with, err)
		} else if _, err := load(filepath.Join(with, "agent.toml")); err != nil {
			t.Errorf("the file it names: %v", err)
		}
		if _, err := load(without); err == nil || !strings.Contains(err.Error(), without+" is a directory, with no agent.toml in it") {
			t.Errorf("%s: %v", without, err)
		}
		if _, err := load(filepath.Join(dir, "nope.toml")); err == nil || !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("a missing file: %v (the CLI's where-it-looked words need ErrNotExist)", err)
		}
	}
}
