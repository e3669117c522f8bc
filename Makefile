# The two entry points: `make test` and `make demo`. Each does all of its own set-up:
# a virtual environment with the project and its test extras, the control plane
# (etcd, kube-apiserver, kube-controller-manager, kubectl) built from the Go modules
# into ~/.cache/driftctl when that cache is missing, and the Prometheus Pushgateway the
# metrics tests push to (Debian's prometheus-pushgateway) when it is not installed.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed

.PHONY: test demo lint unit integration bench controlplane pushgateway venv clean

test: lint controlplane pushgateway
	$(BIN)/pytest

unit: $(INSTALLED)
	$(BIN)/pytest tests/unit

integration: $(INSTALLED) controlplane pushgateway
	$(BIN)/pytest tests/integration

lint: $(INSTALLED)
	$(BIN)/ruff check driftctl tests benchmarks
	$(BIN)/ruff format --check driftctl tests benchmarks
	$(BIN)/mypy
	$(BIN)/lint-imports

bench: $(INSTALLED) controlplane
	$(BIN)/python -m benchmarks.bench_validate
	$(BIN)/python -m benchmarks.bench_cluster

demo: $(INSTALLED) controlplane
	bash examples/demo.sh

controlplane:
	bash tests/controlplane/build.sh >/dev/null

pushgateway:
	bash tests/pushgateway/install.sh >/dev/null

venv: $(INSTALLED)

$(INSTALLED): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis
