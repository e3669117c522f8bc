"""`driftctl check` on the real cluster: each category, each --fail-on value, read-only.

A pull request (branch `feature`) changes one WebApp, adds one and removes one, while the
cluster already drifted on another (a person scaled its Deployment). The report keeps the
pull request's change apart from the drift, and costs only lists and dry-runs.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from driftctl import conventions as c
from tests.controlplane import launcher
from tests.support.builders import other_selector_deployment, webapp, webapps_yaml
from tests.support.control_plane import STREAMED_LIST, delta, quiet, request_counts
from tests.support.harness import Harness
from tests.support.markdown import well_formed

MAIN = {
    "shop": ("nginx:1.27", 2),
    "blog": ("nginx:1.27", 1),
    "docs": ("nginx:1.27", 1),
    "wiki": ("nginx:1.27", 1),
}
FEATURE = {
    "shop": ("nginx:1.28", 2),
    "blog": ("nginx:1.27", 1),
    "wiki": ("nginx:1.27", 1),
    "cart": ("nginx:1.27", 1),
}


def pull_request(harness: Harness) -> Harness:
    """main applied, blog scaled by a person, and a branch `feature` with the change."""
    harness.declare(MAIN, "main")
    assert harness.driftctl("apply").code == 0
    harness.repo.git("checkout", "--quiet", "-b", "feature")
    harness.declare(FEATURE, "the pull request")
    harness.repo.git("checkout", "--quiet", "main")
    harness.kubectl("scale", "deployment/blog", "--replicas=4", "-n", harness.namespace)
    return harness


def check(harness: Harness, *args: str) -> Any:
    ran = harness.driftctl("check", "--base", "main", "--head", "feature", *args)
    assert ran.code in (0, 1), ran.err
    return ran


def categories(document: dict[str, Any]) -> dict[str, str]:
    return {
        f"{o['kind']}/{o['name']}": f"{o['category']} {o['action']}"
        for o in document["cluster"]["objects"]
    }


def test_the_change_drift_and_prunes_are_reported_apart_with_lists_and_dry_runs_only(
    harness: Harness, control_plane: launcher.ControlPlane
) -> None:
    pull_request(harness)
    quiet(harness)  # the namespace controller's requests would count too
    before = request_counts(control_plane)

    ran = check(harness, "-o", "json")

    after = request_counts(control_plane)
    document = json.loads(ran.out)
    assert categories(document) == {
        "WebApp/docs": "prune prune",
        "WebApp/shop": "change update",
        "Deployment/shop": "change update",
        "Deployment/blog": "drift update",
        "WebApp/cart": "change create",
        "Deployment/cart": "change create",
    }
    assert document["cluster"]["summary"] == {
        "change": 4, "drift": 1, "prune": 1, "replace": 0, "blocked": 0, "unchanged": 3,
    }  # fmt: skip
    [blog] = [o for o in document["cluster"]["objects"] if o["name"] == "blog"]
    assert blog["fields"] == [
        {
            "path": "spec.replicas",
            "op": "replace",
            "before": 4,
            "after": 1,
            "managers": ["kubectl"],
            "drift": True,
        }
    ]
    # The installed CRD read once, two streamed lists and the instance's Lease (a suspension);
    # as in a plan, cart's namespace listed once per kind for objects of other owners (a
    # create is never a take-over) and, blog's replicas having moved, the autoscalers once;
    # then one dry-run per candidate of the head: shop and its Deployment, cart (its
    # Deployment waits for its uid), blog's Deployment. The base's only candidate, blog's
    # Deployment, asks what the head's asked: its answer is reused.
    assert after.service_accounts - before.service_accounts == 11
    scalers = delta(before, after, ("horizontalpodautoscalers",))
    assert {(r, v, scope) for (r, _, v, scope, _, _) in scalers} == {
        ("horizontalpodautoscalers", "LIST", "cluster")
    }
    requests = delta(before, after, ("webapps", "deployments", "events"))
    verbs = {(resource, verb, dry) for (resource, _, verb, _, dry, _) in requests}
    assert verbs == {
        ("webapps", STREAMED_LIST, ""),
        ("deployments", STREAMED_LIST, ""),
        ("webapps", "LIST", ""),
        ("deployments", "LIST", ""),
        ("webapps", "APPLY", "All"),
        ("deployments", "APPLY", "All"),
    }
    assert sum(n for k, n in requests.items() if k[2] == "APPLY") == 4


def test_each_fail_on_value_decides_the_exit_code(harness: Harness) -> None:
    pull_request(harness)

    codes = {
        value: check(harness, "--fail-on", value).code
        for value in ("invalid", "prune", "drift", "change", "replace", "", "prune,replace")
    }

    assert codes == {
        "invalid": 0,
        "prune": 1,
        "drift": 1,
        "change": 1,
        "replace": 0,
        "": 0,
        "prune,replace": 1,
    }


def test_the_head_planned_by_check_is_what_plan_prints_at_head(harness: Harness) -> None:
    pull_request(harness)

    checked = json.loads(check(harness, "-o", "json").out)
    planned = json.loads(harness.driftctl("plan", "--ref", "feature", "-o", "json").out)

    changing = [o for o in planned["objects"] if o["action"] != "unchanged"]
    assert [(o["kind"], o["name"], o["action"]) for o in checked["cluster"]["objects"]] == [
        (o["kind"], o["name"], o["action"]) for o in changing
    ]


def test_the_markdown_flags_the_prune_first_and_names_objects_fully(harness: Harness) -> None:
    pull_request(harness)

    ran = check(harness, "-o", "markdown", "--fail-on", "prune")

    lines = ran.out.splitlines()
    assert ran.code == 1
    assert lines[0] == f"<!-- driftctl-check instance={harness.instance} path=apps -->"
    warning = lines.index("> [!WARNING]")
    assert lines[warning + 2].startswith(f"> - `WebApp/{harness.namespace}/docs`: **prune**")
    assert warning < lines.index("| category | objects |")
    assert f"<summary><code>Deployment/{harness.namespace}/blog</code>: <b>drift</b>" in ran.out
    assert "~ spec.replicas: 4 -> 1 (changed by kubectl)   # drift: already in the cluster" in (
        ran.out
    )
    assert ":x: **Fails** on `prune`" in ran.out


def test_without_credentials_check_reads_no_cluster(
    harness: Harness, control_plane: launcher.ControlPlane
) -> None:
    pull_request(harness)
    before = request_counts(control_plane)

    ran = check(harness, "--offline", "-o", "json", "--fail-on", "change")

    after = request_counts(control_plane)
    document = json.loads(ran.out)
    assert ran.code == 1
    assert document["cluster"] is None
    assert document["git"]["summary"] == {"added": 1, "removed": 1, "changed": 1, "unchanged": 2}
    assert after.service_accounts == before.service_accounts


def test_a_replacement_and_a_kept_selector(harness: Harness) -> None:
    harness.declare({"shop": ("nginx:1.27", 1)}, "main")
    assert harness.driftctl("apply").code == 0
    owner = harness.get("webapp", "shop")
    assert owner is not None
    harness.kubectl("delete", "deployment/shop", "-n", harness.namespace)
    harness.apply_as_admin(other_selector_deployment(harness, owner["metadata"]["uid"]))
    harness.repo.git("branch", "feature")

    recreate = json.loads(check(harness, "--recreate", "-o", "json").out)
    plain = check(harness, "-o", "json", "--fail-on", "replace")

    assert categories(recreate) == {"Deployment/shop": "replace replace"}
    # Without --recreate the live selector is kept: what the Deployment lacks (driftctl's
    # labels) is drift the base's plan corrects too, and nothing is replaced.
    assert categories(json.loads(plain.out)) == {"Deployment/shop": "drift update"}
    assert plain.code == 0


def test_guard_refused_prunes_and_refused_dry_runs_are_blocked(harness: Harness) -> None:
    four = dict.fromkeys(("a", "b", "c", "d"), ("nginx:1.27", 1))
    harness.declare(four, "main")
    assert harness.driftctl("apply").code == 0
    harness.repo.git("checkout", "--quiet", "-b", "feature")
    lost = webapp("lost", replicas=1, namespace="no-such-namespace")
    harness.repo.write(
        {"apps/webapps.yaml": webapps_yaml({"a": ("nginx:1.27", 1)}), "apps/lost.yaml": lost}
    )
    harness.repo.commit("drop three, add one elsewhere")
    harness.repo.git("checkout", "--quiet", "main")

    ran = check(harness, "-o", "json", "--fail-on", "prune")

    document = json.loads(ran.out)
    blocked = {
        f"{o['kind']}/{o['namespace']}/{o['name']}": o["countsAs"]
        for o in document["cluster"]["objects"]
        if o["category"] == "blocked"
    }
    ns = harness.namespace
    assert blocked == {
        f"WebApp/{ns}/b": "prune",
        f"WebApp/{ns}/c": "prune",
        f"WebApp/{ns}/d": "prune",
        "WebApp/no-such-namespace/lost": "change",
        "Deployment/no-such-namespace/lost": "change",
    }
    assert document["cluster"]["refusals"][0].startswith("refusing to prune 3 objects")
    assert ran.code == 1


@pytest.mark.parametrize("output", ["text", "json", "markdown"])
def test_check_writes_nothing_and_takes_no_lock(harness: Harness, output: str) -> None:
    pull_request(harness)
    versions = harness.versions()
    lease = harness.get("lease", c.lease_name(harness.instance), "driftctl-system")

    check(harness, "-o", output)

    assert harness.versions() == versions
    assert harness.get("lease", c.lease_name(harness.instance), "driftctl-system") == lease


def test_a_report_over_budget_keeps_summary_and_prunes_and_stays_well_formed(
    harness: Harness,
) -> None:
    many = {f"app-{i:02d}": ("nginx:1.27", 1) for i in range(30)}
    harness.declare(many | {"old-a": ("nginx:1.27", 1), "old-b": ("nginx:1.27", 1)}, "main")
    assert harness.driftctl("apply").code == 0
    harness.repo.git("checkout", "--quiet", "-b", "feature")
    harness.declare(dict.fromkeys(many, ("nginx:1.28", 2)), "every app to 1.28")
    harness.repo.git("checkout", "--quiet", "main")

    whole = check(harness, "-o", "markdown", "--max-bytes", "1000000").out
    cut = check(harness, "-o", "markdown", "--max-bytes", "4096").out

    assert len(whole.encode()) > 4096 >= len(cut.encode())
    assert well_formed(cut)
    assert "| **prune**: prunes | 2 |" in cut
    for name in ("old-a", "old-b"):
        assert f"<summary><code>WebApp/{harness.namespace}/{name}</code>: <b>prune</b>" in cut
    assert ":scissors: The details of" in cut
