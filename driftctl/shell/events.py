"""Records Kubernetes Events on WebApps, as controllers do: reason and message, per change.

Only changes and failures make Events, so a run that changes nothing writes none. A
refused Event never fails a run: it is a report, not part of the desired state.
"""

from __future__ import annotations

import datetime
from typing import Any

from driftctl import conventions as c
from driftctl.core import requests as r
from driftctl.core.objects import Obj, metadata
from driftctl.shell.kube import ApiError, Kube


def event_body(
    webapp: Obj, reason: str, message: str, warning: bool, now: datetime.datetime
) -> dict[str, Any]:
    meta = metadata(webapp)
    stamp = now.astimezone(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"generateName": f"{meta['name']}.", "namespace": meta["namespace"]},
        "involvedObject": {
            "apiVersion": c.API_VERSION,
            "kind": c.KIND,
            "namespace": meta["namespace"],
            "name": meta["name"],
            "uid": meta.get("uid", ""),
        },
        "reason": reason,
        "message": message[:1024],
        "type": "Warning" if warning else "Normal",
        "source": {"component": c.FIELD_MANAGER},
        "reportingComponent": c.FIELD_MANAGER,
        "firstTimestamp": stamp,
        "lastTimestamp": stamp,
        "count": 1,
    }


class Recorder:
    """Sends Events for one run; counts the ones the server refused."""

    def __init__(self, kube: Kube, now: datetime.datetime) -> None:
        self._kube, self._now = kube, now
        self.refused = 0

    def record(self, webapp: Obj, reason: str, message: str, *, warning: bool = False) -> None:
        body = event_body(webapp, reason, message, warning, self._now)
        try:
            self._kube.send(r.create(r.EVENT, body["metadata"]["namespace"], body, c.FIELD_MANAGER))
        except ApiError:
            self.refused += 1
