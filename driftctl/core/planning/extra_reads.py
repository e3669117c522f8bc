"""What a plan must read beyond the instance's two LISTs, decided from them.

Pure. Nothing more is read when nothing drifted, so such a run still costs its LIST pages
and nothing else:
- where Git declares a WebApp or Deployment the instance's LISTs lack, the namespace is
  listed for objects that are not this instance's, so a create never silently takes over
  an object of another instance or of a person (core.planning.owners decides);
- when a Deployment's replicas differ from Git, or driftctl no longer owns them, the
  HorizontalPodAutoscalers are listed once (one paged, cluster-wide LIST), to tell an
  autoscaler's replicas from drift.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from driftctl.core.planning import fieldset as fs
from driftctl.core.planning.ignoring import REPLICAS
from driftctl.core.planning.live import LiveState
from driftctl.core.planning.shards import owns
from driftctl.core.source.model import WebApp
from driftctl.settings import WHOLE, Shard

CLUSTER_WIDE = 16


@dataclass(frozen=True)
class Reach:
    """Where to list objects that are not this instance's: some namespaces, or everywhere."""

    namespaces: tuple[str, ...] = ()
    everywhere: bool = False

    @classmethod
    def of(cls, namespaces: Iterable[str]) -> Reach:
        found = tuple(sorted(set(namespaces)))
        return cls((), True) if len(found) > CLUSTER_WIDE else cls(found)


@dataclass(frozen=True)
class ExtraReads:
    """Where to list WebApps and Deployments that are not this instance's, and whether to
    list the autoscalers."""

    webapps: Reach = Reach()
    deployments: Reach = Reach()
    autoscalers: bool = False


def extra_reads(
    desired: Sequence[WebApp], live: LiveState, manager: str, shard: Shard = WHOLE
) -> ExtraReads:
    """The reads the plan of `desired` (this shard's part of it) needs besides `live`."""
    desired = [app for app in desired if owns(shard, *app.place)]
    return ExtraReads(
        Reach.of(app.namespace for app in desired if app.place not in live.webapps),
        Reach.of(app.namespace for app in desired if app.place not in live.deployments),
        any(_replicas_moved(app, live, manager) for app in desired),
    )


def _replicas_moved(app: WebApp, live: LiveState, manager: str) -> bool:
    deployment = live.deployments.get(app.place)
    if deployment is None:
        return False
    replicas = (deployment.get("spec") or {}).get("replicas")
    owned = fs.owned_fields(deployment, manager, str(deployment.get("apiVersion", "")))
    return replicas != app.spec.replicas or REPLICAS not in owned
