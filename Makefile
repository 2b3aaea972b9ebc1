# wasmagent — see README.md. Every target works from a clean clone.
GO ?= go

.PHONY: all demo run build plugins test test-short bench bench-pi bench-runtime check fuzz golden-pi

all: build plugins

# The offline demo: a scripted model, the real Wasm plugins, no key, no
# network (examples/demo).
demo: plugins
	$(GO) run ./cmd/wasmagent run --config examples/demo/agent.toml "Tidy up my notes."

# One prompt against the root agent.toml and a real OpenAI-compatible
# server: make run PROMPT='...'
PROMPT ?= What can you do?
run: plugins
	$(GO) run ./cmd/wasmagent run --config agent.toml "$(PROMPT)"

build:
	$(GO) build ./...

# Every first-party plugin, built from source to plugins/<name>/<name>.wasm
# (git-ignored) with the standard Go toolchain; -trimpath makes the bytes,
# and so a sha256 pin, the same in every checkout.
plugins:
	@n=$$(ls -d plugins/*/ | wc -l); \
	echo "building $$n plugins for wasip1 into plugins/<name>/<name>.wasm (first time: about 10-30s each on 2 cores; then cached)"; \
	for d in plugins/*/; do \
		n=$$(basename $$d); start=$$(date +%s); \
		printf '  %-8s ' "$$n"; \
		GOOS=wasip1 GOARCH=wasm $(GO) build -trimpath -buildmode=c-shared -o plugins/$$n/$$n.wasm ./plugins/$$n || exit 1; \
		echo "$$(( $$(date +%s) - start ))s"; \
	done

# Every test, with the race detector, after vet; then the memory-bound
# test, which the race detector's shadow memory would void. Tests build
# the test plugins they need themselves; testcache first compiles them all
# once into the tests' shared compilation cache, with a compiler not slowed
# by the race detector (RATIONALE.md: "Why does make test warm the
# compilation cache first?").
test: plugins
	$(GO) vet ./...
	@echo "compiling the test plugins into the tests' shared cache (first time: 1-2 min; then about a second)"
	$(GO) run ./internal/testcache
	$(GO) test -count=1 ./internal/testcache/
	$(GO) test -race -count=1 ./...
	$(GO) test -count=1 -run 'MemoryBound' ./runtime/

test-short:
	$(GO) test -count=1 ./...

# gofmt, vet, go mod tidy — and nothing left changed.
check:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) mod tidy
	git diff --exit-code go.mod go.sum

# Run each fuzz test for FUZZTIME (default 20s).
FUZZTIME ?= 20s
fuzz:
	$(GO) test ./host/ -run '^$$' -fuzz FuzzPrepareArguments -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) test ./host/ -run '^$$' -fuzz FuzzDecodeMessage -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) test ./host/scripted/ -run '^$$' -fuzz FuzzParse -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) test ./host/wasmtool/ -run '^$$' -fuzz FuzzPluginOutputs -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) test ./plugins/calc/ -run '^$$' -fuzz FuzzEval -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) test ./plugins/redact/ -run '^$$' -fuzz FuzzRedact -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) test ./host/openai/ -run '^$$' -fuzz FuzzStream -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) test ./host/config/ -run '^$$' -fuzz FuzzParse -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) test ./host/config/ -run '^$$' -fuzz FuzzIndexLines -fuzztime $(FUZZTIME) -fuzzminimizetime 5s

# Every benchmark, several runs each, summarised with benchstat and written
# up as docs/benchmarks.md (medians, ratios to the baselines measured in
# the same run, targets). pi's side needs Node.js; without it the report
# says so.
BENCHCOUNT ?= 6
BENCHSTAT ?= golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da
bench: plugins
	$(GO) test ./runtime/ -run '^$$' -bench . -benchtime 300ms -count $(BENCHCOUNT) -timeout 30m > bench.out
	$(GO) test -p 1 ./host/ ./host/wasmtool/ -run '^$$' -bench Loop -count $(BENCHCOUNT) >> bench.out
	$(GO) test ./cmd/wasmagent/ -run '^$$' -bench ColdStart -benchtime 1x -count $(BENCHCOUNT) >> bench.out
	-$(MAKE) --no-print-directory bench-pi
	$(GO) run $(BENCHSTAT) bench.out > bench.stat
	$(GO) run ./internal/benchreport -in bench.out -pi bench-pi.out -stat bench.stat -out docs/benchmarks.md -cmd 'make bench'
	@echo "wrote docs/benchmarks.md"

# pi-agent-core 0.73.1's loop on the same scripted session (Node.js).
bench-pi:
	cd host/testdata/pi && npm install --no-audit --no-fund --silent && node bench.mjs > ../../../bench-pi.out

# The runtime's benchmarks: per-call cost against native Go and plain
# Extism go-sdk, instantiation, cold start, parallel sleeps, abort latency.
bench-runtime:
	$(GO) test ./runtime/ -run '^$$' -bench . -count 6 -timeout 30m

# Re-record host/testdata/pi/*.jsonl from pi-agent-core 0.73.1 itself
# (needs Node.js and the npm registry; the tests only read the files).
golden-pi:
	cd host/testdata/pi && npm install --no-audit --no-fund --silent && node record.mjs
