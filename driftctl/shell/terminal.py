"""Progress on a terminal: one line on stderr, redrawn in place, then erased.

The command line makes one only when stderr is a terminal and the output is text, so a
pipe, a CronJob's log or JSON output never carries it. Redraws are throttled (`interval`)
so that printing costs nothing next to the run, and `clear` erases the line before
anything else is printed to the same terminal. The text is made by the `line` given
(render.progress.progress_line), so this module only draws.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TextIO

ERASE_LINE = "\r\x1b[K"
Line = Callable[[str, int, int | None, float], str]  # phase, done, total, seconds


class TerminalProgress:
    """The `tick` of a run's Progress, drawn on a terminal stream."""

    def __init__(
        self,
        stream: TextIO,
        line: Line,
        *,
        interval: float = 0.1,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._stream, self._line = stream, line
        self._interval, self._clock = interval, clock
        self._lock = threading.Lock()
        self._phase = ""
        self._began = self._drawn = 0.0
        self._shown = False

    def tick(self, phase: str, done: int, total: int | None) -> None:
        """Draw the phase and count, at most once per interval (and when a phase starts
        or ends)."""
        now = self._clock()
        with self._lock:
            if phase != self._phase:
                self._phase, self._began = phase, now
            elif now - self._drawn < self._interval and done != total:
                return
            self._drawn = now
            self._stream.write(ERASE_LINE + self._line(phase, done, total, now - self._began))
            self._stream.flush()
            self._shown = True

    def clear(self) -> None:
        """Erase the line, so that other output starts at the beginning of a clean line."""
        with self._lock:
            if self._shown:
                self._stream.write(ERASE_LINE)
                self._stream.flush()
                self._shown = False
