"""The pre-merge check as text, JSON and Markdown. Pure: returns strings, prints nothing.

Values arrive masked (core.planning.redaction); objects are named `Kind/namespace/name`.
Decides nothing: what a check found is core.planning.check's.

The package's rooms, each format importable from here:
- text: for a terminal or a CI log (`check_text`);
- json_output: one JSON object (`check_json`, `JSON_VERSION`);
- markdown: the pull-request comment (`check_markdown`, `MARKER`), and budget: the comment
  kept within `max_bytes`;
- words: the phrases the text and the Markdown share (`field_line`);
- targets: the check across targets in the three formats (`targets_text`,
  `targets_json`, `targets_markdown`), each target's part made by the modules above.
"""

from driftctl.render.check.json_output import JSON_VERSION, check_json
from driftctl.render.check.markdown import MARKER, check_markdown
from driftctl.render.check.targets import targets_json, targets_markdown, targets_text
from driftctl.render.check.text import check_text
from driftctl.render.check.words import field_line

__all__ = [
    "JSON_VERSION",
    "MARKER",
    "check_json",
    "check_markdown",
    "check_text",
    "field_line",
    "targets_json",
    "targets_markdown",
    "targets_text",
]
