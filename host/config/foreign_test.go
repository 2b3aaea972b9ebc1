package config

import (
	"fmt"
	"strings"
	"testing"
)

// Every key of another agent's vocabulary (foreignKeys), written in any
// section of agent.toml where it is not a key of ours, is answered with
// what agent.toml has instead, however it is written (pi's camelCase,
// Codex's snake_case, kebab-case), not with the known key nearest in spelling
// ("did you mean"), which for another vocabulary is a wrong guess.
func TestForeignKeysAnswered(t *testing.T) {
	// Each key as listed, and capitalised (TOML keys are case-sensitive;
	// the lookup is not).
	forms := func(norm string) []string { return []string{norm, strings.ToUpper(norm[:1]) + norm[1:]} }
	answered := 0
	for norm, say := range foreignKeys {
		for _, section := range []string{"", "model", "agent", "runtime", "sessions"} {
			for _, key := range forms(norm) {
				text := "[model]\nprovider = \"openai\"\nname = \"m\"\n"
				if section != "" && section != "model" {
					text += "[" + section + "]\n"
				}
				line := fmt.Sprintf("%s = \"x\"\n", key)
				if section == "" {
					text = line + text
				} else {
					text += line
				}
				_, err := Parse("agent.toml", []byte(text))
				if err == nil || !strings.Contains(err.Error(), key+": unknown key") {
					continue // a key of ours there, or not unknown
				}
				answered++
				if !strings.Contains(err.Error(), "unknown key ("+say+")") {
					t.Errorf("%q in [%s]: %v; want %q", key, section, err, say)
				}
			}
		}
	}
	if answered < len(foreignKeys)*2 {
		t.Fatalf("only %d unknown keys answered", answered)
	}
	for _, k := range []string{"api_key", "API-KEY", "base-url", "thinking_level", "mcp_servers", "allowed_tools"} {
		if foreign("model."+k) == "" {
			t.Errorf("%q: not found in another form", k)
		}
	}
}

// Another agent's settings file given as agent.toml (pi's and Claude Code's
// are JSON) is named for what it is, not answered with the TOML parser's
// words about its first "{". Generated: JSON objects, arrays and scalars,
// compact and indented.
func TestJSONSettingsNamed(t *testing.T) {
	for _, text := range []string{
		`{"defaultProvider":"anthropic","defaultModel":"claude-sonnet-4","theme":"dark"}`,
		"{\n  \"permissions\": {\"allow\": [\"Bash(npm run test)\"]},\n  \"model\": \"opus\"\n}\n",
		`{"providers":{"ollama":{"baseUrl":"http://localhost:11434/v1","api":"openai-completions","models":[{"id":"llama3.1:8b"}]}}}`,
		"{}", "[]", `"x"`, "\n\n  {\"a\": 1}",
	} {
		_, err := Parse("settings.json", []byte(text))
		if err == nil || !strings.Contains(err.Error(), "settings.json:1: this is JSON") || !strings.Contains(err.Error(), "agent.toml is TOML") {
			t.Errorf("%q: %v", text, err)
		}
	}
	// TOML that fails is still answered with the parser's line.
	if _, err := Parse("agent.toml", []byte("[model]\nname = {\n")); err == nil || strings.Contains(err.Error(), "JSON") {
		t.Errorf("broken TOML: %v", err)
	}
}
