"""Three shards, one after another or at once, end where one unsharded run ends; no object
is written by two shards, no shard prunes another's WebApp, each holds its own Lease and
pushes its own metrics; changing --shard-count moves WebApps without a prune or a write;
the instance suspended by the documented command (every Lease of the instance, by label)
holds every shard, those whose Lease is made after the annotation included.

The shards run as separate driftctl processes against the real control plane, as the
Pods of an Indexed Job do (there with JOB_COMPLETION_INDEX; here with --shard-index).
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from driftctl import conventions as c
from driftctl.core.planning.shards import shard_of
from tests.controlplane import launcher
from tests.support.control_plane import delta, quiet, request_counts
from tests.support.harness import LOCK_NAMESPACE, Harness
from tests.support.pushgateway import Pushgateway

# Twelve WebApps; with three shards each shard gets some (checked below), and going to
# two or four shards moves some of them.
APPS = {f"app-{number:02d}": ("nginx:1.27", 1) for number in range(12)}


def namespace_accepted(namespace: str) -> bool:
    """The shard hash takes the namespace in, and each test's namespace is random: the
    integration conftest draws one where no shard of three is left without a WebApp (one in
    about 40 draws would be) and going to two or four shards moves some."""

    def shards(count: int) -> list[int]:
        return [shard_of(namespace, name, count) for name in APPS]

    three = shards(3)
    moves = [any(a != b for a, b in zip(three, shards(count), strict=True)) for count in (2, 4)]
    return len(set(three)) == 3 and all(moves)


WRITES = ("POST", "PATCH", "APPLY", "PUT", "DELETE", "UPDATE", "CREATE")


def shard(index: int, count: int = 3) -> tuple[str, ...]:
    return ("--shard-count", str(count), "--shard-index", str(index))


def outcomes(out: str) -> dict[str, str]:
    """`Kind/name` -> outcome, from `apply -o json`."""
    document: dict[str, Any] = json.loads(out)
    return {f"{o['kind']}/{o['name']}": o["outcome"] for o in document["objects"]}


def failures(out: str) -> list[str]:
    """What failed and why, and the guards' refusals, from `apply -o json` (for a failing
    test to say)."""
    document: dict[str, Any] = json.loads(out) if out.strip() else {"objects": []}
    failed = [o for o in document["objects"] if o["outcome"] == "failed"]
    refused = [f"refused: {refusal}" for refusal in document.get("refusals", [])]
    return [f"{o['kind']}/{o['name']}: {o['reason']}" for o in failed] + refused


def written(out: str) -> set[str]:
    return {key for key, outcome in outcomes(out).items() if outcome != "unchanged"}


def applied_by_shards(harness: Harness, count: int, *extra: str) -> list[str]:
    """Each shard's `apply -o json` in turn; the outputs."""
    outs = []
    for index in range(count):
        ran = harness.driftctl("apply", *shard(index, count), "-o", "json", *extra)
        assert ran.code == 0, ran.err
        outs.append(ran.out)
    return outs


def assert_unsharded_plan_is_empty(harness: Harness) -> None:
    planned = harness.driftctl("plan")
    assert planned.code == 0, planned.out + planned.err
    assert planned.out.splitlines()[-1] == (
        f"Plan: 0 to create, 0 to update, 0 to prune, {2 * len(harness.names('webapps'))} unchanged"
    )


def test_three_shards_one_after_another_end_where_one_unsharded_run_ends(
    harness: Harness,
) -> None:
    harness.declare(APPS)

    outs = applied_by_shards(harness, 3)

    shares = [written(out) for out in outs]
    assert all(shares), "every shard got some WebApps"
    assert sum(len(share) for share in shares) == len(set().union(*shares)) == 2 * len(APPS)
    for index, share in enumerate(shares):
        assert {shard_of(harness.namespace, key.split("/")[1], 3) for key in share} == {index}
    assert harness.names("webapps") == sorted(APPS)
    assert_unsharded_plan_is_empty(harness)
    leases = {
        json.loads(harness.kubectl("get", "lease", name, "-n", LOCK_NAMESPACE, "-o", "json"))[
            "metadata"
        ]["name"]
        for name in (c.lease_name(harness.instance, index) for index in range(3))
    }
    assert len(leases) == 3


def test_three_shards_at_once_end_where_one_unsharded_run_ends(harness: Harness) -> None:
    harness.declare(APPS)
    assert harness.driftctl("apply").code == 0
    harness.kubectl("scale", "deployment/app-03", "--replicas=3", "-n", harness.namespace)
    changed = {name: spec for name, spec in APPS.items() if name not in ("app-05", "app-07")}
    changed |= {"app-01": ("nginx:1.28", 2), "app-20": ("nginx:1.27", 1)}
    harness.declare(changed, "one changed, two gone, one new")

    # Each shard's prune guard counts that shard's WebApps: where app-05 and app-07 fall in
    # a shard of three or fewer (in about 3 % of the namespaces drawn), half of it is one,
    # and the default --max-prune would refuse the two prunes (exit 5). Two are allowed.
    going = ("--max-prune", "2")
    processes = [
        harness.start("apply", *shard(index), "-o", "json", "--lock-timeout", "0", *going)
        for index in range(3)
    ]
    results = [(process.wait(timeout=120), *process.communicate()) for process in processes]

    for code, out, err in results:  # each shard took its own Lease: none waited for another
        assert code == 0, (err, failures(out))
    every = Counter(key for _, out, _ in results for key in written(out))
    assert all(count == 1 for count in every.values()), every  # no object written twice
    assert set(every) >= {
        "WebApp/app-01",
        "Deployment/app-01",
        "Deployment/app-03",
        "WebApp/app-05",
        "WebApp/app-07",
        "WebApp/app-20",
        "Deployment/app-20",
    }
    assert harness.names("webapps") == sorted(changed)
    assert_unsharded_plan_is_empty(harness)


def test_no_shard_prunes_another_shards_webapp(harness: Harness) -> None:
    harness.declare(APPS)
    applied_by_shards(harness, 3)
    gone = "app-04"
    owner = shard_of(harness.namespace, gone, 3)
    harness.declare({name: spec for name, spec in APPS.items() if name != gone}, "drop app-04")

    plans = [json.loads(harness.driftctl("plan", *shard(i), "-o", "json").out) for i in range(3)]
    others = [i for i in range(3) if i != owner]
    for index in others:
        assert harness.driftctl("apply", *shard(index)).code == 0
    still_there = harness.names("webapps")
    pruned = harness.driftctl("apply", *shard(owner), "-o", "json")

    for index in others:
        assert gone not in {o["name"] for o in plans[index]["objects"]}
        assert plans[index]["summary"]["prune"] == 0
    assert plans[owner]["summary"]["prune"] == 1
    assert gone in still_there
    assert outcomes(pruned.out)[f"WebApp/{gone}"] == "deleted"
    assert gone not in harness.names("webapps")


def test_changing_the_shard_count_moves_webapps_without_a_prune_or_a_write(
    harness: Harness, control_plane: launcher.ControlPlane
) -> None:
    harness.declare(APPS)
    applied_by_shards(harness, 3)
    versions = harness.versions()
    moved = {
        count: [
            name
            for name in APPS
            if shard_of(harness.namespace, name, 3) != shard_of(harness.namespace, name, count)
        ]
        for count in (2, 4)
    }
    assert moved[2], "some WebApps change shard from three shards to two"
    assert moved[4], "and from three to four"

    quiet(harness)  # the namespace controller's deletes of earlier tests would count
    before = request_counts(control_plane)
    runs = [out for count in (2, 4, 1) for out in applied_by_shards(harness, count)]
    after = request_counts(control_plane)

    assert all(written(out) == set() for out in runs)
    assert sum(len(outcomes(out)) for out in runs) == 3 * 2 * len(APPS)  # each object, each count
    assert harness.versions() == versions
    writes = delta(before, after, ("webapps", "deployments"))
    assert {series: n for series, n in writes.items() if series[2] in WRITES} == {}


def test_each_shard_pushes_its_own_group(harness: Harness, pushgateway: Pushgateway) -> None:
    harness.declare(APPS)

    outs = applied_by_shards(harness, 3, "--pushgateway", pushgateway.url)

    for index, out in enumerate(outs):
        group = pushgateway.group(harness.instance, str(index))
        created = group["driftctl_last_run_objects{outcome=created}"].value
        assert created == len(written(out))
        assert group["driftctl_shards"].value == 3
        assert group["driftctl_last_run_success"].value == 1


OUTCOME_OF = {"create": "created", "update": "configured", "prune": "deleted"}


def test_each_shards_plan_is_what_its_apply_does(harness: Harness) -> None:
    harness.declare(APPS)
    applied_by_shards(harness, 3)
    harness.kubectl("scale", "deployment/app-02", "--replicas=4", "-n", harness.namespace)
    changed = {name: spec for name, spec in APPS.items() if name != "app-09"}
    harness.declare({**changed, "app-30": ("nginx:1.27", 1)}, "app-09 goes, app-30 comes")

    for index in range(3):
        planned = harness.driftctl("plan", *shard(index), "-o", "json", "--log-format", "json")
        applied = harness.driftctl("apply", *shard(index), "-o", "json")

        plan: dict[str, Any] = json.loads(planned.out)
        actions = {
            f"{o['kind']}/{o['name']}": OUTCOME_OF.get(o["action"], o["action"])
            for o in plan["objects"]
        }
        assert actions == outcomes(applied.out)
        *logged, summary = [json.loads(line) for line in planned.err.splitlines()]
        assert {f"{o['kind']}/{o['name']}": o["action"] for o in logged} == {
            f"{o['kind']}/{o['name']}": o["action"]
            for o in plan["objects"]
            if o["action"] != "unchanged"
        }
        assert summary["event"] == "summary"
        assert summary["shard"] == index
        assert summary["exit_code"] == planned.code == (1 if written(applied.out) else 0)
    assert_unsharded_plan_is_empty(harness)


SUSPEND = f"{c.SUSPEND_ANNOTATION}=by=sre; reason=freeze"


def suspend_as_documented(harness: Harness) -> None:
    """docs/concepts/controls.md: one command annotates every Lease of the instance."""
    selector = f"{c.INSTANCE_LABEL}={harness.instance}"
    harness.kubectl("annotate", "lease", "-n", LOCK_NAMESPACE, "-l", selector, SUSPEND)


def changed_in_git_and_by_hand(harness: Harness) -> None:
    harness.declare(dict.fromkeys(APPS, ("nginx:1.28", 1)), "new image")
    for name in ("app-02", "app-09"):
        harness.kubectl("scale", f"deployment/{name}", "--replicas=4", "-n", harness.namespace)


def lease_names(harness: Harness) -> set[str]:
    """The names of the instance's Leases, as the documented command selects them."""
    selector = f"{c.INSTANCE_LABEL}={harness.instance}"
    listed = harness.kubectl("get", "lease", "-n", LOCK_NAMESPACE, "-l", selector, "-o", "name")
    return {line.rpartition("/")[2] for line in listed.split()}


def test_shards_whose_leases_are_made_after_the_suspension_write_nothing(
    harness: Harness, control_plane: launcher.ControlPlane
) -> None:
    harness.declare(APPS)
    assert harness.driftctl("apply").code == 0  # unsharded: the instance's own Lease only
    leases_before = lease_names(harness)
    suspend_as_documented(harness)
    changed_in_git_and_by_hand(harness)
    quiet(harness)

    before = request_counts(control_plane)
    outs = applied_by_shards(harness, 3)
    after = request_counts(control_plane)

    assert leases_before == {c.lease_name(harness.instance)}
    assert len(lease_names(harness)) == 4  # each shard's, made after the annotation
    assert all(set(outcomes(out).values()) <= {"unchanged", "held"} for out in outs)
    assert sum("held" in outcomes(out).values() for out in outs) == 3
    writes = delta(before, after, ("webapps", "deployments"))
    assert {
        series: n for series, n in writes.items() if series[2] in WRITES and not series[4]
    } == {}
    assert (harness.get("deployment", "app-02") or {})["spec"]["replicas"] == 4


def test_a_new_shard_of_an_instance_sharded_from_the_start_is_held_by_its_suspension(
    harness: Harness, control_plane: launcher.ControlPlane
) -> None:
    harness.declare(APPS)
    applied_by_shards(harness, 3)  # no unsharded run: the shards make the instance's Lease
    suspend_as_documented(harness)
    leases_before = lease_names(harness)
    changed_in_git_and_by_hand(harness)
    quiet(harness)

    before = request_counts(control_plane)
    outs = applied_by_shards(harness, 4)  # shard 3 of 4 takes a Lease made only now
    planned = harness.driftctl("plan", *shard(3, 4))
    after = request_counts(control_plane)

    assert c.lease_name(harness.instance) in leases_before  # made by the first shards
    assert c.lease_name(harness.instance, 3) not in leases_before
    assert all(set(outcomes(out).values()) <= {"unchanged", "held"} for out in outs)
    assert "held" in outcomes(outs[3]).values()
    where = f"Lease {LOCK_NAMESPACE}/{c.lease_name(harness.instance)}"
    assert f"the instance is suspended by sre: freeze ({c.SUSPEND_ANNOTATION} on {where})" in (
        planned.err + planned.out
    )
    writes = delta(before, after, ("webapps", "deployments"))
    assert {
        series: n for series, n in writes.items() if series[2] in WRITES and not series[4]
    } == {}
