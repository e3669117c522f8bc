"""What one `watch` process is handed from outside, beside its request (the settings,
driftctl.settings.WatchRequest): its environment, where it speaks, its stop signal, its
clock (`Runtime`), so that each part of the process can be built on its own, in a test
too. Values only.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from driftctl.core.notify.facts import RunFacts
from driftctl.pipeline.runs import Notice
from driftctl.shell.apply import Progress


@dataclass(frozen=True)
class Runtime:
    """What the process is handed: the environment (Git credentials), where retries and
    warnings go (`notice`) and what it does goes (`say`), each object's outcome, the stop
    signal (SIGTERM), its clock and jitter, and who hears what each reconcile and pass did
    or found (`heard`: the notifications' gatherer, pipeline.notify)."""

    environ: Mapping[str, str]
    notice: Notice
    say: Notice
    progress: Progress
    stop: threading.Event
    clock: Callable[[], float] = time.monotonic
    jitter: Callable[[], float] = random.random
    heard: Callable[[RunFacts], None] = lambda facts: None
