# `make run` and `make test` each create or refresh the virtual environment in .venv first.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
ON_PI := $(shell grep -qas 'Raspberry Pi' /proc/device-tree/model && echo yes)

ifeq ($(ON_PI),yes)
# picamera2 comes from Raspberry Pi OS (python3-picamera2), so the venv must see system packages.
VENV_FLAGS := --system-site-packages
EXTRAS := pi,dev
RUN_ARGS :=
else
VENV_FLAGS :=
EXTRAS := dev
RUN_ARGS := --sim --bots --pace 0.4 --until-end --new-game
endif

comma := ,
STAMP := $(VENV)/.installed-$(subst $(comma),-,$(EXTRAS))

.PHONY: run test lint bench clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "smartboard needs Python 3.11 or newer, found " + sys.version.split()[0]'
	$(PYTHON) -m venv $(VENV_FLAGS) $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[$(EXTRAS)]'
	@rm -f $(VENV)/.installed-*
	@touch $@

run: $(STAMP)
	$(BIN)/smartboard run $(RUN_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

test: lint
	$(BIN)/pytest

bench: $(STAMP)
	$(BIN)/python benchmarks/latency.py
	$(BIN)/python benchmarks/daemon.py
	$(BIN)/smartboard simulate akuma --games 2000 --seed 1 --json
	$(BIN)/python benchmarks/voodoo.py
	$(BIN)/python benchmarks/takeover.py
	$(BIN)/python benchmarks/cards.py

clean:
	rm -rf $(VENV) build *.egg-info .mypy_cache .ruff_cache .pytest_cache
