# Two entry points for a fresh Debian machine: `make run` and `make test`.
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test test-fast lint system-deps build-deps

# setup.py and rtc/_forward.c: the SFU's compiled forwarding is built by the install.
$(STAMP): pyproject.toml setup.py rtc/_forward.c | build-deps
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $(STAMP)

# A C compiler and Python's headers build rtc/_forward.c (the SFU's forwarding) at install.
build-deps:
	@test -x /usr/bin/cc && python3 -c 'import sysconfig, os, sys; \
	  sys.exit(not os.path.exists(sysconfig.get_path("include") + "/Python.h"))' || { \
	  apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq build-essential python3-dev; }

# Debian's Chromium drives the browser tests (never a downloaded browser).
system-deps: build-deps
	@test -x /usr/bin/chromium || { apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; }
	@# Chat lines may hold emoji: a colour emoji font draws them (the bots' avatars are SVG).
	@test -f /usr/share/fonts/truetype/noto/NotoColorEmoji.ttf || { apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fonts-noto-color-emoji; }
	@# Redis and PostgreSQL for the scale-out test (tests/load/test_scale_out.py).
	@test -x /usr/bin/redis-server && ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1 || { \
	  apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server postgresql; }
	@# The front doors and the TURN server of deploy/ (tests/browser/test_front_door.py,
	@# tests/browser/test_turn.py): Debian's caddy, nginx and coturn.
	@test -x /usr/bin/caddy && test -x /usr/sbin/nginx && test -x /usr/bin/turnserver || { \
	  apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq caddy nginx coturn; }
	@# TURN over TLS (tests/browser/test_turn_tls.py): the phone's firewall in its namespace
	@# (nftables) and an NSS database that trusts the test's CA (libnss3-tools' certutil).
	@test -x /usr/sbin/nft && test -x /usr/bin/certutil || { apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nftables libnss3-tools; }

# The demo's first start puts this much in the house for the bots (docs/hosting.md).
DEMO_HOUSE ?= 10000

run: $(STAMP)
	SVARA_DEMO_HOUSE=$(DEMO_HOUSE) $(VENV)/bin/svara serve

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

test: system-deps $(STAMP) lint
	$(VENV)/bin/pytest

# The quick loop (docs/testing.md): the engine without its long property runs and bot
# matches, the protocol and its socket tests against a real server of one mode (eventlet),
# the architecture's and the rules docs' checks.
FAST := tests/engine tests/server/protocol tests/test_architecture.py tests/test_rules_docs.py
test-fast: $(STAMP)
	$(VENV)/bin/pytest -q -m "not slow" -k "not threading" $(FAST)
