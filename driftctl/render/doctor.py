"""`driftctl doctor` as text and JSON. Pure: returns strings.

Text: one line per finding, `ok` / `warn` / `fail`, the check, what it found; under a
warning or a failure its hint (the fix, a command to run); then a summary line. JSON is
stable:

    checks    one per finding: check, verdict (ok, warn, fail), message, hint (or null)
    summary   {fail, warn, ok}: how many of each
    exitCode  0 all passed, 1 warnings only, 4 a check failed
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from driftctl.core.doctor.findings import Finding, Verdict, counts, exit_code
from driftctl.render.style import Style

_COLOURS = {Verdict.OK: "green", Verdict.WARN: "yellow", Verdict.FAIL: "red"}


def doctor_text(findings: Sequence[Finding], style: Style | None = None) -> str:
    """One line per finding, its hint under it, then the summary."""
    style = style or Style()
    width = max((len(each.check) for each in findings), default=0)
    lines = []
    for each in findings:
        verdict = style.paint(str(each.verdict).ljust(4), _COLOURS[each.verdict])
        lines.append(f"{verdict}  {each.check.ljust(width)}  {each.line}")
        if each.hint and each.verdict is not Verdict.OK:
            lines.append(f"{' ' * (width + 8)}hint: {each.hint}")
    tally = counts(findings)
    lines += ["", f"doctor: {tally['fail']} failed, {tally['warn']} warnings, {tally['ok']} ok"]
    return "\n".join(lines) + "\n"


def doctor_json(findings: Sequence[Finding]) -> str:
    """The findings as stable JSON (keys in the module docstring)."""
    document = {
        "checks": [
            {
                "check": each.check,
                "verdict": str(each.verdict),
                "message": each.line,
                "hint": each.hint,
            }
            for each in findings
        ],
        "summary": counts(findings),
        "exitCode": int(exit_code(findings)),
    }
    return json.dumps(document, indent=2) + "\n"
