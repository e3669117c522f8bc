"""The live state of one instance: its WebApps and Deployments as the cluster shows them.

Read by shell.live_state (paged LISTs), indexed here by (namespace, name) for pairing
with the desired state. Pure: values and lookups only.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from driftctl.core.planning.guards import is_ours
from driftctl.core.planning.objects import Obj, is_terminating, key_of, owner_uids, uid

Place = tuple[str, str]  # (namespace, name)


@dataclass(frozen=True)
class LiveState:
    """The live objects of one instance, indexed by (namespace, name)."""

    webapps: dict[Place, Obj]
    deployments: dict[Place, Obj]

    @classmethod
    def of(cls, webapps: Sequence[Obj], deployments: Sequence[Obj]) -> LiveState:
        """Index live objects by (namespace, name)."""
        return cls(
            {key_of(obj)[1:]: obj for obj in webapps},
            {key_of(obj)[1:]: obj for obj in deployments},
        )

    def objects(self) -> Iterable[Obj]:
        """Every live object, WebApps first."""
        return [*self.webapps.values(), *self.deployments.values()]

    def owned_by(self, webapp: Obj) -> list[Obj]:
        """The live Deployments whose ownerReference points at `webapp`."""
        return [dep for dep in self.deployments.values() if uid(webapp) in owner_uids(dep)]

    def orphans(self, instance: str) -> list[Obj]:
        """This instance's live Deployments whose owner WebApp is not live."""
        owners = {uid(obj) for obj in self.webapps.values()}
        return [
            dep
            for dep in self.deployments.values()
            if is_ours(dep, instance) and not is_terminating(dep) and not owner_uids(dep) & owners
        ]
