"""The cases of issue 8, each set up on the real control plane with kubectl as the outside
client: fields set outside Git, objects of another owner, ignore rules, an autoscaler, a
fight; and those of issue 21, the controls: a suspension (of a WebApp, of the instance), a
change or drift policy, a window (and its override), and the gentle prunes. Each returns
the flags that `plan` and `apply` take for it; the feature tests check each case's details,
and test_plan_and_apply_agree runs them all against both commands.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from driftctl import conventions as c
from tests.support.builders import webapp
from tests.support.harness import LOCK_NAMESPACE, Harness, eventually

APPS = {"shop": ("nginx:1.27", 2)}
Flags = tuple[str, ...]

EDITOR = """\
import json, sys
path = sys.argv[1]
obj = json.load(open(path))
obj["spec"]["minReadySeconds"] = 7          # not in Git, no default: removed
obj["spec"]["revisionHistoryLimit"] = 3     # not in Git, defaulted: back to 10
json.dump(obj, open(path, "w"))
"""

AUTOSCALER = {
    "apiVersion": "autoscaling/v2",
    "kind": "HorizontalPodAutoscaler",
    "metadata": {"name": "shop"},
    "spec": {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "shop"},
        "minReplicas": 3,
        "maxReplicas": 6,
        "metrics": [
            {
                "type": "Resource",
                "resource": {
                    "name": "cpu",
                    "target": {"type": "Utilization", "averageUtilization": 50},
                },
            }
        ],
    },
}


def converged(harness: Harness, *flags: str) -> Harness:
    """Git declares `shop`, applied once."""
    harness.declare(APPS)
    first = harness.driftctl("apply", *flags)
    assert first.code == 0, first.out + first.err
    return harness


def kubectl_edit(harness: Harness, folder: Path, target: str) -> None:
    """`kubectl edit`, with an editor that changes the object as a person would."""
    script = folder / "editor.py"
    script.write_text(EDITOR)
    editor = {"KUBE_EDITOR": f"{sys.executable} {script}"}
    harness.kubectl("edit", target, "-n", harness.namespace, "-o", "json", environment=editor)


def env_added_by_kubectl_patch(harness: Harness, _folder: Path) -> Flags:
    env = {"name": "app", "env": [{"name": "DEBUG", "value": "1"}]}
    converged(harness).kubectl(
        "patch",
        "deployment/shop",
        "-n",
        harness.namespace,
        "--type=strategic",
        "-p",
        json.dumps({"spec": {"template": {"spec": {"containers": [env]}}}}),
    )
    return ()


def fields_added_by_kubectl_edit(harness: Harness, folder: Path) -> Flags:
    kubectl_edit(converged(harness), folder, "deployment/shop")
    return ()


def labels_added_by_kubectl_label(harness: Harness, _folder: Path) -> Flags:
    converged(harness)
    for target in ("webapp/shop", "deployment/shop"):
        harness.kubectl("label", target, "team=payments", "-n", harness.namespace)
    return ()


def annotation_of_a_controller(harness: Harness, _folder: Path) -> Flags:
    converged(harness).kubectl(
        "annotate",
        "deployment/shop",
        "owner=ops",
        "-n",
        harness.namespace,
        "--field-manager=ops-controller",
    )
    return ()


def webapp_of_another_instance(harness: Harness, folder: Path) -> Flags:
    converged(harness.other_instance(f"{harness.instance}-b", folder / "b"))
    harness.declare({"shop": ("nginx:1.28", 3)})
    return ("--recreate",)


def deployment_made_by_hand(harness: Harness, _folder: Path) -> Flags:
    harness.kubectl("create", "deployment", "shop", "--image=nginx:1.25", "-n", harness.namespace)
    harness.declare(APPS)
    return ("--recreate",)


def webapp_made_by_hand(harness: Harness, _folder: Path) -> Flags:
    harness.kubectl(
        "apply",
        "-n",
        harness.namespace,
        "-f",
        "-",
        stdin=json.dumps(
            {
                "apiVersion": "example.com/v1",
                "kind": "WebApp",
                "metadata": {"name": "shop"},
                "spec": {"image": "nginx:1.25", "replicas": 1},
            }
        ),
    )
    harness.declare(APPS)
    return ()


IGNORE_REPLICAS = ("--ignore", "Deployment:/spec/replicas")


def replicas_scaled_under_an_ignore_rule(harness: Harness, _folder: Path) -> Flags:
    converged(harness, *IGNORE_REPLICAS).kubectl(
        "scale", "deployment/shop", "--replicas=5", "-n", harness.namespace
    )
    return IGNORE_REPLICAS


def git_change_of_an_ignored_field(harness: Harness, folder: Path) -> Flags:
    replicas_scaled_under_an_ignore_rule(harness, folder)
    harness.declare({"shop": ("nginx:1.27", 3)})
    return IGNORE_REPLICAS


IGNORE_OPS_BOT = ("--ignore-manager", "ops-bot")


def image_set_by_an_ignored_manager(harness: Harness, _folder: Path) -> Flags:
    converged(harness, *IGNORE_OPS_BOT).kubectl(
        "set",
        "image",
        "deployment/shop",
        "app=nginx:1.99",
        "-n",
        harness.namespace,
        "--field-manager=ops-bot",
    )
    return IGNORE_OPS_BOT


def git_change_of_a_field_an_ignored_manager_set(harness: Harness, folder: Path) -> Flags:
    image_set_by_an_ignored_manager(harness, folder)
    harness.declare({"shop": ("nginx:1.28", 2)})
    return IGNORE_OPS_BOT


def replicas_of_an_autoscaler(harness: Harness, _folder: Path) -> Flags:
    converged(harness).kubectl(
        "apply", "-n", harness.namespace, "-f", "-", stdin=json.dumps(AUTOSCALER)
    )

    def scaled() -> bool:
        deployment = harness.get("deployment", "shop") or {}
        return bool(deployment.get("spec", {}).get("replicas") == 3)

    assert eventually(scaled, 60), "the HPA controller did not scale the Deployment to 3"
    return ()


def image_set_again_after_a_correction(harness: Harness, _folder: Path) -> Flags:
    converged(harness)
    for image in ("nginx:1.98", "nginx:1.99"):
        harness.kubectl("set", "image", "deployment/shop", f"app={image}", "-n", harness.namespace)
        if image == "nginx:1.98":
            assert harness.driftctl("apply").code == 0
    return ()


# -- the controls (issue 21): each holds something, or removes gently -------------------

SUSPENSION = "until=2099-01-01T00:00:00Z; by=ops; reason=incident 4711"
HELD_BY_GIT = {c.CHANGE_POLICY_ANNOTATION: "hold"}
WARNED_BY_GIT = {c.DRIFT_POLICY_ANNOTATION: "warn"}
DENY_CHANGES = ("--window", "deny * * * * * for 1h on changes")
QUARANTINE_GRACE = "1h"


def annotate(harness: Harness, target: str, value: str, namespace: str | None = None) -> None:
    """`kubectl annotate`: a person asks driftctl for something on the live object."""
    harness.kubectl("annotate", "--overwrite", target, value, "-n", namespace or harness.namespace)


def scale(harness: Harness, replicas: int = 5) -> None:
    harness.kubectl("scale", "deployment/shop", f"--replicas={replicas}", "-n", harness.namespace)


def declared(harness: Harness, image: str, annotations: dict[str, str], *flags: str) -> None:
    """Git declares shop with these annotations (and blog beside it), applied once."""
    harness.declare_text(shop_and_blog(image, annotations))
    first = harness.driftctl("apply", *flags)
    assert first.code == 0, first.out + first.err


def shop_and_blog(image: str, annotations: dict[str, str]) -> str:
    return webapp("shop", image, 2, annotations=annotations) + "---\n" + webapp("blog")


def webapp_suspended_with_drift(harness: Harness, _folder: Path) -> Flags:
    converged(harness)
    annotate(harness, "webapp/shop", f"{c.SUSPEND_ANNOTATION}={SUSPENSION}")
    scale(harness)
    return ()


def instance_suspended_with_a_git_change(harness: Harness, _folder: Path) -> Flags:
    converged(harness)
    lease = f"lease/{c.lease_name(harness.instance)}"
    annotate(harness, lease, f"{c.SUSPEND_ANNOTATION}={SUSPENSION}", LOCK_NAMESPACE)
    harness.declare({"shop": ("nginx:1.28", 2)})
    return ()


def git_change_held_while_drift_is_corrected(harness: Harness, _folder: Path) -> Flags:
    declared(harness, "nginx:1.27", {})  # under hold from the start, it would not be created
    harness.declare_text(shop_and_blog("nginx:1.28", HELD_BY_GIT))
    scale(harness)
    return ()


def drift_warned_while_a_git_change_applies(harness: Harness, _folder: Path) -> Flags:
    declared(harness, "nginx:1.27", WARNED_BY_GIT)
    harness.declare_text(shop_and_blog("nginx:1.28", WARNED_BY_GIT))
    scale(harness)
    return ()


def a_git_change_inside_a_deny_window(harness: Harness, _folder: Path) -> Flags:
    converged(harness)
    harness.declare({"shop": ("nginx:1.28", 2)})
    scale(harness)
    return DENY_CHANGES


def a_deny_window_overridden(harness: Harness, folder: Path) -> Flags:
    return (*a_git_change_inside_a_deny_window(harness, folder), "--override-windows")


def removed_with_its_policy(harness: Harness, policy: str, *flags: str) -> str:
    """shop applied from Git with its prune policy, then removed from Git (blog stays); the
    commit that removed it."""
    declared(harness, "nginx:1.27", {c.PRUNE_POLICY_ANNOTATION: policy}, *flags)
    return harness.declare_text(webapp("blog"))


def webapp_removed_under_orphan(harness: Harness, _folder: Path) -> Flags:
    removed_with_its_policy(harness, "orphan")
    return ()


def webapp_removed_under_confirm(harness: Harness, _folder: Path) -> Flags:
    removed_with_its_policy(harness, "confirm")
    return ()


def removal_approved_under_confirm(harness: Harness, _folder: Path) -> Flags:
    removed_with_its_policy(harness, "confirm")
    assert harness.driftctl("apply").code == 0
    live = harness.get("webapp", "shop") or {}
    revision = live["metadata"]["annotations"][c.REMOVED_IN_ANNOTATION]
    approval = f"{live['metadata']['uid']}@{revision}"
    annotate(harness, "webapp/shop", f"{c.APPROVE_PRUNE_ANNOTATION}={approval}")
    return ()


def webapp_removed_under_quarantine(harness: Harness, _folder: Path) -> Flags:
    flags = ("--quarantine-grace", QUARANTINE_GRACE)
    removed_with_its_policy(harness, "quarantine", *flags)
    return flags


def quarantined_webapp_back_in_git(harness: Harness, folder: Path) -> Flags:
    flags = webapp_removed_under_quarantine(harness, folder)
    assert harness.driftctl("apply", *flags).code == 0
    harness.declare_text(shop_and_blog("nginx:1.27", {c.PRUNE_POLICY_ANNOTATION: "quarantine"}))
    return flags


@dataclass(frozen=True)
class Case:
    """One case: its name and how to set it up."""

    name: str
    setup: Callable[[Harness, Path], Flags]


CASES: Sequence[Case] = tuple(
    Case(function.__name__, function)
    for function in (
        env_added_by_kubectl_patch,
        fields_added_by_kubectl_edit,
        labels_added_by_kubectl_label,
        annotation_of_a_controller,
        webapp_of_another_instance,
        deployment_made_by_hand,
        webapp_made_by_hand,
        replicas_scaled_under_an_ignore_rule,
        git_change_of_an_ignored_field,
        image_set_by_an_ignored_manager,
        git_change_of_a_field_an_ignored_manager_set,
        replicas_of_an_autoscaler,
        image_set_again_after_a_correction,
    )
)
CONTROL_CASES: Sequence[Case] = tuple(
    Case(function.__name__, function)
    for function in (
        webapp_suspended_with_drift,
        instance_suspended_with_a_git_change,
        git_change_held_while_drift_is_corrected,
        drift_warned_while_a_git_change_applies,
        a_git_change_inside_a_deny_window,
        a_deny_window_overridden,
        webapp_removed_under_orphan,
        webapp_removed_under_confirm,
        removal_approved_under_confirm,
        webapp_removed_under_quarantine,
        quarantined_webapp_back_in_git,
    )
)
