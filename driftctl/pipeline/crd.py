"""`driftctl crd --diff`: the WebApp CRD installed in the cluster against driftctl's own.

One read of the installed CRD (shell.live_state), its spec without the server's defaults
(core.planning.installed_crd) beside the one `driftctl crd` prints (core.source.crd): what
`driftctl crd | kubectl apply --server-side -f -` would change. Decides nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from driftctl import __version__
from driftctl import conventions as c
from driftctl.core.planning.installed_crd import comparable_spec
from driftctl.core.source.crd import webapp_crd
from driftctl.pipeline.runs import Notice, open_cluster
from driftctl.render.manifests import diff_text
from driftctl.settings import Cluster
from driftctl.shell.live_state import fetch_crd


@dataclass(frozen=True)
class CrdDiff:
    """The unified diff of the installed CRD's spec to driftctl's (empty: they are equal),
    and whether the CRD is installed at all."""

    text: str
    installed: bool


def crd_diff(cluster: Cluster, notice: Notice) -> CrdDiff:
    """What an upgrade of the installed CRD to driftctl's changes in its spec."""
    found = fetch_crd(open_cluster(cluster, notice))
    names = (f"{c.CRD_NAME} (installed)", f"{c.CRD_NAME} (driftctl {__version__})")
    installed = {"spec": comparable_spec(found)} if found is not None else {}
    text = diff_text(installed, {"spec": webapp_crd()["spec"]}, names)
    return CrdDiff(text, found is not None)
