"""`plan --out FILE` then `apply --plan FILE` on the real cluster: exactly that plan.

An object that moved since the plan is planned again: it proceeds when its action and
patch are unchanged and is refused otherwise (exit 5), while the others apply. A plan
for another instance is refused whole (exit 3); a plan applied already is stale, said once
(exit 3), and cannot create twice. The plan records its source: `apply --plan` needs no
--repo or --path.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from driftctl.core.planning.verbs import SUCCESS, Verb
from tests.support.harness import Harness, driftctl_env

MAIN = {"shop": ("nginx:1.27", 2), "blog": ("nginx:1.27", 1), "docs": ("nginx:1.27", 1)}
NEXT = {"shop": ("nginx:1.28", 3), "blog": ("nginx:1.27", 1), "cart": ("nginx:1.27", 1)}


def saved(harness: Harness, tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """main applied, the next commit planned into a file; each object's planned verb."""
    harness.declare(MAIN, "main")
    assert harness.driftctl("apply").code == 0
    harness.declare(NEXT, "next")
    path = tmp_path / "plan.json"
    planned = harness.driftctl("plan", "--out", str(path), "-o", "json")
    assert planned.code == 1, planned.err
    verbs = {f"{o['kind']}/{o['name']}": o["action"] for o in json.loads(planned.out)["objects"]}
    return path, verbs


def outcomes(out: str) -> dict[str, str]:
    return {f"{o['kind']}/{o['name']}": o["outcome"] for o in json.loads(out)["objects"]}


def test_a_saved_plan_applied_unchanged_does_what_it_said(harness: Harness, tmp_path: Path) -> None:
    path, verbs = saved(harness, tmp_path)
    document = json.loads(path.read_text())

    applied = harness.driftctl("apply", "--plan", str(path), "-o", "json")

    assert applied.code == 0, applied.err
    assert outcomes(applied.out) == {key: str(SUCCESS[Verb(verb)]) for key, verb in verbs.items()}
    assert (document["format"], document["version"]) == ("driftctl.example.com/saved-plan", 2)
    assert document["source"]["commit"] == harness.repo.git("rev-parse", "main")
    [docs] = [o for o in document["objects"] if o["name"] == "docs" and o["kind"] == "WebApp"]
    assert docs["action"] == "prune"
    assert set(docs["live"]) == {"uid", "resourceVersion"}
    assert harness.driftctl("plan").code == 0, "the cluster now equals the planned commit"


def test_a_moved_object_with_the_same_patch_proceeds_and_a_changed_one_is_refused(
    harness: Harness, tmp_path: Path
) -> None:
    path, _ = saved(harness, tmp_path)
    ns = harness.namespace
    # Moves shop's Deployment without changing what the plan does to it (another tool's
    # annotation: not drift, where a person's would be) ...
    harness.kubectl(
        "annotate", "deployment/shop", "team=payments", "-n", ns, "--field-manager=ops-tool"
    )
    # ... and changes blog's, which the plan left unchanged.
    harness.kubectl("set", "image", "deployment/blog", "app=nginx:1.99", "-n", ns)

    applied = harness.driftctl("apply", "--plan", str(path))

    assert applied.code == 5, applied.out + applied.err
    assert f"configured Deployment/{ns}/shop" in applied.out
    assert (
        f"failed Deployment/{ns}/blog: changed in the cluster since the plan was made: "
        "planned unchanged, now update; make a new plan"
    ) in applied.out
    assert f"created WebApp/{ns}/cart" in applied.out
    assert f"deleted WebApp/{ns}/docs" in applied.out
    blog = harness.get("deployment", "blog")
    assert blog is not None
    assert blog["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.99"
    shop = harness.get("deployment", "shop")
    assert shop is not None
    assert shop["spec"]["replicas"] == 3


def test_a_saved_image_update_then_a_scale_is_refused_as_another_patch(
    harness: Harness, tmp_path: Path
) -> None:
    harness.declare({"shop": ("nginx:1.27", 2)}, "main")
    assert harness.driftctl("apply").code == 0
    harness.declare({"shop": ("nginx:1.28", 2)}, "image")
    path = tmp_path / "plan.json"
    assert harness.driftctl("plan", "--out", str(path)).code == 1
    ns = harness.namespace
    # Still an update of shop's Deployment, but its patch would now also undo the scale.
    harness.kubectl("scale", "deployment/shop", "--replicas=5", "-n", ns)

    applied = harness.driftctl("apply", "--plan", str(path))

    assert applied.code == 5, applied.out + applied.err
    assert (
        f"failed Deployment/{ns}/shop: changed in the cluster since the plan was made: "
        "planned update, now update with another patch; make a new plan"
    ) in applied.out
    assert f"configured WebApp/{ns}/shop" in applied.out
    shop = harness.get("deployment", "shop")
    assert shop is not None
    assert shop["spec"]["replicas"] == 5
    assert shop["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.27"


def test_a_plan_of_another_instance_is_refused_whole_and_writes_nothing(
    harness: Harness, tmp_path: Path
) -> None:
    path, _ = saved(harness, tmp_path)
    document = json.loads(path.read_text())
    document["instance"] = "someone-else"
    other = tmp_path / "other.json"
    other.write_text(json.dumps(document))
    versions = harness.versions()

    refused = harness.driftctl("apply", "--plan", str(other))

    assert refused.code == 3
    assert refused.err.splitlines()[0] == (
        f"error: {other}: the plan was made for instance 'someone-else', "
        f"not '{harness.instance}'; nothing was applied"
    )
    assert harness.versions() == versions


def test_a_saved_plan_applied_again_is_stale_once_and_cannot_create_twice(
    harness: Harness, tmp_path: Path
) -> None:
    path, _ = saved(harness, tmp_path)
    assert harness.driftctl("apply", "--plan", str(path)).code == 0
    cart = harness.get("webapp", "cart")
    assert cart is not None
    versions = harness.versions()

    again = harness.driftctl("apply", "--plan", str(path))

    assert again.code == 3, again.out + again.err
    assert again.out == ""
    assert again.err.splitlines() == [
        f"error: {path}: this plan is stale: each of its 5 changes was made or overtaken "
        "since it was made (applied already?); nothing was applied",
        "hint: make a new plan (driftctl plan --out FILE)",
    ]
    assert harness.versions() == versions
    after = harness.get("webapp", "cart")
    assert after is not None
    assert after["metadata"]["uid"] == cart["metadata"]["uid"]


def test_a_saved_plan_is_applied_from_the_source_it_records(
    harness: Harness, tmp_path: Path
) -> None:
    path, verbs = saved(harness, tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    argv = [
        sys.executable,
        "-m",
        "driftctl",
        "apply",
        "--plan",
        str(path),
        "-o",
        "json",
        "--kubeconfig",
        str(harness.kubeconfig),
        "--instance",
        harness.instance,
    ]  # fmt: skip: no --repo, --path or --namespace, and run from another folder

    applied = subprocess.run(
        argv, cwd=elsewhere, env=driftctl_env(), capture_output=True, text=True, check=False
    )

    assert applied.returncode == 0, applied.stderr
    assert outcomes(applied.stdout) == {
        key: str(SUCCESS[Verb(verb)]) for key, verb in verbs.items()
    }
