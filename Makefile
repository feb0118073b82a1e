# Tilawa — build, test and run on Debian 12.
# `make run` and `make test` install whatever Debian packages are missing first.

SWIFT        ?= swift
STATE_DIR    ?= ./var
BIN_DEBUG    := .build/debug/tilawa
BIN_RELEASE  := .build/release/tilawa

# Libraries the product links, plus what the tests use to check its output
# (opusinfo/opusdec from opus-tools, ffprobe from ffmpeg for the MP4 and CAF variants) and to
# move the clock (faketime); curl, which `make run`'s demo seeding and its test use.
RUNTIME_PACKAGES := libavformat-dev libavcodec-dev libswresample-dev libavutil-dev \
                    libopusenc-dev libopus-dev libogg-dev libebur128-dev libasound2-dev \
                    libsqlite3-dev pkg-config
TEST_PACKAGES    := opus-tools faketime python3 python3-venv ffmpeg chromium chromium-driver fonts-hosny-amiri curl unzip
# Python peers the tests run against, from PyPI, in a virtual environment of the project's:
# the OpenAPI response validator (jsonschema with its RFC 3339 format check, PyYAML) and
# the Standard Webhooks verifier (standardwebhooks) the webhook tests check deliveries with, and
# the tus client (tuspy) the resumable-upload test drives the daemon with, and Selenium, which
# drives Debian's headless Chromium (chromium, chromium-driver; fonts-hosny-amiri for the
# Arabic text) through the coach's desk; PyJWT with cryptography signs the identity provider's
# tokens the OIDC tests present (an implementation independent of jwt-kit); botocore, the
# independent SigV4 signer the S3 tests check ours against and the client the S3 server check
# (Tests/s3/s3_server_check.py) talks to scripts/s3-server.sh's server with; hypercorn with h2,
# the HTTP/2-over-TLS server the APNs stand-in (Tests/push/apns_server.py) runs on; scim2-tester
# with its client (scim2-client over httpx2, scim2-models), the SCIM conformance checker
# Tests/scim/conformance.py runs against a daemon (SCIMConformanceTests).
TEST_VENV        := .venv-test
TEST_PYTHON_PACKAGES := jsonschema==4.26.0 referencing==0.37.0 rfc3339-validator==0.1.4 PyYAML==6.0.3 standardwebhooks==1.1.0 tuspy==1.1.0 selenium==4.38.0 PyJWT==2.10.1 cryptography==50.0.2 botocore==1.43.11 hypercorn==0.17.3 h2==4.4.1 scim2-tester==0.5.2 scim2-client==0.13.2 scim2-models==0.12.3 httpx2==2.16.2
# The S3-compatible server the S3 tests run against, checking SigV4 signatures as AWS does:
# OpenStack Swift's proxy with its s3api and tempauth middlewares, its account, container and
# object servers (python3-swift comes with them) and memcached, where tempauth keeps its tokens.
# scripts/s3-server.sh runs them from a temporary directory on free loopback ports; `make deps-s3`
# installs them without starting or enabling their stock services (the stock proxy takes 8080).
S3_PACKAGES      := swift swift-proxy swift-account swift-container swift-object memcached
# PostgreSQL 15 for `make test-postgres` (scripts/pg-server.sh: a throw-away cluster as an
# unprivileged user on a free port); installed the same way, its stock cluster never started.
POSTGRES_PACKAGES := postgresql-15 postgresql-common
# promtool, for the alert rules shipped in ops/prometheus/ (checked and unit-tested by
# `make test`): Debian's prometheus package, installed as the S3 server is, its service never
# started (only its promtool is used).
RULES_PACKAGES   := prometheus
# Only for regenerating audio-fixtures/ and for the benchmarks (python3-dev: bench-encode builds
# PyPI's pesq from source for its PESQ-WB figure; linux-perf: the CPU ratios by libopus share).
TOOL_PACKAGES    := sox espeak-ng ffmpeg opus-tools bc curl sqlite3 socat python3-dev python3-venv linux-perf

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: deps deps-tools deps-s3 deps-postgres deps-rules test-rules test-postgres test-venv build release test run soak bench bench-encode bench-analyze bench-upload bench-load bench-burst bench-status bench-backup bench-s3 soak-nodes soak-chaos bench-ready bench-align bench-desk bench-push fixtures config-docs clean

define install_missing
	@missing=""; for p in $(1); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing </dev/null; \
	fi
endef

deps:
	$(call install_missing,$(RUNTIME_PACKAGES) $(TEST_PACKAGES))

# The test virtual environment, made once and topped up when the list above changes.
test-venv: $(TEST_VENV)/.installed

$(TEST_VENV)/.installed: Makefile | deps
	@command -v python3 >/dev/null || { echo "python3 is missing"; exit 1; }
	@[ -x $(TEST_VENV)/bin/python ] || python3 -m venv $(TEST_VENV)
	$(TEST_VENV)/bin/python -m pip install --quiet --disable-pip-version-check $(TEST_PYTHON_PACKAGES) </dev/null
	@touch $@

deps-tools: deps
	$(call install_missing,$(TOOL_PACKAGES))

# As install_missing, but with a /usr/sbin/policy-rc.d refusing every service start in place
# only for the install (a machine's own one is put back after, even on failure); then any of the
# packages' systemd units found enabled or running is disabled and stopped: the tests start
# their own servers, on free ports, and the stock ones would take 8080 (Swift's proxy) or 5432.
define install_held_back
	@missing=""; for p in $(1); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing (their services held back)"; \
	  saved=""; \
	  if [ -e /usr/sbin/policy-rc.d ]; then saved=$$($(SUDO) mktemp) && $(SUDO) cp -p /usr/sbin/policy-rc.d "$$saved" || exit 1; fi; \
	  trap 'if [ -n "$$saved" ]; then $(SUDO) mv -f "$$saved" /usr/sbin/policy-rc.d; else $(SUDO) rm -f /usr/sbin/policy-rc.d; fi' EXIT; \
	  trap 'exit 130' INT TERM HUP; \
	  printf '#!/bin/sh\n# make: no service starts during this install\nexit 101\n' | $(SUDO) tee /usr/sbin/policy-rc.d >/dev/null && \
	  $(SUDO) chmod 755 /usr/sbin/policy-rc.d && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing </dev/null || exit 1; \
	fi; \
	if command -v systemctl >/dev/null; then \
	  for u in $$(dpkg-query -L $(1) 2>/dev/null | sed -n 's|^\(/usr\)\{0,1\}/lib/systemd/system/\([^/]*\.service\)$$|\2|p' | sort -u); do \
	    if systemctl is-enabled --quiet $$u 2>/dev/null || systemctl is-active --quiet $$u 2>/dev/null; then \
	      echo "disabling $$u"; $(SUDO) systemctl disable --now --quiet $$u </dev/null 2>/dev/null || true; \
	    fi; \
	  done; \
	fi
endef

deps-s3:
	$(call install_held_back,$(S3_PACKAGES))

deps-rules:
	$(call install_held_back,$(RULES_PACKAGES))

# The alert and recording rules: valid (promtool check) and each alert firing on the series of
# a failing node and quiet on a healthy one (promtool test, ops/prometheus/tilawa.rules.test.yml);
# and the Grafana dashboard: every panel on the datasource variable, every expression PromQL
# that promtool parses (scripts/dashboard-check.py). That each metric they read is exported is
# the Swift suite's AlertRulesTests.
test-rules: deps-rules test-venv
	scripts/timed.sh "alert rules and dashboard (promtool)" sh -c 'promtool check rules ops/prometheus/tilawa.rules.yml && promtool test rules ops/prometheus/tilawa.rules.test.yml && $(TEST_VENV)/bin/python scripts/dashboard-check.py ops/grafana/tilawa-dashboard.json'

# PostgreSQL 15 for `make test-postgres` (scripts/pg-server.sh runs a throw-away cluster).
deps-postgres:
	$(call install_held_back,$(POSTGRES_PACKAGES))

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

test: deps deps-s3 deps-rules test-venv
	$(MAKE) --no-print-directory test-rules
	scripts/timed.sh "build for tests" $(SWIFT) build --build-tests
	scripts/timed.sh "the whole suite (SQLite)" $(SWIFT) test --skip-build

# The PostgreSQL suites: TilawaStoreTests on both engines, TilawaPostgresTests, the commands on
# PostgreSQL and `tilawa db check`; then the whole daemon suite again with every test daemon on
# PostgreSQL (TILAWA_TEST_ENGINE=postgres; the backup suites are SQLite's). The tests start and
# stop throw-away PostgreSQL 15 servers themselves (scripts/pg-server.sh: a scratch directory,
# a free loopback port, an unprivileged user). Each stage has 30 minutes, so that a hang fails
# CI rather than use up its time.
# The three-node soak and the chaos soak run alone last, one after the other: their daemons,
# encodes, 40-s stops and restarted servers beside the daemon suite starve that suite's own
# daemons on a 2-core box (read timeouts, seen here).
# The daemon suite on PostgreSQL runs at most 12 tests at once: unbounded, some 70 test daemons,
# each with its store's threads and sessions, and 230 server processes shared two cores. (Every
# stage also holds its live daemons and heavy tests to two per core, TestSlots, and no test's
# request has a fixed read timeout: LiveTesting.swift.)
# `make test` leaves the PostgreSQL cases out: they need the server this target installs.
test-postgres: deps deps-s3 deps-postgres test-venv
	scripts/timed.sh "build for tests" $(SWIFT) build --build-tests
	TILAWA_TEST_POSTGRES=1 scripts/timed.sh "store suites on both engines" timeout 1800 $(SWIFT) test --skip-build --filter "TilawaPostgresTests|TilawaStoreTests"
	TILAWA_TEST_POSTGRES=1 TILAWA_TEST_ENGINE=postgres scripts/timed.sh "daemon suite on PostgreSQL" timeout 1800 $(SWIFT) test --skip-build --filter TilawaDaemonTests --skip "NodeSoakTests|ChaosSoakTests" --experimental-maximum-parallelization-width 12
	TILAWA_TEST_POSTGRES=1 TILAWA_TEST_ENGINE=postgres scripts/timed.sh "command-line suite on PostgreSQL" timeout 1800 $(SWIFT) test --skip-build --filter TilawaCommandLineTests
	TILAWA_TEST_POSTGRES=1 TILAWA_TEST_ENGINE=postgres scripts/timed.sh "short node soak" timeout 1800 $(SWIFT) test --skip-build --filter NodeSoakTests
	TILAWA_TEST_POSTGRES=1 TILAWA_TEST_ENGINE=postgres scripts/timed.sh "short chaos soak" timeout 1800 $(SWIFT) test --skip-build --filter ChaosSoakTests

# Builds, imports the sample programme into ./var, prints a ready-to-paste upload line with a
# fresh token, and runs the daemon on 127.0.0.1:8080 until Ctrl-C.
run: build
	scripts/run.sh $(BIN_DEBUG)

fixtures: deps-tools
	audio-fixtures/generate.sh

# The configuration table of the README and CONFIGURATION.md, written from the catalogue
# (`ConfigurationKey`); a test fails when they differ.
config-docs: build
	$(BIN_DEBUG) config keys --markdown | python3 scripts/config-docs.py README.md Sources/TilawaDaemon/Configuration/CONFIGURATION.md

# The whole performance suite (release build), ending in one table: encoder vs opusenc,
# analysis vs ffmpeg's ebur128, upload answer vs bare analysis, peak RSS with 64 concurrent
# uploads, a burst of 1,000 one-minute uploads, status on a million rows, start to READY.
bench: deps-tools release
	scripts/bench.sh $(BIN_RELEASE)

# Our encoder against opusenc on the same 3-minute speech file (release build).
bench-encode: deps-tools release
	scripts/bench-encode.sh $(BIN_RELEASE)

# `tilawa status --json` on 1,000,000 submissions over 5,000 students (release build; target <= 0.3 s).
bench-status: deps-tools release
	scripts/bench-status.sh $(BIN_RELEASE)

# Backups on the million-row state (database part) and on 10,000 real-size recordings (files), first and incremental.
bench-backup: deps-tools release
	scripts/bench-backup.sh $(BIN_RELEASE)

# CPU per accepted upload with artifacts in an S3 store (s3api) against on disk, alternating
# rounds in one run; the store's own CPU apart (scripts/bench-s3.sh takes uploads per round, rounds per side).
bench-s3: deps-tools deps-s3 test-venv release
	scripts/bench-s3.sh $(BIN_RELEASE)

# The analysis pass against `ffmpeg -af ebur128 -f null -` on the same 3-minute speech file.
bench-analyze: deps-tools release
	scripts/bench-analyze.sh $(BIN_RELEASE)

# Upload answer time vs bare analysis, peak RSS with 64 concurrent 17 MB uploads, drain time.
bench-upload: deps-tools release
	scripts/bench-upload.sh $(BIN_RELEASE)

# 32 then 256 clients uploading at once under http.max_concurrent_uploads 32: peak RSS, 503 retries.
bench-load: deps-tools release
	scripts/bench-load.sh $(BIN_RELEASE)

# 1,000 one-minute M4A uploads at once: drain time and throughput relative to one core.
bench-burst: deps-tools release
	scripts/bench-burst.sh $(BIN_RELEASE)

# Ayah markers on a generated espeak-ng bench set: ayah starts within 300 ms (target >= 95 %),
# flawed recitations (restarts, runs-together), wrong-passage recordings without times (target 100 %). `scripts/bench-align.sh .build/debug/tilawa`
# runs it on a debug build (same figures).
bench-align: deps-tools release
	scripts/bench-align.sh $(BIN_RELEASE)

# The coach's desk in headless Chromium on loopback, a queue of 500 and a 15-minute recording:
# navigation start to the first queue row painted (target < 500 ms), the play click to sound
# (target < 200 ms), from 0:00 and at 10:00.
bench-desk: deps-tools test-venv release
	scripts/bench-desk.sh $(BIN_RELEASE)

# An announcement pushed to 10,000 iPhones through the tests' APNs stand-in: seconds to the
# last one (target < 60 s), pushes per second, the daemon's CPU per push.
bench-push: deps-tools test-venv release
	scripts/bench-push.sh $(BIN_RELEASE)

# Time from `tilawa serve` to READY=1 on an empty state directory.
bench-ready: deps-tools release
	scripts/bench-ready.sh $(BIN_RELEASE)

# The crash soak: 200 uploads and 200 drop-folder replies with the daemon SIGKILLed at random
# moments and a webhook receiver listening, then the invariants; three runs in a row, then
# 10,000 mutated files through `tilawa analyze` and 1,000 through the upload route.
# (`make test` runs a short soak and a few hundred fuzz cases.)
# The three-node soak at full length (DESIGN §13): three daemons on one PostgreSQL database and
# one S3 store, 240 uploads spread over them, 8 rounds of SIGKILL or a 40-s SIGSTOP, a webhook
# receiver listening, then the invariants (`make test-postgres` runs a short one).
soak-nodes: deps deps-s3 deps-postgres test-venv
	$(SWIFT) build --build-tests
	NODE_SOAK=1 TILAWA_TEST_POSTGRES=1 TILAWA_TEST_ENGINE=postgres $(SWIFT) test --skip-build --filter NodeSoakTests

# Chaos with nothing lost (issue 47, item 4) at full length: two daemons on a PostgreSQL server
# and an S3 store of the test's own, recordings and coaches' replies flowing through three rounds
# of PostgreSQL restarted twice (pg_ctl restart -m fast), the S3 store stopped for 60 s and
# started again, a node's state directory (a 64 MiB tmpfs, mounted as root; skipped otherwise)
# filled to its last byte, and a node SIGSTOPped past its job leases; after each, the invariants
# (every 201 has its audio, the attempt rule exact, every job done once, every event delivered,
# every refusal a 503 or 507 with Retry-After, each node serving again without a restart). What
# students got while the store was down is printed. (`make test-postgres` runs one short round.)
soak-chaos: deps deps-s3 deps-postgres test-venv
	$(SWIFT) build --build-tests
	CHAOS_SOAK=1 TILAWA_TEST_POSTGRES=1 TILAWA_TEST_ENGINE=postgres $(SWIFT) test --skip-build --filter ChaosSoakTests

soak: deps test-venv
	$(SWIFT) build --build-tests
	for run in 1 2 3; do SOAK=1 $(SWIFT) test --skip-build --filter SoakTests || exit 1; done
	FUZZ_CASES=10000 FUZZ_UPLOAD_CASES=1000 $(SWIFT) test --skip-build --filter 'FuzzTests'

clean:
	rm -rf .build
