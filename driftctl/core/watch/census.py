"""What `watch` knows of the whole instance without walking it: kept up to date one
change at a time, so that a reconcile of one WebApp costs the same at ten thousand
WebApps as at ten.

A plan of one WebApp needs, beyond that WebApp's own objects:
- the prune guards' counts over the whole instance (or shard): the managed objects and the
  prune candidates no guard protects; each live object's part of them is
  core.planning.removals' `webapp_standing` / `deployment_standing`, the very functions a
  whole run adds up, and the census keeps their sums as objects come, change and go (and
  counts everything again only when Git moves: what is declared changes every part);
- which Deployments a WebApp owns (its cleanup deletes them), and whether a Deployment's
  owner is live in any shard (an orphan is pruned): owners by uid;
- which autoscaler, if any, scales a Deployment (its replicas are then the autoscaler's).
Objects of other shards count only as owners (their uids): nothing else of them is kept.

And which WebApps are settled: found equal to Git (objects and status) by a full pass, and
unchanged since: neither their WebApp, nor their Deployment, nor an autoscaler of it
changed, and Git did not move. A plan is a function of those, so a resync plans only the
WebApps that are not settled; a change, or Git moving, unsettles them.
Pure: the feed (pipeline.watch.feed) tells it each change, under its lock.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field

from driftctl.core.planning.live import LiveState, scaled_deployments
from driftctl.core.planning.objects import Obj, key_of, owner_uids, uid
from driftctl.core.planning.removals import (
    PruneCounts,
    Standing,
    deployment_standing,
    webapp_standing,
)
from driftctl.core.source.model import Place

NOTHING = Standing()
WEBAPP, DEPLOYMENT = "WebApp", "Deployment"


@dataclass
class Census:
    """The guards' sums, owners by uid and autoscalers by Deployment, of one instance."""

    instance: str
    wanted: Collection[Place] = frozenset()  # every place Git declares a WebApp at
    _webapps: dict[Place, Obj] = field(default_factory=dict)  # this shard's, as last seen
    _deployments: dict[Place, Obj] = field(default_factory=dict)
    _standing: dict[tuple[str, Place], Standing] = field(default_factory=dict)
    _owners: dict[str, Place] = field(default_factory=dict)  # live WebApps of every shard
    _owned: dict[str, set[Place]] = field(default_factory=dict)  # owner uid -> Deployments
    _scalers: dict[Place, Obj] = field(default_factory=dict)  # autoscalers, by their place
    _scaled: dict[Place, set[Place]] = field(default_factory=dict)  # Deployment -> autoscalers
    _settled: set[Place] = field(default_factory=set)
    managed: int = 0
    going: int = 0

    # -- changes -----------------------------------------------------------------------

    def webapp(self, place: Place, obj: Obj | None) -> None:
        """This shard's WebApp at `place` is now `obj` (None: gone)."""
        self._settled.discard(place)
        old = self._webapps.pop(place, None)
        if old is not None:
            self._forget_owner(uid(old), place)
        if obj is not None:
            self._webapps[place] = obj
            self._learn_owner(uid(obj), place)
        standing = NOTHING if obj is None else webapp_standing(obj, self.wanted, self.instance)
        self._set((WEBAPP, place), standing)

    def elsewhere(self, obj: Obj, *, live: bool) -> None:
        """A WebApp of another shard came (`live`) or went: only its uid counts, as an owner."""
        place, owner = key_of(obj).place, uid(obj)
        if live:
            self._learn_owner(owner, place)
        else:
            self._forget_owner(owner, place)

    def deployment(self, place: Place, obj: Obj | None) -> None:
        """This shard's Deployment at `place` is now `obj` (None: gone)."""
        self._settled.discard(place)
        old = self._deployments.pop(place, None)
        for owner in owner_uids(old) if old is not None else ():
            self._owned.get(owner, set()).discard(place)
        if obj is not None:
            self._deployments[place] = obj
            for owner in owner_uids(obj):
                self._owned.setdefault(owner, set()).add(place)
        self._recount_deployment(place)

    def autoscaler(self, place: Place, obj: Obj | None) -> None:
        """The autoscaler at `place` (its own namespace and name) is now `obj` (None: gone)."""
        old = self._scalers.pop(place, None)
        for target in scaled_deployments([old] if old is not None else []):
            self._scaled.get(target, set()).discard(place)
            self._settled.discard(target)
        if obj is not None:
            self._scalers[place] = obj
            for target in scaled_deployments([obj]):
                self._scaled.setdefault(target, set()).add(place)
                self._settled.discard(target)

    def want(self, wanted: Collection[Place]) -> None:
        """Git now declares WebApps at `wanted`: every object's part is counted again, and
        no WebApp is settled any more."""
        self.wanted = wanted
        self._settled.clear()
        for place, obj in self._webapps.items():
            self._set((WEBAPP, place), webapp_standing(obj, wanted, self.instance))
        for place in self._deployments:
            self._recount_deployment(place)

    def settle(self, place: Place, seen: LiveState) -> None:
        """A full pass found the WebApp at `place` equal to Git in `seen`: settled, unless
        its objects changed since `seen` was taken."""
        same_webapp = self._webapps.get(place) is seen.webapps.get(place)
        if same_webapp and self._deployments.get(place) is seen.deployments.get(place):
            self._settled.add(place)

    def unsettled(self, places: Iterable[Place]) -> frozenset[Place]:
        """Those of `places` not known equal to Git since their last change."""
        return frozenset(place for place in places if place not in self._settled)

    # -- what a plan reads -------------------------------------------------------------

    def view(self, place: Place) -> LiveState:
        """The live state a plan of the WebApp at `place` needs: its WebApp, its Deployment
        and any other it owns, which of their owners are live elsewhere, its autoscaler."""
        webapp = self._webapps.get(place)
        places = [place, *(self.owned_by(uid(webapp)) if webapp is not None else ())]
        deployments = {
            each: self._deployments[each] for each in places if each in self._deployments
        }
        owners = {owner for obj in deployments.values() for owner in owner_uids(obj)}
        here = {uid(webapp)} if webapp is not None else set()
        return LiveState(
            {place: webapp} if webapp is not None else {},
            deployments,
            other_owners=self.live_owners(owners - here),
            autoscalers=self.autoscaler_of(place),
            autoscalers_known=True,
        )

    def whole(self) -> LiveState:
        """The live state of the whole instance (this shard's part of it): a full pass."""
        return LiveState(
            dict(self._webapps),
            dict(self._deployments),
            other_owners=self.other_owners(),
            autoscalers=dict(self.all_autoscalers()),
            autoscalers_known=True,
        )

    def counts(self, desired: int) -> PruneCounts:
        """The guards' counts of the whole instance, with `desired` WebApps in Git."""
        return PruneCounts(desired, self.managed, self.going)

    def owned_by(self, owner: str) -> list[Place]:
        """The places of this shard's Deployments that name WebApp `owner` their owner."""
        return sorted(self._owned.get(owner, ()))

    def live_owners(self, owners: Iterable[str]) -> frozenset[str]:
        """Those of `owners` that are live WebApps (of any shard)."""
        return frozenset(each for each in owners if each in self._owners)

    def autoscaler_of(self, deployment: Place) -> dict[Place, str]:
        """The autoscaler of the Deployment at `deployment`, as LiveState.autoscalers has it."""
        scalers = [self._scalers[place] for place in self._scaled.get(deployment, ())]
        return scaled_deployments(scalers)

    def all_autoscalers(self) -> Mapping[Place, str]:
        """Every autoscaled Deployment and its autoscaler (a full pass)."""
        return scaled_deployments(self._scalers.values())

    def other_owners(self) -> frozenset[str]:
        """The uids of live WebApps of other shards."""
        return frozenset(u for u, place in self._owners.items() if place not in self._webapps)

    # -- the sums ------------------------------------------------------------------------

    def _learn_owner(self, owner: str, place: Place) -> None:
        if self._owners.get(owner) == place:
            return
        self._owners[owner] = place
        for each in list(self._owned.get(owner, ())):
            self._recount_deployment(each)

    def _forget_owner(self, owner: str, place: Place) -> None:
        if self._owners.get(owner) != place:
            return
        del self._owners[owner]
        for each in list(self._owned.get(owner, ())):
            self._recount_deployment(each)

    def _recount_deployment(self, place: Place) -> None:
        obj = self._deployments.get(place)
        if obj is None:
            self._set((DEPLOYMENT, place), NOTHING)
            return
        owner_live = any(each in self._owners for each in owner_uids(obj))
        standing = deployment_standing(obj, self.wanted, self.instance, owner_live=owner_live)
        self._set((DEPLOYMENT, place), standing)

    def _set(self, key: tuple[str, Place], standing: Standing) -> None:
        old = self._standing.pop(key, NOTHING)
        self.managed += standing.managed - old.managed
        self.going += standing.going - old.going
        if standing != NOTHING:
            self._standing[key] = standing
