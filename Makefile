# ndncc: `make run` reproduces the headline results, `make test` runs every test.
# Everything is installed into .venv by `make setup`; nothing outside the project is touched.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
RESULTS ?= results
RUST_SOURCES := Cargo.toml Cargo.lock $(shell find crates -name '*.rs' -o -name Cargo.toml)
# The cargo profile of the extension in .venv: `release` (whole-program LTO) for runs and
# benchmarks; `make test` builds everything with `ci` (Cargo.toml), so that the extension, the
# test binaries and the wheel of package-check share one build of every crate.
PROFILE ?= release
STAMP := $(VENV)/.ndncc-setup-$(PROFILE)
# Test processes beside each other (pytest-xdist); every test writes only to its own tmp_path.
PYTEST_WORKERS ?= 2

.PHONY: setup run test lint test-rust test-python package-check bench bench-instructions clean

setup: $(STAMP)

# Re-done only when pyproject.toml or a Rust source changed, or the other profile is installed.
# PIP_NO_COMPILE: the dependencies' bytecode is written as they are first imported, not all of
# it at install time.
$(STAMP): pyproject.toml $(RUST_SOURCES)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check 'maturin>=1.5,<2'
	rm -f $(VENV)/.ndncc-setup*
	PIP_NO_COMPILE=1 VIRTUAL_ENV=$(abspath $(VENV)) $(BIN)/maturin develop --profile $(PROFILE) \
		--extras test,dask,notebook
	touch $@

run: setup
	$(BIN)/ndncc reproduce all --out $(RESULTS)

# Formatting and lints first: they are quick and fail fast.
lint: setup
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets --profile $(PROFILE) -- -D warnings
	$(BIN)/ruff check python references
	$(BIN)/ruff format --check python references

# Every step with the ci profile: the extension is built once and reused by the Rust tests
# and the wheel (`make run` afterwards installs the release build again).
test:
	$(MAKE) --no-print-directory PROFILE=ci lint test-rust test-python package-check

test-rust: setup
	cargo test --workspace --profile $(PROFILE)

test-python: setup
	$(BIN)/python -m pytest -q -n $(PYTEST_WORKERS)

# The package as a user gets it: the wheel (built with the ci profile, so after `make test`'s
# setup it reuses the extension's build), installed into a fresh venv outside the repository,
# lists the shipped scenarios and runs a quick reproduction from there
# (python/tests/test_package.py).
package-check: setup
	$(BIN)/python -m pytest -q -m package python/tests/test_package.py

bench: setup
	$(BIN)/ndncc bench --repeat 5
	$(BIN)/ndncc bench --command

# Instructions, L1d and last-level (1 MB) misses per packet-hop under valgrind's cachegrind: the
# same on every run of one binary, whatever the machine's load (python/ndncc/instructions.py).
# valgrind comes from Debian's packages.
bench-instructions: setup
	command -v valgrind >/dev/null || { if [ "$$(id -u)" = 0 ]; then apt-get install -y --no-install-recommends valgrind; else sudo apt-get install -y --no-install-recommends valgrind; fi; }
	cargo build --release --bin ndncc-bench
	$(BIN)/python -m ndncc.instructions --by-layer

clean:
	rm -rf $(VENV) $(RESULTS) runs .pytest_cache
	cargo clean
