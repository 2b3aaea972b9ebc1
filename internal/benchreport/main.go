// Command benchreport turns `go test -bench` output (and pi's benchmark
// lines) into docs/benchmarks.md: the median of each figure, its ratio to
// the baseline measured in the same run, the targets and where we stand,
// and the machine and command that produced them. make bench runs it.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math"
	"os"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	waruntime "github.com/wasmagent/wasmagent/runtime"
)

var benchLine = regexp.MustCompile(`^Benchmark(\S+?)(?:-\d+)?\s+\d+\s+(.+)$`)
var piLine = regexp.MustCompile(`^pi: ([\d.]+) µs/turn, (\d+) events/s`)

// results maps a benchmark name to its unit to its values.
type results map[string]map[string][]float64

func (r results) add(name, unit string, v float64) {
	if r[name] == nil {
		r[name] = map[string][]float64{}
	}
	r[name][unit] = append(r[name][unit], v)
}

func (r results) median(name, unit string) (float64, bool) {
	vs := r[name][unit]
	if len(vs) == 0 {
		return 0, false
	}
	s := slices.Clone(vs)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2], true
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2, true
}

func main() {
	in := flag.String("in", "bench.out", "go test -bench output")
	pi := flag.String("pi", "bench-pi.out", "pi's benchmark output (optional)")
	stat := flag.String("stat", "bench.stat", "benchstat's summary (optional)")
	out := flag.String("out", "docs/benchmarks.md", "the report")
	cmd := flag.String("cmd", "make bench", "the command that produced the input")
	flag.Parse()
	r := results{}
	var cpu string
	if err := scan(*in, func(line string) {
		if v, ok := strings.CutPrefix(line, "cpu: "); ok {
			cpu = v
		}
		m := benchLine.FindStringSubmatch(line)
		if m == nil {
			return
		}
		f := strings.Fields(m[2])
		for i := 0; i+1 < len(f); i += 2 {
			if v, err := strconv.ParseFloat(f[i], 64); err == nil {
				r.add(m[1], f[i+1], v)
			}
		}
	}); err != nil {
		fmt.Fprintln(os.Stderr, "benchreport:", err)
		os.Exit(1)
	}
	scan(*pi, func(line string) {
		if m := piLine.FindStringSubmatch(line); m != nil {
			v, _ := strconv.ParseFloat(m[1], 64)
			e, _ := strconv.ParseFloat(m[2], 64)
			r.add("pi/Loop20Turns3Tools", "µs/turn", v)
			r.add("pi/Loop20Turns3Tools", "events/s", e)
		}
	})
	var b strings.Builder
	writeReport(&b, r, cpu, *cmd)
	if s, err := os.ReadFile(*stat); err == nil {
		fmt.Fprintf(&b, "\n## benchstat\n\n```\n%s```\n", s)
	}
	if err := os.WriteFile(*out, []byte(b.String()), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "benchreport:", err)
		os.Exit(1)
	}
}

func scan(path string, f func(string)) error {
	file, err := os.Open(path)
	if err != nil {
		return err
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	for sc.Scan() {
		f(sc.Text())
	}
	return sc.Err()
}

// human writes a duration in ns as the unit that reads best.
func human(ns float64) string {
	switch {
	case ns >= 1e9:
		return fmt.Sprintf("%.2f s", ns/1e9)
	case ns >= 1e6:
		return fmt.Sprintf("%.2f ms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.1f µs", ns/1e3)
	}
	return fmt.Sprintf("%.0f ns", ns)
}

func value(unit string, v float64) string {
	if unit == "ns/op" {
		return human(v)
	}
	if v >= 100 || v == math.Trunc(v) {
		return fmt.Sprintf("%.0f %s", v, unit)
	}
	return fmt.Sprintf("%.3g %s", v, unit)
}

// baseline is the sibling a figure is compared with: ".../native", or
// ".../none" for the stopper comparison.
func baseline(r results, name string) (string, bool) {
	i := strings.LastIndex(name, "/")
	if i < 0 {
		return "", false
	}
	for _, b := range []string{"native", "none"} {
		cand := name[:i+1] + b
		if _, ok := r[cand]; ok && cand != name {
			return cand, true
		}
	}
	// Call/go/pool=4 → Call/native; Payload/echo-1KiB/go → Payload/echo-1KiB/native
	top := strings.SplitN(name, "/", 2)[0]
	if cand := top + "/native"; r[cand] != nil && cand != name {
		return cand, true
	}
	return "", false
}

var sections = []struct{ title, prefix, note string }{
	{"Tool-call overhead", "Call/", "A fresh instance per call (`go`, `small`: our runtime, pool of 4, calls back to back, so the pool can run dry and throughput becomes instantiation-bound), against native Go doing the same JSON work, and what plain extism/go-sdk costs: `extism-instance` (CompiledPlugin.Instance + Call + Close), `extism-newplugin` (NewPlugin per call, no cache: a naive host), `extism-reused` (one instance for every call: unsafe, state leaks)."},
	{"Call latency, one call at a time", "CallLatency/", "The pool refilled between calls; `call-ns` is the call alone."},
	{"Instantiation", "Instantiate/", "A fresh instance, one trivial call, closed (no pool): from the plugin's image (docs/runtime.md, \"Images\"), mapped copy-on-write (`image`) or copied (`image-copy`; `image-copy-nospare`: without the closed instance's memory kept for the next), or running the module's initialisation (`init`)."},
	{"Payloads and compute", "Payload/", "Whole execute path of a Go plugin, against native Go doing the same work (for sha256, crypto/sha256 with SHA-NI). Calls come back to back, so a Go plugin's figure includes waiting for instantiation (about 3.7 ms) once the pool runs dry; SDK plugins move input and output by the bulk path (docs/abi.md), so the 1 MiB echo and result are the guest's own JSON work; `result-1MiB/go-parts` is the same result as wasmagent's tools take it, in parts (no JSON for the text), one call at a time after the pool refilled (call-ns); `abi-1MiB` is the ABI alone, 1 MiB in and out with no JSON: a go-pdk plugin (8 bytes a host call) against the bulk path."},
	{"Parallel scaling", "Parallel", "`x-ideal`: wall time of n concurrent calls over the ideal (n/cores × one call for CPU-bound, one call for I/O-bound). With the default cap of 8 concurrent calls, 32 I/O-bound calls run in 4 rounds."},
	{"Cold start", "ColdStart", "In process (runtime, 1 Go plugin) and as a new `wasmagent` process to its first tool result and the end of a one-turn session (cmd, 1 and 10 Go plugins); `ColdStartFirstRequest`: from the process's start to its first model request (an OpenAI-compatible test server), with 0, 1 and 10 Go plugins whose descriptions are cached (docs/runtime.md, \"Startup\"); `ColdStartWire`: the same configuration wired in process, every plugin described first (`foreground`) or listed from the cache and loaded behind (`background`)."},
	{"Memory", "Memory", "Proportional resident memory (PSS) per pooled instance (50 pooled; `go`: from the image, `go/init`: initialised), of 10 Go plugins loaded and idle with pools of 0 and 1 (and 0 without images: `init`), and the host's peak with 100 Go-plugin calls in flight."},
	{"Stopping guest code", "Stopper/", "Fuel instrumentation against wazero's `WithCloseOnContextDone` and against nothing (the floor, unsafe), on Go plugin code."},
	{"Plugin languages", "Languages/", "The same trivial tool call on a fresh instance with no pool (`call`), the file size (`bytes`) and the resident memory per pooled instance (`memory`), for a module with no language runtime (`small`), an AssemblyScript plugin (`as`: plugins/text, built with sdk/assemblyscript; needs Node.js) and a standard-Go plugin (`go`)."},
	{"Abort", "AbortLatency", "How long an infinite loop runs on after its call's context is cancelled."},
	{"Event output", "JSONEvents/", "`run --json` for one tool argument of 80 KB, 800 KB and 8 MB streamed in 4 KB fragments (loop, openai adapter over an in-memory transport, event lines): `all` is every update in full, as before the budget and as pi sends them; `pi` is the default budget (docs/events.md). `out-bytes` is what the lines weigh. The 8 MB `all` run (some 16 GB) runs only with WASMAGENT_BENCH_SLOW=1."},
	{"MCP tools/call", "MCPCall/", "One tools/call round trip over stdio (in-process pipes, the official Go SDK client) against the same call through host.ToolRunner directly, for a module with no language runtime and a standard-Go plugin: the protocol's overhead."},
	{"wasmagent serve under load", "ServeLoad", "200 sessions at once over loopback HTTP (host/serve, the local backend), each watched by its own SSE stream: create, prompt, events to agent_end; the scripted model and one call of the calc Wasm plugin per run. `events/s` over the whole batch; `p50/p99-first-event-ms` from a prompt's POST to its first event; `heap-B/session` the heap the open sessions hold; `lost+repeated` is 0 or the bench fails (every stream's ids against a replay of its journal)."},
	{"Cluster: sessions per second by hosts", "ClusterSessions/", "24 sessions at a time through 1, 2 and 3 hosts (host/cluster services in one process, each with its own loopback connection to one embedded JetStream server, behind serve's HTTP API): create, SSE, prompt, events to agent_end; the scripted model and one calc Wasm call per run. `sessions/s` over the batch; `x-1host` against one host in the same run. The hosts share this machine's CPUs, so the ratio shows the coordination's cost, not a second machine's gain."},
	{"Cluster: JetStream store against the file store", "ClusterStore/", "One run (prompt, one model turn, one calc call; three messages appended) on a session kept in the file store (fsync per append) and in the JetStream store (embedded server in process, one replica). `x-filestore`: the JetStream run's time over the file store's, in the same run."},
	{"Deadlines inside host functions", "DeadlineOvershoot/", "How long after a 50 ms deadline a call ends when it loops over host functions that each do much work (`ms-over`: mean; `ms-over-max`: worst); `spin`, a pure guest loop, for comparison."},
	{"The loop against pi", "Loop", "20 turns of 3 parallel trivial tool calls: pi-agent-core 0.73.1 under Node with native JS tools and the faux provider (`make bench-pi`), wasmagent with Go tools, and wasmagent with Wasm tools, each call in a fresh instance (`small`: a module with no language runtime; `go`: a standard-Go plugin)."},
}

func writeReport(b *strings.Builder, r results, cpu, cmd string) {
	fmt.Fprintf(b, "# Benchmarks\n\nWritten by `%s` on %s. Machine: %s, %d CPUs, %s, %s/%s. Each figure is the median of the runs (`-count`); a ratio compares it with its baseline measured in the same run. These machines are shared and noisy: read ratios under about 1.5× as ties.\n",
		cmd, time.Now().UTC().Format("2006-01-02"), cpuOr(cpu), runtime.NumCPU(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	names := make([]string, 0, len(r))
	for n := range r {
		names = append(names, n)
	}
	sort.Strings(names)
	shown := map[string]bool{}
	all := append(sections, struct{ title, prefix, note string }{"Other", "", "Benchmarks no section above claims."})
	for _, s := range all {
		var rows []string
		for _, n := range names {
			if shown[n] {
				continue
			}
			if s.prefix == "" || strings.HasPrefix(n, s.prefix) || strings.Contains(n, "/"+s.prefix) || (s.prefix == "Loop" && strings.Contains(n, "Loop")) {
				rows = append(rows, n)
				shown[n] = true
			}
		}
		if len(rows) == 0 {
			continue
		}
		fmt.Fprintf(b, "\n## %s\n\n%s\n\n| benchmark | median | other metrics | × baseline |\n|---|---|---|---|\n", s.title, s.note)
		for _, n := range rows {
			ns, hasNS := r.median(n, "ns/op")
			main := ""
			if hasNS {
				main = human(ns)
			}
			var other []string
			units := make([]string, 0, len(r[n]))
			for u := range r[n] {
				if u != "ns/op" && u != "B/op" && u != "allocs/op" {
					units = append(units, u)
				}
			}
			sort.Strings(units)
			for _, u := range units {
				v, _ := r.median(n, u)
				other = append(other, value(u, v))
			}
			ratio := ""
			if base, ok := baseline(r, n); ok && hasNS {
				if bv, ok := r.median(base, "ns/op"); ok && bv > 0 {
					ratio = fmt.Sprintf("%.3g× %s", ns/bv, base[strings.LastIndex(base, "/")+1:])
				}
			}
			fmt.Fprintf(b, "| %s | %s | %s | %s |\n", n, main, strings.Join(other, ", "), ratio)
		}
	}
	writeTargets(b, r)
}

func cpuOr(cpu string) string {
	if cpu == "" {
		return "unknown CPU"
	}
	return cpu
}

// defaultPool is runtime.DefaultPoolSize, whose idle memory is a target.
const defaultPool = waruntime.DefaultPoolSize

// writeTargets states where we stand on each target of the benchmark issue.
func writeTargets(b *strings.Builder, r results) {
	get := func(name, unit string) float64 { v, _ := r.median(name, unit); return v }
	type target struct {
		what, goal string
		have       string
		met        bool
	}
	ts := []target{}
	add := func(what, goal string, have float64, format string, met bool) {
		if have == 0 {
			ts = append(ts, target{what, goal, "not measured", false})
			return
		}
		ts = append(ts, target{what, goal, fmt.Sprintf(format, have), met})
	}
	why := func(what string) string {
		for _, w := range whyNot {
			if strings.HasPrefix(what, w.prefix) {
				return w.why
			}
		}
		return ""
	}
	small := get("CallLatency/small", "call-ns")
	goCall := get("CallLatency/go", "call-ns")
	add("per-call overhead, small plugin, fresh instance, warm pool", "≤ 50 µs", small/1e3, "%.1f µs", small > 0 && small <= 50e3)
	add("per-call overhead, Go plugin, fresh instance, warm pool", "≤ 100 µs", goCall/1e3, "%.0f µs", goCall > 0 && goCall <= 100e3)
	mib := get("Payload/result-1MiB/go-parts", "call-ns")
	add("1 MiB result end to end (Go plugin, one call after the pool refilled: the output in parts, the host's one copy)", "< 2 ms", mib/1e6, "%.1f ms", mib > 0 && mib < 2e6)
	abi := get("Payload/abi-1MiB/bulk", "ns/op")
	add("1 MiB in and 1 MiB out through the ABI alone (bulk path)", "< 2 ms", abi/1e6, "%.1f ms", abi > 0 && abi < 2e6)
	io32 := get("Parallel/io/n=32", "x-ideal")
	add("32 I/O-bound calls against one call", "≤ 1.5×", io32, "%.2f×", io32 > 0 && io32 <= 1.5)
	cpu1, cpu8 := get("Parallel/cpu/n=1", "ns/op"), get("Parallel/cpu/n=8", "ns/op")
	speed := 0.0
	if cpu8 > 0 {
		speed = 8 * cpu1 / cpu8
	}
	add("CPU-bound speed-up over sequential, 2 cores", "≥ 1.8×", speed, "%.2f×", speed >= 1.8)
	warm := get("ColdStart/plugins=1/warm-cache", "ns/op")
	add("first tool result from process start, warm cache", "≤ 60 ms", warm/1e6, "%.0f ms", warm > 0 && warm <= 60e6)
	for _, n := range []string{"1", "10"} {
		wire := get("ColdStartWire/plugins="+n+"/background", "ns/op")
		add("configuration wired, "+n+" plugins, warm caches (in process: the first request can go)", "≤ 20 ms", wire/1e6, "%.1f ms", wire > 0 && wire <= 20e6)
	}
	for _, n := range []string{"0", "1", "10"} {
		first := get("ColdStartFirstRequest/plugins="+n+"/warm-cache", "ns/op")
		add("first model request from process start, "+n+" plugins, warm caches", "≤ 20 ms", first/1e6, "%.0f ms", first > 0 && first <= 20e6)
	}
	fuel, none := get("Stopper/hash/fuel", "ns/op"), get("Stopper/hash/none", "ns/op")
	ratio := 0.0
	if none > 0 {
		ratio = fuel / none
	}
	add("termination cost on loop-heavy code", "≤ 1.3×", ratio, "%.2f×", ratio > 0 && ratio <= 1.3)
	// Images are copied where the kernel gives huge pages (this
	// platform's default when it does), mapped copy-on-write otherwise:
	// both are measured, each target on each.
	tiny := get("Instantiate/small", "ns/op")
	for _, how := range []struct{ bench, label string }{{"image-copy", "copied"}, {"image", "mapped"}} {
		fresh := get("Instantiate/go/"+how.bench, "ns/op")
		add("fresh Go-plugin instance + trivial call (image "+how.label+")", "≤ 0.5 ms", fresh/1e6, "%.2f ms", fresh > 0 && fresh <= 0.5e6)
		over := 0.0
		if tiny > 0 {
			over = fresh / tiny
		}
		add("fresh Go-plugin instance against a small module (image "+how.label+")", "≤ 50×", over, "%.0f×", over > 0 && over <= 50)
	}
	for _, how := range []struct{ bench, label string }{{"copy", "copied"}, {"map", "mapped"}} {
		goInst := get("MemoryPerInstance/go/"+how.bench, "KiB/instance")
		add("resident memory (PSS) per pooled Go-plugin instance (image "+how.label+")", "≤ 512 KiB", goInst, "%.0f KiB", goInst > 0 && goInst <= 512)
	}
	idle := get(fmt.Sprintf("MemoryIdle/plugins=10/pool=%d", defaultPool), "MiB")
	add(fmt.Sprintf("10 Go plugins loaded and idle (PSS, default pool of %d, images copied)", defaultPool), "≤ 50 MiB", idle, "%.0f MiB", idle > 0 && idle <= 50)
	idleMap := get(fmt.Sprintf("MemoryIdle/plugins=10/pool=%d/map", defaultPool), "MiB")
	add(fmt.Sprintf("10 Go plugins loaded and idle (PSS, default pool of %d, images mapped)", defaultPool), "≤ 50 MiB", idleMap, "%.0f MiB", idleMap > 0 && idleMap <= 50)
	ours, pi := get("LoopWasm20Turns3Tools/small", "µs/turn"), get("pi/Loop20Turns3Tools", "µs/turn")
	if pi > 0 && ours > 0 {
		add("time per turn against pi (Wasm tools, small plugin)", "≤ 1×", ours/pi, "%.2f×", ours <= pi)
	} else {
		add("time per turn against pi", "≤ 1×", 0, "", false)
	}
	goLoop := get("LoopWasm20Turns3Tools/go", "µs/turn")
	if pi > 0 && goLoop > 0 {
		add("time per turn against pi (Go-plugin tools)", "≤ 15×", goLoop/pi, "%.0f×", goLoop <= 15*pi)
	} else {
		add("time per turn against pi (Go-plugin tools)", "≤ 15×", 0, "", false)
	}
	b.WriteString("\n## Targets\n\n| target | goal | here | | where not met, why |\n|---|---|---|---|---|\n")
	for _, t := range ts {
		mark, reason := "not met", why(t.what)
		if t.met {
			mark, reason = "met", ""
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", t.what, t.goal, t.have, mark, reason)
	}
}

// whyNot says, for each target (by the start of its text), what stands
// between the figure and the goal when it is not met: what was measured
// to take the time or memory, not a guess.
var whyNot = []struct{ prefix, why string }{
	{"per-call overhead, Go plugin", "every call gets a fresh Go instance: wazero refills the module's function table for each (about 280 µs, docs/runtime.md, \"Images\"), then the guest's Go runtime and SDK run the call"},
	{"32 I/O-bound calls", "by design: the default cap of 8 calls at once runs 32 in 4 rounds (SECURITY.md: the cap bounds guest memory)"},
	{"CPU-bound speed-up", "two shared virtual cores; the host's own work per call runs on them too"},
	{"first tool result from process start", "the Go plugin's compiled code is read from the cache and its image made (its init run twice) before the first call (docs/startup.md)"},
	{"first model request from process start", "starting the process: about 35 ms of package init in a 70 MB binary, most in dependencies (a JSON Schema library compiles its metaschemas, the NATS server) (docs/startup.md)"},
	{"fresh Go-plugin instance + trivial call (image copied)", "about 280 µs is wazero filling the function table of each new instance; the rest is the call itself (docs/runtime.md, \"Images\")"},
	{"fresh Go-plugin instance + trivial call (image mapped)", "a mapped image pays a page fault per 4 KiB page the call first touches, about 100 µs each on this VM (docs/runtime.md, \"Images\")"},
	{"fresh Go-plugin instance against a small module", "as above: the table and the faults"},
	{"resident memory (PSS) per pooled Go-plugin instance (image copied)", "a copy is private to its instance; the mapped image shares the image's pages (the row below)"},
	{"10 Go plugins loaded and idle", "wazero's compiled code, about 15 MB per Go plugin, held in anonymous memory; it could be shared only if wazero mapped its cache files (docs/runtime.md, \"Images\")"},
	{"time per turn against pi (Wasm tools", "each call runs in a fresh sandboxed instance; pi calls a JavaScript function"},
	{"time per turn against pi (Go-plugin tools)", "a fresh Go instance per call, as above"},
}
