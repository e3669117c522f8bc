"""`plan NAME...` and `-l SELECTOR` act on the WebApps they select, and prune nothing else.

Four WebApps applied, two of team a (labelled so in Git) and two of team b; then Git drops
some of them. A selected run plans, applies and prunes its own alone; the prune guards
still count the whole instance, so a selection never prunes what the whole run would refuse
to prune, and cannot work around --max-prune one WebApp at a time.
"""

from __future__ import annotations

import json

from tests.support.builders import webapp
from tests.support.harness import Harness

TEAMS = {"a1": "a", "a2": "a", "b1": "b", "b2": "b"}


def declare(harness: Harness, names: list[str], image: str = "nginx:1.27") -> None:
    """Git declares `names`, each labelled with its team."""
    documents = [
        webapp(name, image, 1).replace(
            "metadata:\n", f"metadata:\n  labels:\n    team: {TEAMS[name]}\n", 1
        )
        for name in names
    ]
    harness.declare_text("---\n".join(documents))


def applied(harness: Harness) -> Harness:
    declare(harness, list(TEAMS))
    first = harness.driftctl("apply")
    assert first.code == 0, first.err
    return harness


def actions(harness: Harness, *args: str) -> dict[str, str]:
    planned = harness.driftctl("plan", "-o", "json", *args)
    assert planned.code in (0, 1, 5), planned.err
    return {f"{o['kind']}/{o['name']}": o["action"] for o in json.loads(planned.out)["objects"]}


def test_named_webapps_alone_are_planned_and_applied(harness: Harness) -> None:
    applied(harness)
    declare(harness, list(TEAMS), image="nginx:1.28")

    planned = actions(harness, "a1", f"{harness.namespace}/b1")
    ran = harness.driftctl("apply", "a1", f"{harness.namespace}/b1")

    assert planned == {
        "WebApp/a1": "update",
        "Deployment/a1": "update",
        "WebApp/b1": "update",
        "Deployment/b1": "update",
    }
    assert ran.code == 0, ran.err
    assert actions(harness) == {
        "WebApp/a1": "unchanged",
        "Deployment/a1": "unchanged",
        "WebApp/a2": "update",
        "Deployment/a2": "update",
        "WebApp/b1": "unchanged",
        "Deployment/b1": "unchanged",
        "WebApp/b2": "update",
        "Deployment/b2": "update",
    }


def test_a_selector_prunes_only_what_it_selects(harness: Harness) -> None:
    applied(harness)
    declare(harness, ["a1", "b1"])  # a2 and b2 leave Git

    planned = actions(harness, "-l", "team=a")
    ran = harness.driftctl("apply", "-l", "team=a")

    assert planned == {"WebApp/a2": "prune", "WebApp/a1": "unchanged", "Deployment/a1": "unchanged"}
    assert ran.code == 0, ran.err
    assert harness.names("webapps") == ["a1", "b1", "b2"]  # b2, outside it, stays


def test_a_selection_never_prunes_what_the_whole_run_would_refuse(harness: Harness) -> None:
    applied(harness)
    declare(harness, ["a1"])  # three of four leave: more than the default --max-prune (2)

    planned = harness.driftctl("plan", "b2")
    ran = harness.driftctl("apply", "b2")

    assert planned.code == ran.code == 5, planned.out + ran.out
    assert "refusing to prune 3 objects: more than the default --max-prune" in planned.out
    assert harness.names("webapps") == list(TEAMS)


def test_a_name_neither_in_git_nor_in_the_cluster_is_refused(harness: Harness) -> None:
    applied(harness)

    ran = harness.driftctl("plan", "a1", "nosuch")

    assert ran.code == 2
    assert ran.err.splitlines()[0] == (
        "error: no WebApp nosuch in Git or in the cluster (this instance's)"
    )
