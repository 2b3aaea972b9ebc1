# wasmagent — see README.md. Every target works from a clean clone.
GO ?= go

.PHONY: all demo build test test-short check fuzz golden-pi

all: build

# The offline demo: a scripted session through the loop, no key, no network.
demo:
	$(GO) run ./examples/loop-demo

build:
	$(GO) build ./...

# Every test, with the race detector, after vet.
test:
	$(GO) vet ./...
	$(GO) test -race -count=1 ./...

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

# Re-record host/testdata/pi/*.jsonl from pi-agent-core 0.73.1 itself
# (needs Node.js and the npm registry; the tests only read the files).
golden-pi:
	cd host/testdata/pi && npm install --no-audit --no-fund --silent && node record.mjs
