# EdgeChat build, run and test. `make run` and `make test` install what is missing first
# (tools/setup.sh: Debian packages, ONNX Runtime, test tokenizers), idempotently.
GO      ?= go
BUILD   ?= build
export CGO_ENABLED = 1
export LANG = en_US.UTF-8

.PHONY: setup build run test test-quick vet fuzz models clean

# Fuzz targets run briefly by `make test` (package:Target); FUZZTIME bounds each. A run fails
# when the fuzzer writes a failing input (or panics), not on Go 1.26's deadline race.
FUZZTIME ?= 5s
# FUZZ_JOBS targets run at once: most of a short run is building and linking its package's
# instrumented test binary, so two at a time keep both cores busy (CI took 33 min with one).
FUZZ_JOBS ?= 2
FUZZ_TARGETS := tokenizer:FuzzRoundTrip tokenizer:FuzzWordPiece tokenizer:FuzzUnigram tokenizer:FuzzParse tokenizer:FuzzSentencePieceModel tokenizer:FuzzCutWords tokenizer:FuzzAddedTokens inference/think:FuzzParser inference/chat:FuzzTemplate inference/chat:FuzzLimits inference:FuzzOddText \
	onnx/proto:FuzzParse onnx/optimize:FuzzRewritePacked server:FuzzDecodeChatRequest server:FuzzParsePrompt inference/remote:FuzzReadStream \
	config:FuzzOpen history:FuzzOpenFile ui:FuzzSplitter ui:FuzzMarkdown ui:FuzzWrapRows \
	models/hub:FuzzParseRef models/hub:FuzzChoose models/hub:FuzzPaths internal/safepath:FuzzRel server:FuzzJSONWireError \
	documents/extract:FuzzBytes documents/extract:FuzzOfficeXML documents/extract:FuzzXLSX documents/extract:FuzzNumFormat documents/extract:FuzzPPTX documents/extract:FuzzTidy documents/extract/pdftext:FuzzContent documents/extract/pdftext:FuzzFont documents/extract/pdftext:FuzzDecodeImage documents/extract/pdftext:FuzzInlineImage documents/extract/pdftext:FuzzFilters documents/extract/pdftext:FuzzMarks documents/extract/pdftext:FuzzRebuiltXref documents/extract/pdftext:FuzzUnknownEscapes documents/extract/pdftext:FuzzStreamLineEnds documents/extract/pdftext:FuzzEndobjs documents/extract/pdftext:FuzzDecryptedCopy documents/extract/pdftext:FuzzAnnots documents/extract/pdftext:FuzzSilentAnnots documents/extract/pdftext:FuzzVertical documents/index:FuzzSplitSearch documents/index:FuzzRead documents:FuzzVectors documents:FuzzSafeName models:FuzzSentenceConfig documents/extract/pdftext:FuzzFullFilterNames \
	inference/ort/env:FuzzFixedFileVersion internal/gguf:FuzzRead inference/lookup:FuzzGreedy inference/lookup:FuzzMatch \
	inference/sample/grammar:FuzzCompile inference/toolcall:FuzzAssembler mcp:FuzzReadMessage mcp:FuzzReadSSE \
	internal/testkit/tinygpt:FuzzParse

setup:
	@tools/setup.sh

COMMIT  := $(shell git rev-parse --short=12 HEAD 2>/dev/null)

build: setup
	$(GO) build -ldflags "-X edgechat/internal/version.commit=$(COMMIT)" -o $(BUILD)/edgechat .

run: build
	./$(BUILD)/edgechat

# staticcheck is installed by tools/setup.sh into the cache, not the repository. govulncheck is
# not run: its vulnerability database is fetched from a host the build machines cannot reach.
CACHE_DIR   := $(or $(EDGECHAT_CACHE),$(or $(XDG_CACHE_HOME),$(HOME)/.cache)/edgechat)
STATICCHECK ?= $(CACHE_DIR)/bin/staticcheck

vet:
	$(GO) vet ./...
	$(GO) vet -tags hftokenizers ./tokenizer/...
	@test -z "$$(gofmt -l . | grep -v '^build/')" || { echo "gofmt needed:"; gofmt -l . | grep -v '^build/'; exit 1; }
	$(STATICCHECK) ./...

# The whole suite. First the fast tests: the engine on a fake decoder, the import rules and
# the small packages, under the race detector (seconds). Then everything else, under the race
# detector too except the packages whose tests are CPU-bound work on real ONNX Runtime sessions,
# synthetic models and tokenizers (decoders, commands, inspect, tokenizer goldens): the detector
# multiplies their time and their concurrency is the engine's, already raced on the fake, and
# the server's, raced on its own. Then short fuzzing.
# `make test-quick` runs everything once without -race.
FAST_PKGS  := ./inference ./internal/layering ./internal/eps ./internal/host ./reply ./internal/localefix
HEAVY_PKGS := ./inference/ort/decoder ./internal/testkit/synth ./onnx/optimize ./tokenizer ./tools/mkmodel ./cli ./models ./inference/sample/grammar ./server/apitest
OTHER_PKGS  = $(filter-out $(FAST_PKGS) $(HEAVY_PKGS),$(shell $(GO) list -f '{{if or .TestGoFiles .XTestGoFiles}}./{{.ImportPath}}{{end}}' ./... | sed 's|^\./edgechat|.|'))

test: setup vet
	$(GO) test -race -count=1 $(FAST_PKGS)
	$(GO) test -race -count=1 $(OTHER_PKGS)
	$(GO) test -count=1 $(HEAVY_PKGS)
	@$(MAKE) --no-print-directory fuzz

test-quick: setup vet
	$(GO) test -count=1 ./...

fuzz:
	@printf '%s\n' $(FUZZ_TARGETS) | xargs -P $(FUZZ_JOBS) -n 1 tools/fuzzone.sh $(FUZZTIME) $(GO)

models: setup
	$(GO) run ./tools/mkmodel --out $(BUILD)/m
	$(GO) run ./tools/tinygpt --out $(HOME)/.cache/edgechat/models/tinygpt-slm

clean:
	rm -rf $(BUILD)

include packaging.mk

# The server under load for longer than `make test`'s 3 s: random valid and hostile requests,
# concurrent streams that disconnect, then a shutdown under load (LOAD_SECONDS, default 60).
LOAD_SECONDS ?= 60
.PHONY: load-test
load-test:
	EDGECHAT_LOAD_SECONDS=$(LOAD_SECONDS) $(GO) test -count=1 -run '^TestServerLoad$$' -v ./server/

# kill -9 the real window under Xvfb at random points of a streaming reply, KILLS times on one
# data folder; checks every file parses, every sent message stays, at most ~1 s of reply text
# is lost (tools/crashtest).
KILLS ?= 40
.PHONY: crash-test
crash-test:
	$(GO) build -tags demo -o $(BUILD)/edgechat-demo .
	$(GO) run ./tools/crashtest --app $(BUILD)/edgechat-demo --kills $(KILLS)

# Screenshots of the real window under Xvfb: the welcome page, a chat with a streamed reply and
# its thinking, the settings pane with a validation error, the Models view, a question over an
# attached PDF with its sources (tools/screenshots/screenshots.sh).
.PHONY: screenshots
screenshots:
	tools/screenshots/screenshots.sh $(BUILD)/screenshots
