# Run `make help` for the targets. CI runs .ci/run, which uses the same scripts.
.DEFAULT_GOAL := help
SHELL := bash

.PHONY: help
help: ## Describe the targets
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F ':.*## ' '{printf "  %-12s %s\n", $$1, $$2}'

.PHONY: test
test: ## Run the root module's and the conformance fixture's tests with the race detector
	go test -race -short ./...
	cd conformance && go test -race -short ./...

.PHONY: lint
lint: ## Run go vet, the gofmt check and pinned golangci-lint (.golangci.yml, staticcheck included) on the root, conformance and interop
	tools/lint.sh
	cd conformance && ../tools/lint.sh
	cd interop && ../tools/lint.sh

.PHONY: conformance
conformance: ## Run the official MCP conformance suite against ./conformance/everything
	tools/conformance.sh

.PHONY: interop
interop: ## Run the Go and TypeScript SDK interop tests
	cd interop && go test -count=1 ./...
	tools/npm.sh >/dev/null
	"$$(tools/node22.sh)" --test --test-reporter=spec interop/ts/*.test.mjs

.PHONY: bench
bench: ## Run the benchmarks (bench module)
	cd bench && go test -run '^$$' -bench . ./...

.PHONY: clean
clean: ## Remove pinned tools and installed npm packages
	rm -rf .tmp tools/npm/node_modules
