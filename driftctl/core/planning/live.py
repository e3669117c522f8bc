"""The live state of one instance: its WebApps and Deployments as the cluster shows them.

Read by shell.live_state (paged LISTs), indexed here by (namespace, name) for pairing
with the desired state. A sharded run narrows it to its own shard (`within`) before
pairing, so nothing of another shard is ever planned, counted by a guard or pruned; the
uids of the other shards' WebApps are kept, so a Deployment they own is not taken for an
orphan. Pure: values and indexes only.

The installed WebApp CRD is part of what the cluster shows (`crd`, read once per run with
the LISTs, judged by core.planning.installed_crd): a status is written through it.

Besides the instance's own objects, a plan may need to know of objects that are not this
instance's (`unowned_*`: found where Git declares a name the instance's LISTs lack, so a
create is never a silent take-over) and which Deployments an autoscaler scales. What to
read is decided by core.planning.extra_reads from the two LISTs, so when nothing drifted
nothing more is read.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from driftctl import conventions as c
from driftctl.core.planning.guards import is_ours
from driftctl.core.planning.installed_crd import OWN, InstalledCrd
from driftctl.core.planning.objects import Obj, is_terminating, key_of, owner_uids, uid
from driftctl.core.planning.shards import owns
from driftctl.core.source.model import Place
from driftctl.settings import Shard


@dataclass(frozen=True)
class LiveState:
    """The live objects of one instance, indexed by (namespace, name)."""

    webapps: dict[Place, Obj]
    deployments: dict[Place, Obj]
    other_owners: frozenset[str] = frozenset()  # uids of live WebApps of other shards
    unowned_webapps: dict[Place, Obj] = field(default_factory=dict)
    unowned_deployments: dict[Place, Obj] = field(default_factory=dict)
    autoscalers: dict[Place, str] = field(default_factory=dict)  # Deployment -> its scaler
    # The autoscalers are known already (watch keeps them in memory): none to read.
    autoscalers_known: bool = False
    # Places where others' objects were looked for already (by watch's last full pass):
    # what was found there is in unowned_*, and nothing more is read for them.
    searched: frozenset[Place] = frozenset()
    crd: InstalledCrd = OWN  # what the installed CRD lets a run write

    @classmethod
    def of(
        cls, webapps: Sequence[Obj], deployments: Sequence[Obj], crd: InstalledCrd = OWN
    ) -> LiveState:
        """Index live objects by (namespace, name)."""
        return cls(
            {key_of(obj).place: obj for obj in webapps},
            {key_of(obj).place: obj for obj in deployments},
            crd=crd,
        )

    def within(self, shard: Shard) -> LiveState:
        """The part of the live state that belongs to `shard` (all of it when unsharded)."""
        if not shard.sharded:
            return self
        others = {uid(obj) for place, obj in self.webapps.items() if not owns(shard, *place)}
        return replace(
            self,
            webapps={place: obj for place, obj in self.webapps.items() if owns(shard, *place)},
            deployments={
                place: obj for place, obj in self.deployments.items() if owns(shard, *place)
            },
            other_owners=self.other_owners | others,
        )

    def with_found(
        self, webapps: Sequence[Obj], deployments: Sequence[Obj], autoscalers: Iterable[Obj]
    ) -> LiveState:
        """The state with objects that are not this instance's, and the autoscalers, added
        (to those it knows already: what watch's last full pass found where it looked)."""
        return replace(
            self,
            unowned_webapps=self.unowned_webapps | {key_of(obj).place: obj for obj in webapps},
            unowned_deployments=self.unowned_deployments
            | {key_of(obj).place: obj for obj in deployments},
            autoscalers=(
                self.autoscalers if self.autoscalers_known else scaled_deployments(autoscalers)
            ),
        )

    def objects(self) -> Iterable[Obj]:
        """Every live object, WebApps first."""
        return [*self.webapps.values(), *self.deployments.values()]

    def owned_by(self, webapp: Obj) -> list[Obj]:
        """The live Deployments whose ownerReference points at `webapp`."""
        return [dep for dep in self.deployments.values() if uid(webapp) in owner_uids(dep)]

    def orphans(self, instance: str) -> list[Obj]:
        """This instance's live Deployments whose owner WebApp is not live (in any shard)."""
        owners = {uid(obj) for obj in self.webapps.values()} | self.other_owners
        return [
            dep
            for dep in self.deployments.values()
            if is_ours(dep, instance) and not is_terminating(dep) and not owner_uids(dep) & owners
        ]


def scaled_deployments(autoscalers: Iterable[Obj]) -> dict[Place, str]:
    """Which Deployment each HorizontalPodAutoscaler scales: (namespace, name) -> the HPA."""
    out: dict[Place, str] = {}
    for hpa in sorted(autoscalers, key=key_of):
        target = (hpa.get("spec") or {}).get("scaleTargetRef") or {}
        if target.get("kind") == c.DEPLOYMENT_KIND and str(
            target.get("apiVersion", "apps/v1")
        ).startswith("apps/"):
            namespace = key_of(hpa).namespace
            out.setdefault(Place(namespace, str(target.get("name"))), key_of(hpa).display)
    return out
