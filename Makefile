# HearClear. `make run` serves on http://127.0.0.1:8080 with an embedded PostgreSQL;
# `make test` runs every test against a real (embedded) PostgreSQL.
SWIFT ?= swift
ARGS ?=

.PHONY: deps build release run test contract format loadtest clean

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
	$(SWIFT) test --skip-build
	./scripts/contract-test.sh

# schemathesis against a served debug build (part of `make test`).
contract: deps
	$(SWIFT) build --product hearclear
	./scripts/contract-test.sh

format:
	$(SWIFT) format -i -r Sources Tests Package.swift

# Needs a server running (`make run` in another terminal, or a release build for real numbers).
loadtest: release
	.build/release/hearclear loadtest ingest --url http://127.0.0.1:8080 --clients 32 --duration 30

clean:
	rm -rf .build
