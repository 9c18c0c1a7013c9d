# Two entry points for a fresh Debian machine: `make run` and `make test`.
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test lint system-deps

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $(STAMP)

# Debian's Chromium drives the browser tests (never a downloaded browser).
system-deps:
	@test -x /usr/bin/chromium || { apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; }
	@# The bots' avatars are emoji: a colour emoji font draws them (screenshots too).
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

run: $(STAMP)
	$(VENV)/bin/svara serve

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

test: system-deps $(STAMP) lint
	$(VENV)/bin/pytest
