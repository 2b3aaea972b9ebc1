package config

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// A provider named by its server (pi's "ollama", "openrouter", "anthropic",
// in any case, "lm-studio" or "llama.cpp") is answered with the lines that
// reach it — provider = "openai", its base_url, the variable its key is
// usually in — and those lines, written as said, load. "OpenAI" is told
// to be lower case. It said only `"ollama" is not "openai" or "scripted"`.
func TestProviderNamedByItsServer(t *testing.T) {
	parse := func(model string) error {
		_, err := Parse("agent.toml", []byte("[model]\n"+model))
		return err
	}
	quoted := regexp.MustCompile(`(provider|base_url|api_key_env) = "([^"]*)"`)
	for _, norm := range slices.Sorted(maps.Keys(knownServers)) {
		for _, written := range []string{norm, strings.ToUpper(norm[:1]) + norm[1:], strings.ToUpper(norm)} {
			err := parse(fmt.Sprintf("provider = %q\nname = \"m\"\n", written))
			s := knownServers[norm]
			if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("base_url = %q", s.baseURL)) || !strings.Contains(err.Error(), `provider = "openai"`) {
				t.Errorf("provider = %q: %v", written, err)
				continue
			}
			var lines []string
			for _, m := range quoted.FindAllStringSubmatch(err.Error(), -1) {
				lines = append(lines, m[0])
			}
			if err := parse(strings.Join(lines, "\n") + "\nname = \"m\"\n"); err != nil {
				t.Errorf("provider = %q: the lines it gives (%q) do not load: %v", written, lines, err)
			}
		}
	}
	for _, written := range []string{"OpenAI", "OPENAI", "Scripted"} {
		if err := parse(fmt.Sprintf("provider = %q\nname = \"m\"\n", written)); err == nil || !strings.Contains(err.Error(), "provider names are lower case: \""+strings.ToLower(written)+"\"") {
			t.Errorf("provider = %q: %v", written, err)
		}
	}
	for _, written := range []string{"lm-studio", "llama.cpp", "LM Studio", "Azure", "azure-openai", "somethingelse"} {
		if err := parse(fmt.Sprintf("provider = %q\nname = \"m\"\n", written)); err == nil || !strings.Contains(err.Error(), `provider = "openai"`) {
			t.Errorf("provider = %q: %v", written, err)
		}
	}
}

// A base_url copied from a request (".../v1/chat/completions", any
// endpoint a client adds, with or without a final slash) or written
// without its scheme ("localhost:11434/v1") is answered with the base_url
// to write, which loads. The first was accepted, and every request went to
// .../chat/completions/chat/completions.
func TestBaseURLIsTheAPIRoot(t *testing.T) {
	parse := func(base string) error {
		_, err := Parse("agent.toml", []byte(fmt.Sprintf("[model]\nprovider = \"openai\"\nname = \"m\"\nbase_url = %q\n", base)))
		return err
	}
	write := regexp.MustCompile(`write "([^"]*)"`)
	for _, root := range []string{"http://localhost:11434/v1", "https://openrouter.ai/api/v1", "https://generativelanguage.googleapis.com/v1beta/openai", "http://127.0.0.1:8080", "https://gw.example/v1?api-version=1"} {
		if err := parse(root); err != nil {
			t.Fatalf("the root %s: %v", root, err)
		}
		for _, e := range endpoints {
			for _, slash := range []string{"", "/"} {
				base := strings.Replace(root, "?", e+slash+"?", 1)
				if !strings.Contains(root, "?") {
					base = root + e + slash
				}
				err := parse(base)
				m := write.FindStringSubmatch(fmt.Sprint(err))
				if err == nil || m == nil || m[1] != root {
					t.Errorf("base_url %s: %v; want it to say write %q", base, err, root)
					continue
				}
			}
		}
	}
	for base, want := range map[string]string{"localhost:11434/v1": "http://localhost:11434/v1", "127.0.0.1:8000/v1": "http://127.0.0.1:8000/v1", "api.example.com/v1": "https://api.example.com/v1"} {
		err := parse(base)
		if m := write.FindStringSubmatch(fmt.Sprint(err)); m == nil || m[1] != want {
			t.Errorf("base_url %s: %v; want it to say write %q", base, err, want)
		} else if err := parse(m[1]); err != nil {
			t.Errorf("base_url %s: the one it gives does not load: %v", m[1], err)
		}
	}
}
