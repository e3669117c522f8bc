"""What a plan must read beyond the instance's two LISTs, decided from them.

Pure. Nothing more is read when nothing drifted, so such a run still costs its LIST pages
and nothing else:
- where Git declares a WebApp or Deployment the instance's LISTs lack, the namespace is
  listed for objects that are not this instance's, so a create never silently takes over
  an object of another instance or of a person (core.planning.owners decides);
- when a Deployment's replicas differ from Git, or driftctl no longer owns them, the
  HorizontalPodAutoscalers are listed once (one paged, cluster-wide LIST), to tell an
  autoscaler's replicas from drift, unless the live state knows them already (watch).

A plan of one WebApp (watch) looks for others' objects by name (`by_name`): a LIST of that
one name, which the API server answers from its cache without walking the namespace; and
not at all where watch's last full pass looked already (`LiveState.searched`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from driftctl.core.planning import fieldset as fs
from driftctl.core.planning.ignoring import REPLICAS
from driftctl.core.planning.live import LiveState
from driftctl.core.planning.shards import owns
from driftctl.core.source.model import Place, WebApp
from driftctl.settings import WHOLE, Shard

CLUSTER_WIDE = 16


@dataclass(frozen=True)
class Reach:
    """Where to list objects that are not this instance's: some namespaces, or everywhere."""

    namespaces: tuple[str, ...] = ()
    everywhere: bool = False
    places: tuple[Place, ...] = ()  # or only these names

    @classmethod
    def of(cls, namespaces: Iterable[str]) -> Reach:
        found = tuple(sorted(set(namespaces)))
        return cls((), True) if len(found) > CLUSTER_WIDE else cls(found)

    @classmethod
    def named(cls, places: Iterable[Place]) -> Reach:
        return cls(places=tuple(sorted(set(places))))


@dataclass(frozen=True)
class ExtraReads:
    """Where to list WebApps and Deployments that are not this instance's, and whether to
    list the autoscalers."""

    webapps: Reach = Reach()
    deployments: Reach = Reach()
    autoscalers: bool = False


def extra_reads(
    desired: Sequence[WebApp],
    live: LiveState,
    manager: str,
    shard: Shard = WHOLE,
    *,
    by_name: bool = False,
) -> ExtraReads:
    """The reads the plan of `desired` (this shard's part of it) needs besides `live`."""
    desired = [app for app in desired if owns(shard, *app.place)]
    unsearched = [app.place for app in desired if app.place not in live.searched]
    reach = Reach.named if by_name else _namespaces_of
    return ExtraReads(
        reach([place for place in unsearched if place not in live.webapps]),
        reach([place for place in unsearched if place not in live.deployments]),
        not live.autoscalers_known and any(_replicas_moved(app, live, manager) for app in desired),
    )


def _namespaces_of(places: Iterable[Place]) -> Reach:
    return Reach.of(place.namespace for place in places)


def _replicas_moved(app: WebApp, live: LiveState, manager: str) -> bool:
    deployment = live.deployments.get(app.place)
    if deployment is None:
        return False
    replicas = (deployment.get("spec") or {}).get("replicas")
    version = str(deployment.get("apiVersion", ""))
    return replicas != app.spec.replicas or not fs.owns_field(
        deployment, manager, version, REPLICAS
    )
