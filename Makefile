# The two entry points: `make test` and `make demo`. Each does all of its own set-up:
# a virtual environment with the project and its test and docs extras, the control plane
# (etcd, kube-apiserver, kube-controller-manager, kubectl) built from the Go modules
# into ~/.cache/driftctl when that cache is missing, the Prometheus Pushgateway the
# metrics tests push to (Debian's prometheus-pushgateway), the Alertmanager the notification
# tests send alerts to (Debian's prometheus-alertmanager), the sshd the Git source's SSH
# tests fetch from (Debian's openssh-server), and gpg and ssh-keygen the tests of signed
# commits sign with (Debian's gnupg and openssh-client) when they are not installed.
# `make test` also sets up a node for tests/node (as root): its packages, kubelet and
# kube-scheduler, and the driftctl image; and builds the seed operator its migration test
# runs (from ../shared/peers/seed-operator, outside this repository: tests/seedoperator/).

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed

.PHONY: test demo lint docs docs-build manifests unit integration tooling bench controlplane pushgateway alertmanager sshd signing node seed-operator venv clean

# The tests run in TEST_WORKERS processes at once (pytest-xdist), each with its own control
# plane: most integration and node tests wait on the API server, a rollout or a timer, not
# on a core. A test module runs whole in one process, and the node's tests all in one, first
# (tests/support/spread.py). TEST_WORKERS=0 runs them in this process, one after another.
TEST_WORKERS ?= 2
SPREAD := -n $(TEST_WORKERS) --no-loadscope-reorder

test: lint docs-build controlplane pushgateway alertmanager sshd signing node seed-operator
	$(BIN)/pytest $(SPREAD)

# The tests of driftctl are in tests/unit, tests/integration and tests/node; the tests of
# the tooling (image/, benchmarks/, the control plane and node launcher, action.yml) are in
# tests/tooling, each marked by what it needs: `unit` and `integration` run theirs too.
unit: $(INSTALLED) sshd signing
	$(BIN)/pytest tests/unit tests/tooling -m 'not integration and not node'

integration: $(INSTALLED) controlplane pushgateway alertmanager signing
	$(BIN)/pytest $(SPREAD) tests/integration tests/tooling -m integration

tooling: $(INSTALLED) controlplane node
	$(BIN)/pytest $(SPREAD) tests/tooling

lint: $(INSTALLED)
	$(BIN)/ruff check driftctl tests benchmarks image docsgen
	$(BIN)/ruff format --check driftctl tests benchmarks image docsgen
	$(BIN)/mypy
	$(BIN)/lint-imports

# The documentation site (docs/, mkdocs.yml). Its command reference and tables are made
# from the code by docsgen/hooks.py, which MkDocs imports from the repository root.
# `make docs` serves it on loopback and rebuilds on every change; `make docs-build` is the
# strict build `make test` runs: a broken link or anchor, a page missing from the nav, a
# command without its page fails it. The result, site/, is not committed.
DOCS_PORT ?= 8000
MKDOCS := NO_MKDOCS_2_WARNING=1 $(BIN)/python -m mkdocs

docs: $(INSTALLED)
	$(MKDOCS) serve --dev-addr 127.0.0.1:$(DOCS_PORT)

docs-build: $(INSTALLED)
	$(MKDOCS) build --strict --site-dir site

# cronjob/ and operator/ are made from driftctl/core/installation.py, the objects `driftctl
# install` applies (driftctl/render/shipped.py): after a change there, write them again.
manifests: $(INSTALLED)
	$(BIN)/python -m docsgen.shipped

bench: $(INSTALLED) controlplane
	$(BIN)/python -m benchmarks.bench_validate
	$(BIN)/python -m benchmarks.bench_cluster
	$(BIN)/python -m benchmarks.bench_watch

demo: $(INSTALLED) controlplane node
	bash examples/demo.sh

controlplane:
	bash tests/controlplane/build.sh >/dev/null

pushgateway:
	bash tests/pushgateway/install.sh >/dev/null

alertmanager:
	bash tests/alertmanager/install.sh >/dev/null

sshd:
	bash tests/sshd/install.sh >/dev/null

signing:
	bash tests/signing/install.sh >/dev/null

# Each step costs nothing once done. Not root (and not CI): the node tests skip instead.
node: $(INSTALLED) controlplane
	@if [ "$$(id -u)" -ne 0 ] && [ "$${CI:-}" != true ]; then \
	  echo "not root: no node set-up, the node tests will be skipped"; \
	else \
	  bash tests/controlplane/node-packages.sh && \
	  bash tests/controlplane/build.sh node >/dev/null && \
	  $(BIN)/python -m image.build >/dev/null; \
	fi

# The kube-rs operator driftctl was designed from, built with cargo into the cache
# (~/.cache/driftctl/seed-operator, like the control plane): a second once built, about 11
# minutes the first time. Its sources are outside the repository: DRIFTCTL_SEED_OPERATOR,
# or shared/peers/seed-operator beside the checkout (tests/seedoperator/build.sh finds it).
seed-operator:
	bash tests/seedoperator/build.sh >/dev/null

venv: $(INSTALLED)

$(INSTALLED): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,docs]'
	touch $@

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis site
