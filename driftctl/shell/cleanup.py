"""The only module that deletes objects, releases them (orphan), or removes driftctl's
finalizer.

Cleanup of a WebApp (pruned, or deleted by a person) runs in this order: delete each
Deployment it owns (uid precondition), wait until it is gone (bounded), then remove the
finalizer with a JSON Patch whose `test` op checks the index still holds it. NotFound
counts as done at every step (Kube.send_unless_missing), so cleanup is idempotent and
tolerates an apply that never ran. If a step fails, the finalizer stays and the next run
retries. A failure that ends the run (core.retries.ends_the_run) is not a cleanup
failure: it goes up as it is.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from driftctl import conventions as c
from driftctl.core.api import requests as r
from driftctl.core.planning.actions import OwnedDelete, Patch
from driftctl.core.planning.objects import Obj, ObjectKey, uid
from driftctl.core.retries import ends_the_run
from driftctl.shell.kube import ApiError, Kube

WAIT_SECONDS = 60.0
POLL_SECONDS = 0.25


class CleanupFailed(Exception):
    """A cleanup step failed; the finalizer stays, and the message says which step."""


@dataclass
class Deleter:
    """Deletes with preconditions and waits for objects to be gone."""

    kube: Kube
    manager: str = c.FIELD_MANAGER
    wait_seconds: float = WAIT_SECONDS
    sleep: Callable[[float], None] = time.sleep

    def delete(self, key: ObjectKey, options: Obj) -> None:
        """Delete one object; already gone is fine, a failed precondition is not."""
        self.kube.send_unless_missing(r.delete(r.KINDS[key.kind], key.namespace, key.name, options))

    def wait_gone(self, key: ObjectKey, gone_uid: str) -> bool:
        """Whether the object with `gone_uid` disappeared within the bound."""
        deadline = time.monotonic() + self.wait_seconds
        while True:
            current = self.kube.send_unless_missing(
                r.get(r.KINDS[key.kind], key.namespace, key.name)
            )
            if current is None or uid(current) != gone_uid:
                return True  # gone (and maybe something new took the name)
            if time.monotonic() >= deadline:
                return False
            self.sleep(POLL_SECONDS)

    def cleanup(self, owned: Sequence[OwnedDelete], webapp: ObjectKey, finalizer: Patch) -> None:
        """Delete what the WebApp owns, wait for it, then remove the finalizer."""
        for each in owned:
            self._delete_owned(each)
        self.remove_finalizer(webapp, finalizer)

    def _delete_owned(self, owned: OwnedDelete) -> None:
        try:
            self.delete(owned.key, owned.body)
            gone = self.wait_gone(owned.key, owned.body["preconditions"]["uid"])
        except ApiError as failed:
            if ends_the_run(failed.status, failed.said):
                raise
            raise CleanupFailed(f"deleting {owned.key.display} failed: {failed.short}") from None
        if not gone:
            raise CleanupFailed(f"{owned.key.display} still exists after {self.wait_seconds:.0f}s")

    def release(self, key: ObjectKey, patch: Patch) -> None:
        """Release an object from its owner and this instance (orphan): the plan's guarded
        JSON Patch. Already gone is fine; a refused patch fails the removal."""
        request = r.json_patch(r.KINDS[key.kind], key.namespace, key.name, patch, self.manager)
        try:
            self.kube.send_unless_missing(request)
        except ApiError as failed:
            if ends_the_run(failed.status):
                raise
            raise CleanupFailed(f"releasing {key.display} failed: {failed.short}") from None

    def remove_finalizer(self, webapp: ObjectKey, patch: Patch) -> None:
        """Send the guarded finalizer removal (nothing when the plan found no finalizer)."""
        if not patch:
            return
        request = r.json_patch(r.WEBAPP, webapp.namespace, webapp.name, patch, self.manager)
        try:
            self.kube.send_unless_missing(request)
        except ApiError as failed:
            if ends_the_run(failed.status, failed.said):
                raise
            raise CleanupFailed(f"removing the finalizer failed: {failed.short}") from None
