"""Which WebApps a selected run acts on: `driftctl plan NAME...` or `-l SELECTOR`.

Pure. A selection picks places (namespace, name): a WebApp Git declares is picked by its
name or by its labels in Git; a live WebApp by its name or by its labels in the cluster
(so a WebApp that Git no longer declares can be picked for its prune); a Deployment
whose WebApp is gone only by name (it carries none of its WebApp's labels). The plan
then covers those places alone (core.planning.preparation's `Reach.focus`): nothing
outside them is planned, written, or pruned, whatever Git says of it. The prune guards
still count the whole instance (or shard), so a selection never prunes what the whole
run would refuse to, and `--max-prune` cannot be worked around one WebApp at a time.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from driftctl.core.planning.live import LiveState
from driftctl.core.planning.objects import labels_of
from driftctl.core.source.model import Place, WebApp
from driftctl.settings import Selection


def selected_places(
    selection: Selection, desired: Sequence[WebApp], live: LiveState
) -> frozenset[Place]:
    """The places `selection` picks among Git's WebApps and the live ones."""
    picked = {app.place for app in desired if _picks(selection, app.place, app.labels)}
    picked |= {
        place for place, obj in live.webapps.items() if _picks(selection, place, labels_of(obj))
    }
    picked |= {place for place in live.deployments if selection.names_place(*place)}
    return frozenset(picked)


def unknown_names(
    selection: Selection, desired: Sequence[WebApp], live: LiveState
) -> tuple[str, ...]:
    """The names of `selection` that are neither in Git nor live in the instance."""
    places = [app.place for app in desired] + [*live.webapps, *live.deployments]
    return tuple(
        name
        for name in selection.names
        if not any(Selection(names=(name,)).names_place(*place) for place in places)
    )


def _picks(selection: Selection, place: Place, labels: Mapping[str, str]) -> bool:
    if selection.names:
        return selection.names_place(*place)
    return all(requirement.matches(labels) for requirement in selection.requirements)
