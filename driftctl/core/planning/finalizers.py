"""The cleanup finalizer as a four-case table, and the guarded JSON Patches that move it.

Pure: reads a live WebApp and returns a step or a patch; the shell sends the patch.

| finalizer present? | being deleted? | step    |
|--------------------|----------------|---------|
| yes                | no             | APPLY   |
| yes                | yes            | CLEANUP |
| no                 | no             | ADD     |
| no                 | yes            | NOTHING |

Guarantees
- Once a WebApp carries the finalizer, the API server keeps it (Terminating) until the
  finalizer is removed, and driftctl removes it only after its cleanup succeeded. So a
  WebApp is never gone while its Deployment may still exist because of driftctl.
- The removal patch first `test`s that the index it removes still holds our finalizer:
  if someone changed the list since it was read, the server answers 422 and nothing
  else is removed.

Assumptions
- No other program adds or removes `webapp.example.com/cleanup`; the name is ours alone.
- Cleanup is idempotent (NotFound is success) and tolerates an apply that never ran, so a
  crash between cleanup and the finalizer's removal only means the next run repeats it.

Caveats
- Cleanup runs at least once per deletion, maybe more (a crash after cleanup, before the
  patch). It must never assume it is the first run.
- A person who removes the finalizer by hand skips cleanup; the ownerReference still lets
  the garbage collector remove the Deployment, so nothing leaks, but no Event is written.
- In the NOTHING case (being deleted without our finalizer) driftctl does nothing: some
  other finalizer holds the object and its owner will finish the deletion.
- The finalizer is added as part of the applied WebApp (server-side apply treats
  finalizers as a set), never by a patch: the API server does not de-duplicate a patched list.
"""

from __future__ import annotations

import enum
from typing import Any

from driftctl import conventions as c
from driftctl.core.planning.objects import Obj, is_terminating, metadata

Patch = list[dict[str, Any]]


class FinalizerStep(enum.Enum):
    """What a run does with a live WebApp, by the four-case table."""

    APPLY = "apply"  # finalizer present, not deleted: normal apply
    CLEANUP = "cleanup"  # finalizer present, deleted: run cleanup, then remove the finalizer
    ADD = "add"  # finalizer absent, not deleted: the applied WebApp carries it
    NOTHING = "nothing"  # finalizer absent, deleted: someone else finishes the deletion


def finalizers_of(obj: Obj) -> list[str]:
    """The object's finalizers, in order."""
    return [str(name) for name in metadata(obj).get("finalizers") or []]


def has_finalizer(obj: Obj, finalizer: str = c.FINALIZER) -> bool:
    """Whether `finalizer` is on the object."""
    return finalizer in finalizers_of(obj)


def finalizer_step(live: Obj, finalizer: str = c.FINALIZER) -> FinalizerStep:
    """The four-case table of DESIGN.md section 7 for one live WebApp."""
    present, deleting = has_finalizer(live, finalizer), is_terminating(live)
    if present:
        return FinalizerStep.CLEANUP if deleting else FinalizerStep.APPLY
    return FinalizerStep.NOTHING if deleting else FinalizerStep.ADD


def remove_patch(live: Obj, finalizer: str = c.FINALIZER) -> Patch | None:
    """Remove our finalizer, guarded: test that its index still holds it. None if absent."""
    names = finalizers_of(live)
    if finalizer not in names:
        return None
    path = f"/metadata/finalizers/{names.index(finalizer)}"
    return [{"op": "test", "path": path, "value": finalizer}, {"op": "remove", "path": path}]
