package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"time"
)

// groupSep separates the groups of the command line; no package pattern
// or flag is spelled so.
const groupSep = "::"

// group is one part of the command line: packages, and how their test
// binaries are built and run.
type group struct {
	race      bool
	skip      *regexp.Regexp
	env       []string // NAME=VALUE, added to the test binaries' environment
	patterns  []string
	testFlags []string
}

// job is one run of one package's test binary.
type job struct {
	name   string // the import path, then what sets this run apart from the package's other runs
	pkg    pkg
	race   bool
	env    []string
	flags  []string // test flags of its group
	binary string   // the test binary's path
	procs  int      // its GOMAXPROCS, set when it starts (0: Go's default)
	// weight orders the jobs: the seconds it took before (timed), or
	// an estimate from its package's test code (see order).
	timed  bool
	weight float64
}

// parseArgs reads the run's flags and its groups.
func parseArgs(args []string) (options, []group, error) {
	opts := options{parallel: defaultParallel, timeout: 10 * time.Minute, vet: "off"}
	var groups []group
	for i, part := range splitGroups(args) {
		fs := flag.NewFlagSet("testrun", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		if i == 0 {
			fs.IntVar(&opts.parallel, "p", opts.parallel, "")
			fs.DurationVar(&opts.timeout, "timeout", opts.timeout, "")
			fs.BoolVar(&opts.buildOnly, "c", false, "")
			fs.StringVar(&opts.out, "o", "", "")
			fs.StringVar(&opts.vet, "vet", opts.vet, "")
			fs.StringVar(&opts.before, "before", "", "")
		}
		g, err := parseGroup(fs, part)
		if err != nil {
			return opts, nil, fmt.Errorf("group %d (%s): %w", i+1, strings.Join(part, " "), err)
		}
		groups = append(groups, g)
	}
	if opts.parallel < 1 {
		return opts, nil, errors.New("-p must be at least 1")
	}
	if opts.vet != "all" && opts.vet != "off" {
		return opts, nil, fmt.Errorf("-vet %q: want all or off", opts.vet)
	}
	return opts, groups, nil
}

// splitGroups splits the arguments at each "::".
func splitGroups(args []string) [][]string {
	var parts [][]string
	for {
		i := slices.Index(args, groupSep)
		if i < 0 {
			return append(parts, args)
		}
		parts = append(parts, args[:i])
		args = args[i+1:]
	}
}

// parseGroup reads one group; fs may hold the run's flags too.
func parseGroup(fs *flag.FlagSet, args []string) (group, error) {
	var g group
	var skip string
	fs.BoolVar(&g.race, "race", false, "")
	fs.StringVar(&skip, "skip", "", "")
	fs.Func("env", "", func(v string) error {
		name, _, ok := strings.Cut(v, "=")
		if !ok || name == "" {
			return fmt.Errorf("%q is not NAME=VALUE", v)
		}
		g.env = append(g.env, v)
		return nil
	})
	flags, testFlags := splitArgs(args)
	if err := fs.Parse(flags); err != nil {
		return g, err
	}
	g.patterns, g.testFlags = fs.Args(), testFlags
	if len(g.patterns) == 0 {
		g.patterns = []string{"./..."}
	}
	for _, p := range g.patterns {
		if strings.HasPrefix(p, "-") {
			return g, fmt.Errorf("flag %s after a package: flags come first", p)
		}
	}
	if skip != "" {
		re, err := regexp.Compile(skip)
		if err != nil {
			return g, fmt.Errorf("-skip: %w", err)
		}
		g.skip = re
	}
	return g, nil
}

// splitArgs splits the arguments at the first "--" into testrun's flags
// and packages, and flags for the test binaries.
func splitArgs(args []string) (own, testFlags []string) {
	if i := slices.Index(args, "--"); i >= 0 {
		return args[:i], args[i+1:]
	}
	return args, nil
}

// plan lists each group's packages and makes a job of each package
// with tests; untested are the others, which are only vetted.
func plan(dir string, groups []group) (jobs []*job, untested []string, err error) {
	anyRace := slices.ContainsFunc(groups, func(g group) bool { return g.race })
	listed := map[string][]pkg{}
	seen := map[string]bool{}
	for i, g := range groups {
		key := strings.Join(g.patterns, "\x00")
		pkgs, ok := listed[key]
		if !ok {
			if pkgs, err = list(dir, g.patterns); err != nil {
				return nil, nil, err
			}
			listed[key] = pkgs
		}
		for _, p := range pkgs {
			if g.skip != nil && g.skip.MatchString(p.ImportPath) {
				continue
			}
			if !p.Tested {
				if !slices.Contains(untested, p.ImportPath) {
					untested = append(untested, p.ImportPath)
				}
				continue
			}
			j := &job{pkg: p, race: g.race, env: g.env, flags: g.testFlags}
			j.name = p.ImportPath + label(g, anyRace, "")
			if seen[j.name] {
				j.name = p.ImportPath + label(g, anyRace, fmt.Sprintf("group %d", i+1))
			}
			seen[j.name] = true
			jobs = append(jobs, j)
		}
	}
	return jobs, untested, nil
}

// label says what sets a group's runs apart from the plain runs of the
// same packages: " (without -race, WASMAGENT_TEST_IMAGES=off)".
func label(g group, anyRace bool, extra string) string {
	var parts []string
	if anyRace && !g.race {
		parts = append(parts, "without -race")
	}
	parts = append(parts, g.env...)
	if extra != "" {
		parts = append(parts, extra)
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}
