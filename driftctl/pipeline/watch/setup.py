"""What one `watch` process is told and what it is handed: values only.

`Setup` is what the command line says (apply's settings and watch's own pacing); `Runtime`
is what the process is handed from outside (its environment, where it speaks, its stop
signal, its clock), so that each part of the process can be built on its own, in a test
too.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from driftctl.core.notify.facts import RunFacts
from driftctl.pipeline.engine import Notice
from driftctl.settings import NO_VERIFY, Cluster, Drift, Lock, Notify, Policy, Source, Verify, Watch
from driftctl.shell.apply import Progress


@dataclass(frozen=True)
class Setup:
    """Everything `watch` was told: the same settings as apply's, and its own pacing."""

    source: Source
    cluster: Cluster
    policy: Policy
    lock: Lock
    pace: Watch
    drift: Drift = field(default_factory=Drift)
    notify: Notify = field(default_factory=Notify)
    verify: Verify = NO_VERIFY


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
