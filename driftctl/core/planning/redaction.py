"""Secret-like values masked before a report shows them (a pull-request comment is public).

Pure. A value is masked when either rule holds:

1. **Its field's name looks secret**: some key on its path (a label or annotation key, an
   env var name, a map key) contains `secret`, `token`, `passw`, `pwd`, `credential`,
   `apikey`/`api-key`/`api_key`, `private-key`, `auth` (not `author`), `session` or
   `cookie`, in any case.
2. **The value looks like a credential**, whatever its field: a PEM block (`-----BEGIN`),
   a JSON Web Token (`eyJ...` in three dot-separated parts), a URL with a password
   (`scheme://user:password@`), or a token with a well-known prefix (`ghp_`, `gho_`,
   `ghs_`, `github_pat_`, `glpat-`, `xoxb-`/`xoxp-`, `AKIA...`, `sk-`).

A masked value is shown as `(masked)`: not a hash, which would let a short password be
guessed. A reviewer still sees that the field changed. Maps and lists are masked member
by member, so masking a Deployment that is created hides only the secret-like members.
`masked_text` masks the credential-like parts of free text (an API server's message may
echo a request's values), `masked_patch` the values of a JSON Patch a report shows.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from driftctl.core.planning.changes import FieldChange

MASK = "(masked)"

_SECRET_NAME = re.compile(
    r"secret|token|passw|pwd|credential|api[-_.]?key|private[-_.]?key|auth(?!or)|session|cookie",
    re.IGNORECASE,
)
_SECRET_VALUE = re.compile(
    r"-----BEGIN [A-Z ]+-----"
    r"|\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"
    r"|[a-z][a-z0-9+.-]*://[^/\s:@]+:[^/\s@]+@"
    r"|\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{20,}"
    r"|xox[abprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|sk-[A-Za-z0-9]{20,})"
)


# In free text a PEM block is masked through its END line, not only its header.
_SECRET_IN_TEXT = re.compile(
    r"-----BEGIN ([A-Z ]+)-----(?:.*?-----END \1-----)?|" + _SECRET_VALUE.pattern, re.DOTALL
)


def secret_name(name: str) -> bool:
    """Whether a field or key name says its value is secret (rule 1)."""
    return bool(_SECRET_NAME.search(name))


def masked(value: Any, name: str = "") -> Any:
    """`value` with every secret-like member replaced by `(masked)`; `name` is its field."""
    if secret_name(name) and value is not None and not isinstance(value, dict | list):
        return MASK
    if isinstance(value, dict):
        return {key: masked(child, str(key)) for key, child in value.items()}
    if isinstance(value, list):
        return [masked(item, name) for item in value]
    if isinstance(value, str) and _SECRET_VALUE.search(value):
        return MASK
    return value


def masked_change(change: FieldChange) -> FieldChange:
    """A field change whose old and new values are masked by both rules."""
    return replace(
        change, before=masked(change.before, change.path), after=masked(change.after, change.path)
    )


def masked_text(text: str) -> str:
    """`text` with each credential-like part (rule 2) replaced by `(masked)`."""
    return _SECRET_IN_TEXT.sub(MASK, text)


def masked_patch(patch: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """A JSON Patch's operations with their values masked by both rules (the name of a
    value is the last segment of its path)."""
    return [
        {**op, "value": masked(op["value"], str(op.get("path", "")).rsplit("/", 1)[-1])}
        if "value" in op
        else dict(op)
        for op in patch
    ]
