"""A watch reconcile queued by a full pass plans with what that pass found of others'
objects at its place (`Searched.onto`), and reads nothing more there: the reads it does
make must add to that, never replace it. Lost, an operator's WebApp looked like nothing
at all, and the reconcile planned a create over it (found by the seed operator's test)."""

from __future__ import annotations

from driftctl.core.planning.extra_reads import Reach, extra_reads
from driftctl.core.planning.live import LiveState
from driftctl.core.source.model import Place
from tests.support.builders import app

SHOP, BLOG = Place("web", "shop"), Place("web", "blog")


def theirs(kind: str, place: Place) -> dict[str, object]:
    return {"kind": kind, "metadata": {"namespace": place.namespace, "name": place.name}}


def test_what_a_reconcile_reads_adds_to_what_the_pass_found() -> None:
    known = LiveState(
        {},
        {},
        unowned_webapps={SHOP: theirs("WebApp", SHOP)},
        unowned_deployments={SHOP: theirs("Deployment", SHOP)},
        searched=frozenset({SHOP}),
    )

    needed = extra_reads([app("shop"), app("blog")], known, "driftctl", by_name=True)
    found = known.with_found([theirs("WebApp", BLOG)], [], [])

    assert needed.webapps == Reach.named([BLOG])  # shop's place was searched by the pass
    assert set(found.unowned_webapps) == {SHOP, BLOG}
    assert set(found.unowned_deployments) == {SHOP}
