package cli

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/wasmagent/wasmagent/internal/words"
	"github.com/wasmagent/wasmagent/runtime"
)

func toolsCmd(ctx context.Context, args []string, env Env) int {
	f := newFlags("tools", "tools [flags]", "  wasmagent tools --config agent.toml\n", env)
	cfg := f.String("config", defaultConfig(), "configuration `FILE`")
	logLevel := logLevelFlag(f)
	if code, ok := f.parse(args); !ok {
		return code
	}
	if f.NArg() > 0 {
		return f.fail("takes no arguments (the configuration is --config FILE)")
	}
	s, code := loadConfig(ctx, load{path: *cfg, noModel: true, logLevel: *logLevel}, env)
	if s == nil {
		return code
	}
	defer s.Close()
	if len(s.Tools) == 0 && len(s.Hooks) == 0 {
		fmt.Fprintf(env.Stdout, "%s gives the model no tools and no hooks (add a [[tool]]: see the sample agent.toml)\n", *cfg)
		return ExitOK
	}
	w := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "TOOL\tMODE\tPLUGIN\tSHA256\tGRANTS")
	for _, t := range s.Tools {
		mode := string(t.Mode)
		if mode == "" {
			mode = "parallel"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", t.Name, mode, t.Plugin.Path(), t.Plugin.SHA256()[:12], grantsSummary(t.Grants))
	}
	w.Flush()
	if len(s.Hooks) > 0 {
		fmt.Fprintln(env.Stdout)
		w = tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "HOOK\tTOOLS\tPLUGIN\tSHA256\tGRANTS")
		for _, h := range s.Hooks {
			tools := "*"
			if len(h.Tools) > 0 {
				tools = strings.Join(h.Tools, ",")
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", h.Kind, tools, h.Plugin.Path(), h.Plugin.SHA256()[:12], grantsSummary(h.Grants))
		}
		w.Flush()
	}
	return ExitOK
}

// grantsSummary says in one line what a plugin may use.
func grantsSummary(g runtime.Grants) string {
	var parts []string
	for _, d := range g.Dirs {
		mode := "ro"
		if d.Write {
			mode = "rw"
		}
		parts = append(parts, fmt.Sprintf("dir %s=%s(%s)", d.Guest, d.Host, mode))
	}
	if len(g.Hosts) > 0 {
		parts = append(parts, "hosts "+strings.Join(g.Hosts, ","))
	}
	if len(g.Config) > 0 {
		parts = append(parts, "config "+strings.Join(slices.Sorted(maps.Keys(g.Config)), ","))
	}
	parts = append(parts, fmt.Sprintf("mem %dMiB", g.MemoryPages/16), "timeout "+g.Timeout.String())
	return strings.Join(parts, "; ")
}

func validateCmd(ctx context.Context, args []string, env Env) int {
	f := newFlags("config validate", "config validate [FILE | --config FILE]", "  wasmagent config validate agent.toml\n  wasmagent config validate --config examples/demo/agent.toml\n", env)
	// --config as every other command takes it, or the file as an argument.
	cfg := f.String("config", defaultConfig(), "configuration `FILE` (or give FILE as the argument)")
	logLevel := logLevelFlag(f)
	if code, ok := f.parse(args); !ok {
		return code
	}
	path := *cfg
	switch {
	case f.NArg() > 1:
		return f.fail("takes one file")
	case f.NArg() == 1 && f.set("config"):
		return f.fail("takes the file once: as FILE or as --config FILE, not both")
	case f.NArg() == 1:
		path = f.Arg(0)
	}
	s, code := loadConfig(ctx, load{path: path, noModel: true, logLevel: *logLevel}, env)
	if s == nil {
		return code
	}
	defer s.Close()
	fmt.Fprintf(env.Stdout, "%s: ok (%s, %s)\n", path, words.Count(len(s.Tools), "tool"), words.Count(len(s.Hooks), "hook"))
	// The key is read at run time, not validated; say now what run would.
	if m := s.File.Model; m.Provider == "openai" && (m.BaseURL == "" || strings.Contains(m.BaseURL, "api.openai.com")) {
		keyEnv := cmp.Or(m.APIKeyEnv, "OPENAI_API_KEY")
		if os.Getenv(keyEnv) == "" {
			fmt.Fprintf(env.Stderr, "note: $%s is empty here: run and chat will refuse to start until it holds the API key (model.api_key_env)\n", keyEnv)
		}
	}
	return ExitOK
}
