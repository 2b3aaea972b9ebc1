# wasmagent — see README.md. Every target works from a clean clone.
GO ?= go
# The tests and internal/testrun build with the same go command.
export GO

.PHONY: all demo run build wasmagent plugins npm-deps node-deps test-modules test test-short bench bench-pi bench-runtime check fuzz golden-pi pi-session-fixture

all: build plugins

# The offline demo: a scripted model, the real Wasm plugins, no key, no
# network (examples/demo).
demo: plugins wasmagent
	bin/wasmagent run --config examples/demo/agent.toml "Tidy up my notes."

# One prompt against the root agent.toml and a real OpenAI-compatible
# server: make run PROMPT='...'
PROMPT ?= What can you do?
run: plugins wasmagent
	bin/wasmagent run --config agent.toml "$(PROMPT)"

# The command demo and run use, built into bin/ (git-ignored; go build
# relinks it only when a source changed). The first build, with Go's build
# cache empty, compiles every dependency (510 CPU seconds measured: about
# 4 minutes on two idle cores) and go prints nothing: a build still going
# after a few seconds says so, once.
wasmagent:
	@( sleep 4 </dev/null >/dev/null 2>&1; echo "compiling the wasmagent command into bin/wasmagent (first time: $(WASMAGENT_COLD) on 2 cores; then cached)" >&2 ) & n=$$!; \
	$(GO) build -o bin/wasmagent ./cmd/wasmagent; s=$$?; kill $$n 2>/dev/null; exit $$s
WASMAGENT_COLD = about 4 minutes

build:
	$(GO) build ./...

# npm ci in the current directory, unless node_modules was installed from
# this very package-lock.json already: the stamp is the lockfile's sha256,
# the one internal/wasmbuild.NpmCI writes and checks, so make and the
# tests never reinstall what the other installed (npm ci deletes
# node_modules first: a reinstall costs seconds even from npm's cache).
NPM_CI = sum=$$( (sha256sum 2>/dev/null || shasum -a 256) < package-lock.json | cut -d' ' -f1); \
	if [ "$$(cat node_modules/.wasmagent-lockfile-sha256 2>/dev/null)" != "$$sum" ]; then \
		echo "(cd $$(pwd | sed "s|^$(CURDIR)/||") && npm ci)"; \
		npm ci --prefer-offline --no-audit --no-fund --loglevel=error >/dev/null && \
		printf %s "$$sum" > node_modules/.wasmagent-lockfile-sha256; \
	fi

# Every first-party plugin, built from source to plugins/<name>/<name>.wasm
# (git-ignored). Go plugins with the standard Go toolchain; -trimpath
# makes the bytes, and so a sha256 pin, the same in every checkout.
# AssemblyScript plugins (a package.json) with npm: dependencies from the
# committed lockfile (npm ci), then the pinned asc, only when a source,
# config or lockfile is newer than the .wasm; without node and npm they
# are skipped, each named with the reason.
plugins:
	@n=$$(ls -d plugins/*/ | wc -l); \
	echo "building $$n plugins into plugins/<name>/<name>.wasm (first time: about 10-30s each on 2 cores; then cached)"; \
	for d in plugins/*/; do \
		n=$$(basename $$d); start=$$(date +%s); \
		printf '  %-8s ' "$$n"; \
		if [ -f $$d/package.json ]; then \
			if [ -f $$d/$$n.wasm ] && [ -z "$$(find $$d sdk/assemblyscript -newer $$d/$$n.wasm -type f \
				\( -name '*.ts' -o -name '*.json' \) -not -path '*/node_modules/*' | head -n 1)" ]; then \
				echo "up to date (AssemblyScript: no source, config or lockfile newer than $$n.wasm)"; \
				continue; \
			fi; \
			if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then \
				(cd $$d && { $(NPM_CI); } >/dev/null && npm run --silent build >/dev/null) || exit 1; \
				echo "$$(( $$(date +%s) - start ))s (AssemblyScript: npm ci, asc)"; \
			else \
				echo "skipped: an AssemblyScript plugin, and node or npm is not on PATH (install Node.js 20 to build it)"; \
			fi; \
			continue; \
		fi; \
		GOOS=wasip1 GOARCH=wasm $(GO) build -trimpath -buildmode=c-shared -o plugins/$$n/$$n.wasm ./plugins/$$n || exit 1; \
		echo "$$(( $$(date +%s) - start ))s"; \
	done

# The npm packages the tests build with and run (the AssemblyScript
# compiler, wabt; pi-coding-agent's RpcClient and SessionManager; the MCP
# TypeScript SDK client and inspector CLI),
# installed from the lockfiles, so that npm's cache serves the tests'
# own offline-first installs. Skipped, saying so, without node and npm.
NPM_DIRS = internal/testplugins/asprobe internal/testplugins/asbad internal/testplugins/wat examples/plugin-template-as \
	host/rpc/testdata/node host/mcp/testdata/node host/testdata/pi
npm-deps:
	@if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then \
		for d in $(NPM_DIRS); do \
			(cd $$d && $(NPM_CI)) || exit 1; \
		done; \
	else \
		echo "skipped npm-deps: node or npm is not on PATH; the tests that need Node.js (AssemblyScript, WAT, pi interop, MCP clients) will skip, each saying so"; \
	fi

# Every test, with the race detector, but for the packages whose tests
# link openai-go (PLAIN_PKGS: the openai provider, the command, and
# eventwire's tests, which stream through the provider): they run
# without it: compiling openai-go a second time, for the race detector,
# was an eighth of a cold make test, and the detector saw little there
# (the provider starts no goroutine, the command's tests run it as a
# child process built without the detector, and the encoder's concurrent
# use is tested under it through rpc, serve and cluster). host/provider;
# RATIONALE.md, "Why do three packages test without the race detector?".
# Then the tests whose subject the race detector voids or shrinks: the
# memory-bound test (its shadow memory), the 800 KB RPC answer and the
# cluster's 1.2 MiB tool result past a 1 MiB message bound (200 and 150
# KB under -race: race_on_test.go in their packages), and pi's generated
# scenarios (200; 30 under -race, which does not see what they compare);
# then the runtime's containment and isolation tests with instance
# images off, mapped and copied. make test does not vet: make check does
# (gofmt, go vet, go mod tidy), and CI runs it.
# internal/testrun is go test that keeps the test binaries between runs,
# so a warm run links none; it links them without DWARF or symbol table,
# and with wazero's version set so that every test process reads the one
# cache directory the prewarm fills. Each group between
# "::" is one run of its packages' binaries (its flags, then its
# packages, then -- and test flags); all of them are jobs of one pool,
# TESTP at a time (default: twice the CPUs), the longest first, each as
# soon as its binary is linked. While go builds the binaries, -before
# runs TEST_BEFORE: the plugins, the npm packages, then the prewarm
# (testcache compiles every test plugin once into the tests' shared
# compilation caches, the ways the tests compile them and under the
# names the race test binaries look for, with a compiler not slowed by
# the race detector); no test starts before it has succeeded
# (RATIONALE.md: "Why is make test shaped this way?", "Why does testrun
# run every group in one pool?"; docs/testing.md).
# (TEST_MAKE: a reference to $(MAKE) in the recipe would make make -n
# run it.)
PLAIN_PKGS = cmd/wasmagent host/eventwire host/openai
TESTP ?=
TEST_MAKE := $(MAKE)
TEST_BEFORE = $(TEST_MAKE) --no-print-directory plugins npm-deps test-modules && \
	echo "compiling the test plugins into the shared caches of the tests, without the race detector (first time: about a minute; then a few seconds)" && \
	$(GO) run ./internal/testcache
test:
	$(GO) run ./internal/testrun $(if $(TESTP),-p $(TESTP)) -vet off -before '$(TEST_BEFORE)' \
		-race -skip '^github.com/wasmagent/wasmagent/($(subst $(eval) ,|,$(PLAIN_PKGS)))$$' ./... \
		:: $(addprefix ./,$(addsuffix /,$(PLAIN_PKGS))) \
		:: ./runtime/ ./host/rpc/ ./host/cluster/ ./host/ -- -test.run '$(FULL_SIZE_TESTS)' \
		:: -env WASMAGENT_TEST_IMAGES=off ./runtime/ -- -test.run '$(IMAGE_OFF_TESTS)' \
		:: -env WASMAGENT_TEST_IMAGES=map ./runtime/ -- -test.run '$(IMAGE_OFF_TESTS)' \
		:: -env WASMAGENT_TEST_IMAGES=copy ./runtime/ -- -test.run '$(IMAGE_OFF_TESTS)'
	@$(GO) run ./internal/testcache -report

# The tests make test runs again without the race detector, at full size
# (pi's generated scenarios: 200 here, 30 under the race detector, which
# does not see what they compare).
FULL_SIZE_TESTS = MemoryBound|^TestRPCEventsBounded$$|^TestBigToolResultKeepsTheRun$$|^TestMatchesPiGenerated$$

# The runtime's containment and isolation tests, which make test runs a
# second time with images off, and with each way of making an instance
# from its image whatever this system's default (docs/runtime.md, "Images").
IMAGE_OFF_TESTS = NoAmbientAuthority|UpdateOverLimit|FilesStayInside|HostWorkCaps|LateReturnIsAnError|HTTPRequestsCap|NeverTakeTheHostDown|HostPanicFailsOnlyItsCall|SecondCallNeverSeesFirst|ParallelCallsAreIsolated|FailedCallLeavesNothing|TimeoutStopsInfiniteLoop|AbortStopsInfiniteLoop|MemoryGrant|TestImage

node-deps: npm-deps

# The modules go mod tidy reads beyond those the build needs (the tests
# of our dependencies' packages), into Go's module cache: the plugin
# template's copy test (internal/e2e) runs go mod tidy offline, as an
# author's first command, from that cache. -diff writes no file; it
# fails where go.mod or go.sum is not tidy, which make check reports.
test-modules:
	@err=$$($(GO) mod tidy -diff 2>&1 >/dev/null) || \
		echo "test-modules: $${err:-go.mod or go.sum is not as go mod tidy would write it (go mod tidy -diff shows how; make check fails on it)}"

# Re-make host/session/testdata/pi-written.jsonl with pi's own SessionManager.
pi-session-fixture: node-deps
	node host/rpc/testdata/node/make_pi_session.mjs $(CURDIR)/host/session/testdata/pi-written.jsonl

test-short:
	$(GO) test -count=1 ./...

# gofmt, vet, go mod tidy — and nothing left changed.
check:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) mod tidy
	git diff --exit-code go.mod go.sum

# Run each fuzz test for FUZZTIME (default 20s): every decoder of outside
# input, the rewriter and its generated modules, the kernel, hostile
# modules. FUZZ_TARGETS lists them as package:FuzzName.
FUZZTIME ?= 20s
FUZZ_TARGETS = \
	./host/cluster:FuzzCheckID \
	./host/cluster:FuzzDecodeCommand \
	./host/cluster:FuzzDecodeMeta \
	./host/cluster:FuzzReplyError \
	./host/cluster:FuzzStoredMessages \
	./host/config:FuzzIndexLines \
	./host/config:FuzzParse \
	./host/eventwire:FuzzBudget \
	./host/mcp:FuzzStdioLine \
	./host/openai:FuzzErrorResponse \
	./host/openai:FuzzEventValues \
	./host/openai:FuzzStream \
	./host/openai:FuzzStreamingArgs \
	./host/rpc:FuzzAnswer \
	./host/rpc:FuzzDecodeCommand \
	./host/scripted:FuzzParse \
	./host/serve:FuzzBearer \
	./host/serve:FuzzDecodeCommand \
	./host/serve:FuzzDecodeCreate \
	./host/serve:FuzzDecodeMeta \
	./host/serve:FuzzJournal \
	./host/serve:FuzzParseAfter \
	./host/serve:FuzzParseTokens \
	./host/session:FuzzDecode \
	./host/session:FuzzFastEntryDecoder \
	./host/session:FuzzListCacheFile \
	./host/session:FuzzLocatePath \
	./host/telemetry:FuzzAttributesProto \
	./host/wasmtool:FuzzDescribeCache \
	./host/wasmtool:FuzzPluginOutputs \
	./host/wasmtool:FuzzResultParts \
	./host:FuzzAppendQuoted \
	./host:FuzzDecodeMessage \
	./host:FuzzDecodeOrderedOracle \
	./host:FuzzEncodeOrdered \
	./host:FuzzFastMessageDecoder \
	./host:FuzzHookPipeline \
	./host:FuzzIndentedSize \
	./host:FuzzJSNumberRoundTrip \
	./host:FuzzJSONStringify \
	./host:FuzzMarshalEventNoHTMLEscape \
	./host:FuzzNestedOverOnlyInvalid \
	./host:FuzzPrepareArguments \
	./host:FuzzPunycodeDecode \
	./host:FuzzSchemaValidation \
	./host:FuzzTranslateJSRegexp \
	./internal/cdp:FuzzDispatch \
	./internal/cdp:FuzzReadFrames \
	./internal/cli:FuzzCtrlCReader \
	./internal/cli:FuzzHints \
	./internal/cli:FuzzHookCallJSON \
	./internal/cli:FuzzJSONSafe \
	./internal/cli:FuzzParseDir \
	./internal/cli:FuzzPrintable \
	./internal/cli:FuzzQuestionShown \
	./internal/cli:FuzzTermWriter \
	./internal/cli:FuzzUnknownSlash \
	./internal/safetext:FuzzCleanClip \
	./internal/testrun:FuzzParseArgs \
	./plugins/calc:FuzzEval \
	./plugins/fetch:FuzzRender \
	./plugins/fs:FuzzImageType \
	./plugins/policy:FuzzRewrites \
	./plugins/redact:FuzzRedact \
	./plugins/text:FuzzDiff \
	./runtime/internal/fuel:FuzzGenerated \
	./runtime/internal/fuel:FuzzInstrument \
	./runtime/internal/image:FuzzMake \
	./runtime/internal/wasmbin:FuzzReadFacts \
	./runtime:FuzzBulkExports \
	./runtime:FuzzBulkParts \
	./runtime:FuzzDecodeRewrite \
	./runtime:FuzzDiskCap \
	./runtime:FuzzHostileABICalls \
	./runtime:FuzzHostileModule \
	./runtime:FuzzHostileWASICalls \
	./runtime:FuzzKernel \
	./sdk/assemblyscript:FuzzJSON \
	./sdk/pathglob:FuzzCompile \
	./sdk:FuzzAppendJSONString \
	./sdk:FuzzEncodeAfter \
	./sdk:FuzzEncodeResult \
	./sdk:FuzzSchemaTags

fuzz:
	@for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; fn=$${t##*:}; \
		echo "$(GO) test $$pkg -run '^$$' -fuzz '^$$fn$$' -fuzztime $(FUZZTIME)"; \
		$(GO) test $$pkg -run '^$$' -fuzz "^$$fn$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 5s || exit 1; \
	done

# Every benchmark, several runs each, summarised with benchstat and written
# up as docs/benchmarks.md (medians, ratios to the baselines measured in
# the same run, targets). pi's side needs Node.js; without it the report
# says so.
BENCHCOUNT ?= 6
BENCHSTAT ?= golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da
bench: plugins
	$(GO) test ./runtime/ -run '^$$' -bench . -benchtime 300ms -count $(BENCHCOUNT) -timeout 30m > bench.out
	$(GO) test -p 1 ./host/ ./host/wasmtool/ -run '^$$' -bench 'Loop|Result1MiB|DecodeResult1MiB' -count $(BENCHCOUNT) >> bench.out
	$(GO) test ./cmd/wasmagent/ -run '^$$' -bench ColdStart -benchtime 1x -count $(BENCHCOUNT) >> bench.out
	$(GO) test ./host/eventwire/ -run '^$$' -bench JSONEvents -benchtime 1x -count $(BENCHCOUNT) >> bench.out
	$(GO) test ./host/mcp/ -run '^$$' -bench MCPCall -count $(BENCHCOUNT) >> bench.out
	$(GO) test ./host/serve/ -run '^$$' -bench ServeLoad -benchtime 1x -count $(BENCHCOUNT) -timeout 20m >> bench.out
	$(GO) test ./host/cluster/ -run '^$$' -bench 'ClusterSessions|ClusterStore' -benchtime 3x -count $(BENCHCOUNT) -timeout 20m >> bench.out
	$(GO) test ./host/cluster/ -run '^$$' -bench '^Benchmark(StoreAppend|StoreLoad|StoreList|LeaseRenew)$$' -benchtime 300ms -count $(BENCHCOUNT) >> bench.out
	$(GO) test ./host/cluster/ -run '^$$' -bench 'SessionFootprint' -benchtime 1000x -count $(BENCHCOUNT) >> bench.out
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
	cd host/testdata/pi && npm install --no-audit --no-fund --silent && node record.mjs && node numbers.mjs
