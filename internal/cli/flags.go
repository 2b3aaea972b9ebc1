package cli

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// flags is a command's flag set: -h/--help prints its usage on stdout
// (exit 0), a bad flag prints the problem and the usage on stderr (exit 2).
type flags struct {
	*flag.FlagSet
	synopsis, examples string
	env                Env
	msgs               bytes.Buffer      // what the flag package says
	aliases            map[string]string // a short name → the flag it stands for
}

func newFlags(name, synopsis, examples string, env Env) *flags {
	f := &flags{FlagSet: flag.NewFlagSet(name, flag.ContinueOnError), synopsis: synopsis, examples: examples, env: env}
	f.SetOutput(&f.msgs)
	f.Usage = func() {} // printed by parse, to the right stream
	return f
}

// alias makes -short another name of the flag long (pi's -c for
// --continue): usage lists it beside it.
func (f *flags) alias(short, long string) {
	fl := f.Lookup(long)
	f.Var(fl.Value, short, "")
	if f.aliases == nil {
		f.aliases = map[string]string{}
	}
	f.aliases[short] = long
}

// usage prints the synopsis, the flags if there are any, and examples.
func (f *flags) usage(w io.Writer) {
	fmt.Fprintf(w, "usage: wasmagent %s\n", f.synopsis)
	first := true
	f.VisitAll(func(fl *flag.Flag) {
		if _, ok := f.aliases[fl.Name]; ok {
			return // listed with its flag
		}
		if first {
			fmt.Fprint(w, "\nFlags:\n")
			first = false
		}
		name, help := flag.UnquoteUsage(fl)
		fmt.Fprintf(w, "  --%s", fl.Name)
		for short, long := range f.aliases {
			if long == fl.Name {
				fmt.Fprintf(w, ", -%s", short)
			}
		}
		if name != "" {
			fmt.Fprintf(w, " %s", name)
		}
		if d := fl.DefValue; d != "" && d != "false" && d != "0" && d != "[]" {
			help += fmt.Sprintf(" (default %s)", d)
		}
		fmt.Fprintf(w, "\n      %s\n", help)
	})
	if f.examples != "" {
		fmt.Fprintf(w, "\nExamples:\n%s", f.examples)
	}
}

// parse parses args; flags may come after positional arguments too
// ("run 'prompt' --json"), and "--" ends the flags.
func (f *flags) parse(args []string) (code int, ok bool) {
	var pos []string
	for len(args) > 0 {
		if err := f.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				f.usage(f.env.Stdout)
				return ExitOK, false
			}
			fmt.Fprintf(f.env.Stderr, "wasmagent %s: %s\n", f.Name(), f.explain(err))
			f.shortUsage()
			return ExitUsage, false
		}
		rest := f.Args()
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			pos = append(pos, rest...)
			break
		}
		args = rest
		if len(args) > 0 {
			pos = append(pos, args[0])
			args = args[1:]
		}
	}
	f.Parse(append([]string{"--"}, pos...))
	return ExitOK, true
}

// explain rewords the flag package's errors the way the flags are
// written (--name), and names the flag an unknown one most likely meant.
func (f *flags) explain(err error) string {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		var names []string
		f.VisitAll(func(fl *flag.Flag) { names = append(names, fl.Name) })
		hint := didYouMean(name, names, func(s string) string { return "--" + s })
		if hint == "" && (name != "c" || f.Lookup("continue") != nil) {
			hint = agentFlagAdvice(name)
		}
		return fmt.Sprintf("unknown flag %s%s", flagName(name), hint)
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		arg := "VALUE"
		if fl := f.Lookup(name); fl != nil {
			if n, _ := flag.UnquoteUsage(fl); n != "" {
				arg = strings.ToUpper(n)
			}
		}
		return fmt.Sprintf("--%s needs a value (--%s %s)", name, name, arg)
	}
	// "invalid value "x" for flag -n: …", "invalid boolean value "x" for
	// -n: …": the flag as it is written, and what its value must be
	// rather than the flag package's "parse error".
	f.VisitAll(func(fl *flag.Flag) {
		for _, form := range []string{" for flag -", " for -"} {
			if i := strings.Index(msg, form+fl.Name+": "); i >= 0 {
				msg = msg[:i] + " for --" + msg[i+len(form):]
				if want := valueKind(fl); want != "" {
					msg = strings.TrimSuffix(strings.TrimSuffix(msg, "parse error"), "value out of range") + want
				}
				return
			}
		}
	})
	return msg
}

// fail reports a usage problem with the command's usage, and gives exit 2.
func (f *flags) fail(format string, args ...any) int {
	// (What the user gave is quoted in some messages: made printable.)
	fmt.Fprintf(f.env.Stderr, "wasmagent %s: %s\n", f.Name(), printable(fmt.Sprintf(format, args...)))
	f.shortUsage()
	return ExitUsage
}

// shortUsage is the synopsis and where the rest is, after a usage error.
func (f *flags) shortUsage() {
	fmt.Fprintf(f.env.Stderr, "usage: wasmagent %s\nRun \"wasmagent %s --help\" for the flags and examples.\n", f.synopsis, f.Name())
}

// listFlag collects a repeated flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

func defaultConfig() string {
	if p := os.Getenv("WASMAGENT_CONFIG"); p != "" {
		return p
	}
	return "agent.toml"
}

// set reports whether the flag called name was given.
func (f *flags) set(name string) bool {
	given := false
	f.Visit(func(fl *flag.Flag) { given = given || fl.Name == name })
	return given
}

// valueKind says what a flag's value must be, for the kinds of value
// whose parse errors say only "parse error" (or "" for the others).
func valueKind(fl *flag.Flag) string {
	g, ok := fl.Value.(flag.Getter)
	if !ok {
		return ""
	}
	switch g.Get().(type) {
	case time.Duration:
		return "want a duration with its unit: 500ms, 30s, 2m"
	case int, int64:
		return "want a whole number"
	case uint, uint64:
		return "want a whole number, 0 or more"
	case float64:
		return "want a number"
	case bool:
		return "want true or false"
	}
	return ""
}
