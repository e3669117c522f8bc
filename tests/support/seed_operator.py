"""The seed operator, the kube-rs WebApp operator driftctl was designed from, as tests meet it.

Its CRD (committed as tests/seedoperator/crd.yaml, `seed-webapp-operator crd`), the state
it leaves in a cluster, and the operator itself, built by tests/seedoperator/build.sh from
its sources outside this repository (../shared/peers/seed-operator) into the cache beside
the control plane's binaries.
"""

from __future__ import annotations

from tests.support.paths import ROOT

SEED_CRD_FILE = ROOT / "tests" / "seedoperator" / "crd.yaml"
