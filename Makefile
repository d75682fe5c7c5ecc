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
RUN_ARGS := --sim --bots --pace 0.4 --new-game --web 127.0.0.1:8080
endif

comma := ,
# The dashboard's browser tests drive Debian's chromium through Playwright.
CHROMIUM := /usr/bin/chromium
# The linked tables' tests start a throw-away Debian Mosquitto of their own (tests/conftest.py).
MOSQUITTO := /usr/sbin/mosquitto
# ...and make that broker's TLS certificates with openssl.
OPENSSL := /usr/bin/openssl
STAMP := $(VENV)/.installed-$(subst $(comma),-,$(EXTRAS))
COMPILED := $(VENV)/.compiled

.PHONY: run test lint bench clean firmware-test

# MicroPython 1.27 (its WebAssembly port, run by Node) for the firmware's pure-logic self-test.
MPY_PKG := @micropython/micropython-webassembly-pyscript
MPY_DIR := $(VENV)/micropython
MPY := $(MPY_DIR)/node_modules/$(MPY_PKG)/micropython.mjs

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "smartboard needs Python 3.11 or newer, found " + sys.version.split()[0]'
	$(PYTHON) -m venv $(VENV_FLAGS) $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip 'setuptools>=77'
	$(BIN)/python -m pip install --quiet -e '.[$(EXTRAS)]'
	@rm -f $(VENV)/.installed-*
	@touch $@ $(COMPILED)

# The rules compiled to C by mypyc (setup.py), twice as fast: `pip install -e` builds them in
# place, and this again when their source changes (an older build is never run: compiled.py).
$(COMPILED): setup.py $(wildcard controller/rules/*.py) | $(STAMP)
	$(BIN)/python setup.py --quiet build_ext --inplace
	@touch $@

run: $(STAMP) $(COMPILED)
	$(BIN)/smartboard run $(RUN_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports

test: lint firmware-test $(COMPILED) $(CHROMIUM) $(MOSQUITTO) $(OPENSSL)
	$(BIN)/pytest

$(CHROMIUM):
	@[ "$$(id -u)" = 0 ] || { echo "the browser tests need Debian's chromium: sudo apt-get install chromium"; exit 1; }
	apt-get update
	apt-get install -y --no-install-recommends chromium

$(MOSQUITTO):
	@[ "$$(id -u)" = 0 ] || { echo "the linked-table tests need Debian's mosquitto: sudo apt-get install mosquitto"; exit 1; }
	apt-get update
	apt-get install -y --no-install-recommends mosquitto

$(OPENSSL):
	@[ "$$(id -u)" = 0 ] || { echo "the linked-table tests need openssl: sudo apt-get install openssl"; exit 1; }
	apt-get update
	apt-get install -y --no-install-recommends openssl

$(MPY):
	@command -v node >/dev/null && command -v npm >/dev/null || { echo "the firmware self-test needs node and npm (apt install nodejs npm)"; exit 1; }
	npm install --prefix $(MPY_DIR) --no-audit --no-fund --no-save $(MPY_PKG)@1.27.0

firmware-test: $(MPY)
	node firmware/run_micropython.mjs $(MPY)

bench: $(STAMP) $(COMPILED)
	$(BIN)/python benchmarks/latency.py
	$(BIN)/python benchmarks/daemon.py
	$(BIN)/smartboard simulate akuma --games 2000 --seed 1 --json
	$(BIN)/python benchmarks/voodoo.py
	$(BIN)/python benchmarks/engines.py
	$(BIN)/python benchmarks/takeover.py
	$(BIN)/python benchmarks/cards.py
	$(BIN)/python benchmarks/dice.py
	$(BIN)/python benchmarks/icon_dice.py
	$(BIN)/python benchmarks/web_latency.py
	$(BIN)/python benchmarks/remote.py

clean:
	rm -rf $(VENV) build *.egg-info .mypy_cache .ruff_cache .pytest_cache *.so controller/rules/*.so
