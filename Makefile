# HearClear. `make run` serves on http://127.0.0.1:8080 with an embedded PostgreSQL;
# `make test` runs every test against a real (embedded) PostgreSQL.
SWIFT ?= swift
ARGS ?=

.PHONY: deps build release run test contract generate format loadtest clean

deps:
	@./scripts/deps.sh

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

run: build
	$(SWIFT) run hearclear serve $(ARGS)

test: deps
	$(SWIFT) build --build-tests
	SWIFT=$(SWIFT) ./scripts/generate-client.sh --build
	$(SWIFT) test --skip-build
	./scripts/contract-test.sh

# schemathesis against a served debug build (part of `make test`).
contract: deps
	$(SWIFT) build --product hearclear
	./scripts/contract-test.sh

# HearClearClient's code from API/openapi.yaml, into Sources/HearClearClient/Generated (commit it).
# Builds swift-openapi-generator (Tools/generate-client) into .build-generator the first time, about a minute.
generate:
	SWIFT=$(SWIFT) ./scripts/generate-client.sh

format:
	$(SWIFT) format -i -r Sources Tests Package.swift

# Needs a server running (`make run` in another terminal, or a release build for real numbers).
loadtest: release
	.build/release/hearclear loadtest ingest --url http://127.0.0.1:8080 --clients 32 --duration 30

clean:
	rm -rf .build .build-generator
