"""How far a run is, as one line for a terminal. Pure: returns a string, prints nothing.

`applying: 3,412/20,000 objects (17%), 412/s`; while listing, the total is not known
yet: `listing: 12,000 objects, 30,000/s`; while `apply --wait` follows the rollouts it
started, WebApps whose rollout ended (Ready or Stalled) of those waited for, and no rate:
`rolling out: 1/3 WebApps (33%), 24 s`.
"""

from __future__ import annotations

ROLLING_OUT = "rolling out"  # pipeline.waiting's phase


def progress_line(phase: str, done: int, total: int | None, seconds: float) -> str:
    """The phase, objects done (of total, with the share), and the rate since it began."""
    share = f" ({done * 100 // total}%)" if total else ""
    if phase == ROLLING_OUT:
        return f"{phase}: {done:,}/{total or 0:,} WebApps{share}, {seconds:.0f} s"
    rate = f", {done / seconds:,.0f}/s" if seconds > 0 and done else ""
    if total is None:
        return f"{phase}: {done:,} objects{rate}"
    return f"{phase}: {done:,}/{total:,} objects{share}{rate}"
