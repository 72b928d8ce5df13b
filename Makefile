# EdgeChat build, run and test. `make run` and `make test` install what is missing first
# (tools/setup.sh: Debian packages, ONNX Runtime, test tokenizers), idempotently.
GO      ?= go
BUILD   ?= build
export CGO_ENABLED = 1
export LANG = en_US.UTF-8

.PHONY: setup build run test test-quick vet fuzz models clean

# Fuzz targets run briefly by `make test` (package:Target); FUZZTIME bounds each. A run fails
# when the fuzzer writes a failing input (or panics), not on Go 1.26's deadline race.
FUZZTIME ?= 8s
FUZZ_TARGETS := inference/tokenizer:FuzzRoundTrip inference/think:FuzzParser inference/chat:FuzzTemplate \
	internal/onnxproto:FuzzParse server:FuzzDecodeChatRequest inference/remote:FuzzReadStream \
	config:FuzzOpen history:FuzzOpenFile ui:FuzzSplitter internal/residency:FuzzParseSmaps \
	models/hub:FuzzParseRef models/hub:FuzzChoose internal/gguf:FuzzRead inference/lookup:FuzzGreedy

setup:
	@tools/setup.sh

COMMIT  := $(shell git rev-parse --short=12 HEAD 2>/dev/null)

build: setup
	$(GO) build -ldflags "-X edgechat/internal/version.commit=$(COMMIT)" -o $(BUILD)/edgechat .

run: build
	./$(BUILD)/edgechat

vet:
	$(GO) vet ./...
	$(GO) vet -tags hftokenizers ./inference/tokenizer/...
	@test -z "$$(gofmt -l . | grep -v '^build/')" || { echo "gofmt needed:"; gofmt -l . | grep -v '^build/'; exit 1; }

# The whole suite: vet, unit and integration tests on real ONNX Runtime sessions, all under the
# race detector (~7 min on 2 cores), then short fuzzing. `make test-quick` skips -race (~1 min).
test: setup vet
	$(GO) test -race -count=1 ./...
	@$(MAKE) --no-print-directory fuzz

test-quick: setup vet
	$(GO) test -count=1 ./...

fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; fn=$${t##*:}; \
		echo "fuzz $$pkg $$fn ($(FUZZTIME))"; \
		log=$$(mktemp); \
		if ! $(GO) test ./$$pkg -run '^$$' -fuzz "^$$fn$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 2s >$$log 2>&1; then \
			if grep -q 'context deadline exceeded' $$log && ! grep -qE 'Failing input written|panic:' $$log; then \
				echo "  no failing input: Go 1.26's fuzz coordinator hit its own deadline (golang/go#75804), ignored"; \
			else cat $$log; rm -f $$log; exit 1; fi; \
		fi; \
		rm -f $$log; \
	done

models: setup
	$(GO) run ./tools/mkmodel --out $(BUILD)/m

clean:
	rm -rf $(BUILD)

include packaging.mk

# Screenshots of the real window under Xvfb: the welcome page, a chat with a streamed reply and
# its thinking, the settings pane with a validation error (tools/screenshots/screenshots.sh).
.PHONY: screenshots
screenshots:
	tools/screenshots/screenshots.sh $(BUILD)/screenshots
