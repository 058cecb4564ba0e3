# Municipal services API platform. `make run` starts the whole stack on the
# local Postgres and Redis; `make test` runs every module's tests against them.
SHELL := /bin/bash
.DEFAULT_GOAL := help

MODULES   := pkg gateway services/jobs services/search-admin deploy tools
PACKAGES  := $(addsuffix /...,$(addprefix ./,$(MODULES)))
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -s -w -X github.com/municipal-apis/platform/pkg/version.Version=$(VERSION)
GOTEST    ?= -race -count=1 -timeout 15m
GOTEST_SHORT ?= -short -count=1 -timeout 10m
STATICCHECK ?= $(shell command -v staticcheck || echo $(shell go env GOPATH)/bin/staticcheck)
STATICCHECK_VERSION := v0.8.2

# programs.txt is the one list of the programs: name, module, main package.
PROGRAMS := $(shell awk '$$1 ~ /^[a-z]/ && NF == 3 {print $$1}' programs.txt)
main_of   = $(shell awk -v p=$(1) '$$1 == p && NF == 3 {print $$3}' programs.txt)
CLI_MAIN := ./tools/cmd/municipal

.PHONY: help
help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-10s %s\n", $$1, $$2}'

.PHONY: build
build: ## static binaries of every program in bin/
	@mkdir -p bin
	@$(foreach p,$(PROGRAMS),echo "build bin/$(p)" && CGO_ENABLED=0 go build -trimpath -ldflags '$(LDFLAGS)' -o bin/$(p) $(call main_of,$(p)) &&) true
	@echo "build bin/municipal"; CGO_ENABLED=0 go build -trimpath -ldflags '$(LDFLAGS)' -o bin/municipal $(CLI_MAIN)

.PHONY: deps
deps: ## start, install or run in containers the Postgres and Redis the tests and run need
	./scripts/deps.sh

.PHONY: test
test: ## every module's tests with -race against the local Postgres and Redis (and Chromium), then each fuzz target for 5 s
	./scripts/deps.sh --browser
	go test $(GOTEST) $(PACKAGES)
	FUZZTIME=5s ./scripts/fuzz.sh

.PHONY: fuzz
fuzz: deps ## each fuzz target for FUZZTIME (default 2m); crashers land in the packages' testdata/fuzz
	FUZZTIME=$${FUZZTIME:-2m} ./scripts/fuzz.sh

.PHONY: test-short
test-short: deps ## unit tests only (go test -short): no load test, fuzzing, end-to-end or fault suites
	go test $(GOTEST_SHORT) $(PACKAGES)

.PHONY: lint
# vet and staticcheck load the packages as `go test -race` builds them (no
# file of ours depends on the race build tag): `make test` after `make lint`
# then reuses every compiled package instead of building the tree a second
# time, minutes on a cold cache (CI).
lint: ## gofmt check, go vet, staticcheck (installed into GOPATH/bin when missing)
	@out=$$(gofmt -l $(MODULES)); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	go vet -race $(PACKAGES)
	@[ -x "$(STATICCHECK)" ] || go install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	GOFLAGS="$(strip $(GOFLAGS) -race)" $(STATICCHECK) $(PACKAGES)

.PHONY: run
run: deps build ## the whole stack in the foreground: devidp, search-admin, jobs, gateway
	@go build -o bin/stack ./tools/cmd/stack
	bin/stack -bin bin

.PHONY: images
images: ## container images of every program (needs a Docker engine)
	@for p in $(PROGRAMS); do \
	  docker build --build-arg PROGRAM=$$p --build-arg VERSION=$(VERSION) -t ghcr.io/municipal-apis/$$p:$(VERSION) . || exit 1; \
	done

.PHONY: up
up: ## the docker-compose stack with Keycloak (needs a Docker engine)
	docker compose up --build

.PHONY: up-fresh
up-fresh: ## recreate Keycloak so it imports the edited realm file (needs a Docker engine)
	docker compose up --detach --force-recreate --no-deps --wait keycloak

.PHONY: bench
bench: ## the benchmark set; writes docs/benchmarks.md
	go run ./tools/cmd/benchreport -out docs/benchmarks.md -plot docs/benchmarks-latency.png
