# Two commands for a new user: `make run` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: run test install install-dev clean

# The API host needs no torch: `make run` installs the base package only.
$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q -e .
	touch $@

# Tests exercise the bench agent too: dev + agent extras, torch pinned to the CPU wheel.
$(BIN)/.installed-dev: pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q -c constraints.txt -e '.[dev,agent]'
	touch $(BIN)/.installed $@

install: $(BIN)/.installed
install-dev: $(BIN)/.installed-dev

# Listens on WHICHGPU_HOST:WHICHGPU_PORT (default 127.0.0.1:8000), like `whichgpu serve`.
run: $(BIN)/.installed
	$(BIN)/whichgpu serve

test: $(BIN)/.installed-dev
	$(BIN)/pytest

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
