package main

import (
	"strings"
	"testing"
)

// The groups of a command line: each with its own flags, packages and
// test flags; the run's flags only before the first.
func TestParseArgsGroups(t *testing.T) {
	opts, groups, err := parseArgs(strings.Fields(
		"-p 3 -o /x -race -skip /cache$ ./... :: ./a ./b -- -test.run Big :: -env K=v -env L= ./a -- -test.v"))
	if err != nil {
		t.Fatal(err)
	}
	if opts.parallel != 3 || opts.out != "/x" || opts.vet != "off" || opts.before != "" || len(groups) != 3 {
		t.Fatalf("opts %+v, %d groups", opts, len(groups))
	}
	g0, g1, g2 := groups[0], groups[1], groups[2]
	if !g0.race || g0.skip == nil || !g0.skip.MatchString("m/cache") || strings.Join(g0.patterns, " ") != "./..." || g0.testFlags != nil {
		t.Errorf("group 1: %+v", g0)
	}
	if g1.race || strings.Join(g1.patterns, " ") != "./a ./b" || strings.Join(g1.testFlags, " ") != "-test.run Big" || g1.env != nil {
		t.Errorf("group 2: %+v", g1)
	}
	if strings.Join(g2.env, " ") != "K=v L=" || strings.Join(g2.testFlags, " ") != "-test.v" {
		t.Errorf("group 3: %+v", g2)
	}
}

// -vet and -before are the run's.
func TestParseArgsVetBefore(t *testing.T) {
	opts, groups, err := parseArgs([]string{"-vet", "off", "-before", "make npm-deps && go run ./x", "-race", "./..."})
	if err != nil || opts.vet != "off" || opts.before != "make npm-deps && go run ./x" || len(groups) != 1 || !groups[0].race {
		t.Errorf("opts %+v, groups %+v, %v", opts, groups, err)
	}
}

// Each bad command line is refused with what is wrong and in which group.
func TestParseArgsRefuses(t *testing.T) {
	for args, want := range map[string]string{
		"-p 0 ./a":                 "-p must be at least 1",
		"./a :: -env NOEQUALS ./b": "group 2 (-env NOEQUALS ./b)",
		"./a :: -env =v ./b":       "is not NAME=VALUE",
		"./a :: -p 2 ./b":          "group 2",
		"./a -race":                "flag -race after a package",
		"-skip ( ./a":              "-skip",
		"-vet printf ./a":          `-vet "printf": want all or off`,
		"./a :: -before true ./b":  "group 2",
		"./a :: -vet off ./b":      "group 2",
	} {
		_, _, err := parseArgs(strings.Fields(args))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("parseArgs(%q): %v, want an error with %q", args, err, want)
		}
	}
}

// Runs of one package apart from its plain run are named by what sets
// them apart; two alike get their group's number.
func TestJobNames(t *testing.T) {
	g := func(race bool, env ...string) group { return group{race: race, env: env} }
	for _, c := range []struct {
		g       group
		anyRace bool
		want    string
	}{
		{g(true), true, ""},
		{g(false), false, ""},
		{g(false), true, " (without -race)"},
		{g(false, "IMAGES=off"), true, " (without -race, IMAGES=off)"},
		{g(true, "A=1", "B=2"), true, " (A=1, B=2)"},
	} {
		if got := label(c.g, c.anyRace, ""); got != c.want {
			t.Errorf("label(%+v, %v) = %q, want %q", c.g, c.anyRace, got, c.want)
		}
	}
}

// Any command line: parseArgs never panics; what it accepts has one
// group per "::"-separated part, packages that are not flags, and
// -env values that are NAME=VALUE.
func FuzzParseArgs(f *testing.F) {
	f.Add("-p 3 -race -skip x$ ./... :: -env K=v ./a -- -test.run X :: ./b")
	f.Add(":: :: --")
	f.Add("-env = -- ::")
	f.Add("-vet off -before true -c ./a :: -race ./b")
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Split(line, " ")
		opts, groups, err := parseArgs(args)
		if err != nil {
			return
		}
		seps := 0
		for _, a := range args {
			if a == "::" {
				seps++
			}
		}
		if opts.vet != "all" && opts.vet != "off" {
			t.Fatalf("-vet %q accepted", opts.vet)
		}
		if len(groups) != seps+1 || opts.parallel < 1 {
			t.Fatalf("%d groups from %d separators, -p %d", len(groups), seps, opts.parallel)
		}
		for _, g := range groups {
			if len(g.patterns) == 0 {
				t.Fatalf("a group without packages: %+v", g)
			}
			for _, p := range g.patterns {
				if strings.HasPrefix(p, "-") {
					t.Fatalf("flag %q taken for a package", p)
				}
			}
			for _, e := range g.env {
				if name, _, ok := strings.Cut(e, "="); !ok || name == "" {
					t.Fatalf("env %q", e)
				}
			}
		}
	})
}

// -h prints the usage and succeeds; a bad flag prints it after the error.
func TestUsage(t *testing.T) {
	var out, errOut strings.Builder
	if code := run(".", []string{"-h"}, &out, &errOut); code != 0 || !strings.Contains(out.String(), "usage: testrun") {
		t.Errorf("-h: exit %d\n%s%s", code, out.String(), errOut.String())
	}
	out.Reset()
	if code := run(".", []string{"./a", "::", "-bogus"}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "group 2 (-bogus): flag provided but not defined: -bogus\nusage: testrun") {
		t.Errorf("-bogus: exit %d\n%s", code, errOut.String())
	}
}
