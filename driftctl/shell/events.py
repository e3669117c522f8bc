"""Records Kubernetes Events on WebApps, as controllers do: reason and message, per change.

Only changes and failures make Events, so a run that changes nothing writes none. A
refused Event never fails a run: it is a report, not part of the desired state.
"""

from __future__ import annotations

import datetime

from driftctl.core.cluster import requests as r
from driftctl.core.planning.objects import Obj
from driftctl.shell.kube import ApiError, Kube


class Recorder:
    """Sends Events for one run; counts the ones the server refused."""

    def __init__(self, kube: Kube, now: datetime.datetime) -> None:
        self._kube, self._now = kube, now
        self.refused = 0

    def record(self, webapp: Obj, reason: str, message: str, *, warning: bool = False) -> None:
        try:
            self._kube.send(r.event(webapp, reason, message, warning=warning, now=self._now))
        except ApiError:
            self.refused += 1
