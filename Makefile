# Two commands for a new user: `make run` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: run test install install-dev install-agent clean

# whichgpu needs Python 3.11 or newer; an older python3 is named before pip fails on it.
NEED_PYTHON = $(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
	{ echo "whichgpu needs Python 3.11 or newer; $(PYTHON) is $$($(PYTHON) -V 2>&1): run make with PYTHON=python3.11"; exit 1; }

# The API host needs no torch: `make run` installs the base package only.
$(BIN)/.installed: pyproject.toml
	@$(NEED_PYTHON)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q -e .
	touch $@

# Tests exercise the bench agent too: dev + agent extras, torch pinned to the CPU wheel.
$(BIN)/.installed-dev: pyproject.toml constraints.txt
	@$(NEED_PYTHON)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q -c constraints.txt -e '.[dev,agent]'
	touch $(BIN)/.installed $@

install: $(BIN)/.installed
install-dev: $(BIN)/.installed-dev

# The bench agent: torch only from PyTorch's index (the CPU build for development), then the agent's extra,
# which finds torch installed. A GPU host names its CUDA: make install-agent TORCH_INDEX=https://download.pytorch.org/whl/cu124
TORCH_INDEX ?= https://download.pytorch.org/whl/cpu
install-agent: $(BIN)/.installed
	$(BIN)/pip install -q torch --index-url $(TORCH_INDEX)
	$(BIN)/pip install -q -e '.[agent]'

# Listens on WHICHGPU_HOST:WHICHGPU_PORT (default 127.0.0.1:8000), like `whichgpu serve`.
run: $(BIN)/.installed
	$(BIN)/whichgpu serve

test: $(BIN)/.installed-dev
	$(BIN)/pytest

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
