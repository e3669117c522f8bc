"""How far a run is, as one line for a terminal. Pure: returns a string, prints nothing.

`applying: 3,412/20,000 objects (17%), 412/s`; while listing, the total is not known
yet: `listing: 12,000 objects, 30,000/s`.
"""

from __future__ import annotations


def progress_line(phase: str, done: int, total: int | None, seconds: float) -> str:
    """The phase, objects done (of total, with the share), and the rate since it began."""
    rate = f", {done / seconds:,.0f}/s" if seconds > 0 and done else ""
    if total is None:
        return f"{phase}: {done:,} objects{rate}"
    share = f" ({done * 100 // total}%)" if total else ""
    return f"{phase}: {done:,}/{total:,} objects{share}{rate}"
