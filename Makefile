# ndncc: `make run` reproduces the headline results, `make test` runs every test.
# Everything is installed into .venv by `make setup`; nothing outside the project is touched.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.ndncc-setup
RESULTS ?= results
RUST_SOURCES := Cargo.toml Cargo.lock $(shell find crates -name '*.rs' -o -name Cargo.toml)

.PHONY: setup run test lint package-check bench bench-instructions clean

setup: $(STAMP)

# Re-done only when pyproject.toml or a Rust source changed.
$(STAMP): pyproject.toml $(RUST_SOURCES)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check 'maturin>=1.5,<2'
	VIRTUAL_ENV=$(abspath $(VENV)) $(BIN)/maturin develop --release --extras test,dask,notebook
	touch $@

run: setup
	$(BIN)/ndncc reproduce all --out $(RESULTS)

# Formatting and lints first: they are quick and fail fast.
lint: setup
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets --release -- -D warnings
	$(BIN)/ruff check python references
	$(BIN)/ruff format --check python references

test: lint
	cargo test --workspace --profile ci
	$(BIN)/python -m pytest -q
	$(MAKE) --no-print-directory package-check

# The package as a user gets it: the wheel (built with the ci profile, so it reuses what
# `cargo test` compiled), installed into a fresh venv outside the repository, lists the shipped
# scenarios and runs a quick reproduction from there (python/tests/test_package.py).
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
	$(BIN)/python -m ndncc.instructions

clean:
	rm -rf $(VENV) $(RESULTS) runs .pytest_cache
	cargo clean
