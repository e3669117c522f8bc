"""The only Event writer: records Kubernetes Events on WebApps, as controllers do.

Only changes and failures make Events (core.planning.events decides what each says), so a
run that changes nothing writes none. At most one Event per WebApp per run, and at most
`cap` in a run: the others are counted, and `close` records one summary Event about the
run's Lease. A refused Event never fails a run: it is a report, not part of the desired
state.
"""

from __future__ import annotations

import datetime
import threading
from collections import Counter

from driftctl.core.api import requests as r
from driftctl.core.planning.events import Event, summary_event
from driftctl.core.planning.objects import Obj, key_of
from driftctl.core.source.model import Place
from driftctl.settings import MAX_EVENTS
from driftctl.shell.kube import ApiError, Kube


class Recorder:
    """Sends the Events of one run; counts those left out and those the server refused."""

    def __init__(
        self,
        kube: Kube,
        now: datetime.datetime,
        *,
        cap: int = MAX_EVENTS,
        run: Obj | None = None,
        revision: str = "",
    ) -> None:
        self._kube, self._now = kube, now
        self._cap, self._run, self._revision = cap, run, revision
        self._lock = threading.Lock()
        self._recorded: set[Place] = set()
        self.left_out: Counter[str] = Counter()
        self.refused = 0

    def record(self, webapp: Obj, event: Event) -> None:
        """The Event of one WebApp, unless it has one in this run or the cap is reached."""
        place = key_of(webapp).place
        with self._lock:
            if place in self._recorded:
                return
            self._recorded.add(place)
            if len(self._recorded) > self._cap:
                self.left_out[event.reason] += 1
                return
        self._send(webapp, event)

    def close(self) -> None:
        """The summary Event of what the cap left out, about the run's Lease (if any)."""
        if self.left_out and self._run is not None:
            self._send(self._run, summary_event(self.left_out, self._cap, self._revision))

    def _send(self, about: Obj, event: Event) -> None:
        request = r.event(about, event.reason, event.message, warning=event.warning, now=self._now)
        try:
            self._kube.send(request)
        except ApiError:
            self.refused += 1
