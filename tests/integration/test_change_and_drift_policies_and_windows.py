"""A WebApp's policies from Git, and change windows, on the real control plane:

- `drift-policy: warn` reports a `kubectl scale` (plan, status, one Warning Event, the
  pushed metric) and leaves it, while a change from Git is applied;
- `change-policy: hold` keeps an image change from Git unapplied while drift is still
  corrected (read on the cluster while held; the correction's one Event says what stays
  held); back to `apply`, the change goes;
- a deny window holds exactly its scope (changes here: drift is corrected, read on the
  cluster inside the window) and says until when; --override-windows lifts it for one
  run, and the Event of the change says so.
"""

from __future__ import annotations

from driftctl import conventions as c
from tests.support.drift_cases import (
    DENY_CHANGES,
    HELD_BY_GIT,
    WARNED_BY_GIT,
    declared,
    scale,
    shop_and_blog,
)
from tests.support.harness import Harness
from tests.support.pushgateway import Pushgateway


def image(harness: Harness) -> str:
    deployment = harness.get("deployment", "shop") or {}
    return str(deployment["spec"]["template"]["spec"]["containers"][0]["image"])


def replicas(harness: Harness) -> int:
    return int((harness.get("deployment", "shop") or {})["spec"]["replicas"])


def events(harness: Harness, reason: str) -> list[str]:
    return [str(e["message"]) for e in harness.events() if e["reason"] == reason]


def test_warn_reports_a_kubectl_scale_and_leaves_it(
    harness: Harness, pushgateway: Pushgateway
) -> None:
    declared(harness, "nginx:1.27", WARNED_BY_GIT)
    harness.declare_text(shop_and_blog("nginx:1.28", WARNED_BY_GIT))
    scale(harness)

    planned = harness.driftctl("plan")
    applied = harness.driftctl("apply", "--pushgateway", pushgateway.url)
    again = harness.driftctl("apply")

    shop = f"Deployment/{harness.namespace}/shop"
    why = (
        "drift is reported and left as it is "
        "(driftctl.example.com/drift-policy: warn in apps/webapps.yaml:1)"
    )
    assert f"    spec.replicas held: {why} (5 here, 2 in Git)" in planned.out.splitlines()
    assert (applied.code, again.code) == (0, 0), applied.err + again.err
    assert (replicas(harness), image(harness)) == (5, "nginx:1.28")
    assert f"held {shop}: {why}" in again.out.splitlines()
    webapp = harness.get("webapp", "shop") or {}
    assert {"kind": "Deployment", "field": "spec.replicas", "reason": why} in webapp["status"][
        "ignoredFields"
    ]
    [held] = [each for each in webapp["status"]["conditions"] if each["type"] == "Held"]
    assert held["reason"] == "DriftHeld"
    warned = [e for e in harness.events() if e["reason"] in ("DriftHeld", "Updated")]
    assert len(warned) == 1  # the run that applied Git's change says what stays held; once
    assert f"held: {shop} spec.replicas (5 here, 2 in Git): {why}" in warned[0]["message"]
    metrics = pushgateway.group(harness.instance)
    assert metrics["driftctl_last_run_held_objects{control=drift}"].value == 1
    assert metrics["driftctl_last_run_objects{outcome=configured}"].value == 2


def test_hold_keeps_a_git_image_change_while_drift_is_corrected(harness: Harness) -> None:
    declared(harness, "nginx:1.27", {})
    revision = (harness.get("webapp", "shop") or {})["metadata"]["annotations"][
        c.REVISION_ANNOTATION
    ]
    harness.declare_text(shop_and_blog("nginx:1.28", HELD_BY_GIT))
    scale(harness)

    held = harness.driftctl("apply")
    while_held = (replicas(harness), image(harness))
    webapp = harness.get("webapp", "shop") or {}
    told = events(harness, "Updated")
    planned = harness.driftctl("plan")
    harness.declare_text(shop_and_blog("nginx:1.28", {}))
    released = harness.driftctl("apply")

    shop = f"Deployment/{harness.namespace}/shop"
    assert held.code == 0, held.err
    assert f"configured {shop}" in held.out.splitlines()
    # The cluster while held: the drift corrected, Git's image not applied anywhere, and
    # the WebApp still at the commit it was last written at.
    assert while_held == (2, "nginx:1.27")
    assert webapp["spec"]["image"] == "nginx:1.27"
    assert webapp["metadata"]["annotations"][c.REVISION_ANNOTATION] == revision
    [updated] = told  # the correction's one Event says what stays held
    assert "spec.replicas" in updated
    assert "; held: " in updated
    assert "Git's changes are held" in updated
    assert planned.code == 1
    assert f"|| {shop}: hold (update held: Git's changes are held" in planned.out
    assert "spec.template.spec.containers[name=app].image held" in planned.out
    assert released.code == 0, released.err
    assert (replicas(harness), image(harness)) == (2, "nginx:1.28")
    assert (
        revision
        != (harness.get("webapp", "shop") or {})["metadata"]["annotations"][c.REVISION_ANNOTATION]
    )


def test_a_deny_window_holds_its_scope_and_the_override_lifts_it(harness: Harness) -> None:
    declared(harness, "nginx:1.27", {})
    harness.declare_text(shop_and_blog("nginx:1.28", {}))
    scale(harness)

    inside = harness.driftctl("apply", *DENY_CHANGES)
    in_the_window = (replicas(harness), image(harness))
    planned = harness.driftctl("plan", *DENY_CHANGES)
    overridden = harness.driftctl("apply", *DENY_CHANGES, "--override-windows")

    window = "inside the deny window 'deny * * * * * for 1h on changes' until "
    assert inside.code == 0, inside.err
    assert in_the_window == (2, "nginx:1.27")  # drift corrected inside a changes window
    assert planned.code == 1
    assert f"    spec.image held: {window}" in planned.out
    assert f"|| WebApp/{harness.namespace}/shop: hold (update held: {window}" in planned.out
    assert overridden.code == 0, overridden.err
    assert image(harness) == "nginx:1.28"
    [event] = [m for m in events(harness, "Updated") if "overridden" in m]
    assert event.endswith(": overridden by --override-windows")
    assert window in event
