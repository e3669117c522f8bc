"""How a command's process uses Python's cyclic garbage collector.

A bounded command (plan, apply, check, status, ...) decodes its LIST pages and desired
files into hundreds of thousands of dicts and lists, and holds them to its end. With the
collector on, every 700 new containers start a collection, and each time the heap has
grown by a quarter a full one walks every object held: measured at 10,000 WebApps, about
a quarter of a no-drift plan's CPU seconds, spent finding nothing (those objects live until
the process ends; peak RSS is the same with the collector paused: a run makes next to no
cycles). So a bounded command runs with the collector paused, and the collector is put
back as it was when the command returns (the tests run commands inside their own process).
`watch` runs for days and makes garbage as it goes: its collector stays on.

What the command made is still held when it returns (its caller lets go of it after), all
of it in the youngest generation, which the collector's first pass after the pause would
walk: 0.16 CPU s at 10,000 WebApps. So it is moved to the oldest generation first (frozen
and thawed at once): not walked by the young passes, and its cycles, if any, collected by
the next full one.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def paused_for(*, long_lived: bool) -> Iterator[None]:
    """The collector paused while a bounded command runs; untouched for a long-lived one."""
    if long_lived or not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.unfreeze()
        gc.enable()
