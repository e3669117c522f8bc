"""One owner per object: which live objects of a WebApp's name are this instance's to change.

Pure. The rules (DESIGN.md section 7):
- a WebApp labelled for another instance is that instance's: a conflict, never taken over;
- a WebApp without any instance label that Git declares is adopted (a person made it by
  hand, or it predates driftctl);
- a Deployment with a WebApp's name is that WebApp's only when the WebApp is its
  controller (a controller ownerReference to the WebApp's uid); any other is a conflict,
  never updated, replaced or deleted, whatever flags are given. One exception keeps an
  old behaviour: this instance's own Deployment whose controller, a WebApp of the same
  name, is gone is taken back by that WebApp created again;
- a Deployment without any controller that driftctl can prove it made is its WebApp's:
  its ownerReference was stripped (`kubectl patch`, an orphaning delete of the WebApp), and
  the plan restores it as drift. The proof is all three marks driftctl leaves: this
  instance's label, the managed-by label, and driftctl's own Apply entry in
  `managedFields` (a person copying the labels does not make one). Without all three it
  stays a conflict.
"""

from __future__ import annotations

from driftctl import conventions as c
from driftctl.core.planning.guards import is_ours
from driftctl.core.planning.objects import Obj, key_of, labels_of, metadata

NEVER = "never updated, replaced or deleted"


def webapp_conflict(found: Obj, instance: str) -> str | None:
    """Why a live WebApp of a declared name is not this instance's; None: adopt it."""
    other = labels_of(found).get(c.INSTANCE_LABEL)
    if not other or other == instance:
        return None
    return f"belongs to instance {other} ({c.INSTANCE_LABEL}={other}); never taken over"


def controller_of(obj: Obj) -> Obj | None:
    """The ownerReference marked `controller: true`, if any."""
    for ref in metadata(obj).get("ownerReferences") or []:
        if isinstance(ref, dict) and ref.get("controller"):
            return ref
    return None


def deployment_conflict(
    deployment: Obj,
    name: str,
    owner_uid: str | None,
    instance: str,
    manager: str = c.FIELD_MANAGER,
) -> str | None:
    """Why a live Deployment named like WebApp `name` is not that WebApp's; None: it is.

    `owner_uid` is the live WebApp's uid, or None when the WebApp is created in this run.
    """
    webapp = c.object_ref(c.KIND, key_of(deployment).namespace, name)
    controller = controller_of(deployment)
    if controller is None and made_by_us(deployment, instance, manager):
        return None
    by_webapp = controller is not None and controller.get("kind") == c.KIND
    if by_webapp and controller is not None and owner_uid and controller.get("uid") == owner_uid:
        return None
    orphan = by_webapp and controller is not None and controller.get("name") == name
    if owner_uid is None and orphan and is_ours(deployment, instance):
        return None
    detail = _describe(deployment, controller, instance)
    return f"is not controlled by {webapp} ({detail}); {NEVER}"


def made_by_us(obj: Obj, instance: str, manager: str) -> bool:
    """Whether `obj` carries every mark driftctl leaves on what it applies (module docstring)."""
    labels = labels_of(obj)
    applied = any(
        entry.get("manager") == manager
        and entry.get("operation") == "Apply"
        and not entry.get("subresource")
        for entry in metadata(obj).get("managedFields") or []
        if isinstance(entry, dict)
    )
    return (
        is_ours(obj, instance) and labels.get(c.MANAGED_BY_LABEL) == c.MANAGED_BY_VALUE and applied
    )


def _describe(deployment: Obj, controller: Obj | None, instance: str) -> str:
    other = labels_of(deployment).get(c.INSTANCE_LABEL)
    if controller is not None:
        who = f"controlled by {controller.get('kind')}/{controller.get('name')}"
        return who + (f" uid {controller.get('uid')}" if controller.get("kind") == c.KIND else "")
    if other and other != instance:
        return f"labelled for instance {other}, no controller"
    return "no controller: made by hand or by another tool"
