"""The grammar of ignore rules: `Kind:/json/pointer`, and the fields no rule may name.

A rule comes from `--ignore` (settings.Drift), from a WebApp's annotation
`driftctl.example.com/ignore` in Git (core.source.validate, several rules separated by
commas or new lines), or from a saved plan (core.planning.saved_plan); all three parse it
here, so a rule is refused with the same words wherever it is written. What an ignored
field then does to a plan is core.planning.ignoring's business.

Pure, and below the settings (which hold the parsed `--ignore` rules) and the core: it
knows only the names of core concepts it must protect (conventions), never the core.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from driftctl import conventions as c

IGNORABLE_KINDS = (c.KIND, c.DEPLOYMENT_KIND)

# Fields an ignore rule may not name, by kind (decoded pointer tokens), and why.
_IDENTITY = "identifies the object"
_OURS = "is driftctl's own bookkeeping"
_NEVER_IGNORED: dict[tuple[str, ...], str] = {
    ("apiVersion",): _IDENTITY,
    ("kind",): _IDENTITY,
    ("metadata", "name"): _IDENTITY,
    ("metadata", "namespace"): _IDENTITY,
    ("metadata", "ownerReferences"): "ties the Deployment to its WebApp",
    ("metadata", "labels", c.INSTANCE_LABEL): _OURS,
    ("metadata", "labels", c.MANAGED_BY_LABEL): _OURS,
    ("metadata", "labels", c.NAME_LABEL): _OURS,
    ("metadata", "labels", c.SELECTOR_INSTANCE_LABEL): _OURS,
    ("metadata", "annotations", c.REVISION_ANNOTATION): _OURS,
    ("metadata", "annotations", c.SOURCE_ANNOTATION): _OURS,
    ("metadata", "finalizers"): "holds the WebApp until its cleanup ran",
    ("spec", "selector"): "is immutable; a change needs --recreate",
    ("status",): "is not compared: status is reported, never drift",
}
_WEBAPP_SPEC = (
    "is the WebApp's declaration in Git, which is never ignored (it is what a Git change "
    "is told by); ignore the field of its Deployment instead, e.g. Deployment:/spec/replicas"
)


def pointer_tokens(pointer: str) -> tuple[str, ...]:
    """The decoded reference tokens of an RFC 6901 JSON Pointer (`/a~1b/c` -> ("a/b", "c"))."""
    return tuple(part.replace("~1", "/").replace("~0", "~") for part in pointer.split("/")[1:])


def ignore_rule_problem(kind: str, pointer: str) -> str | None:
    """Why `kind:pointer` cannot be an ignore rule, or None."""
    if kind not in IGNORABLE_KINDS:
        return f"names kind {kind!r}; rules are for {' or '.join(IGNORABLE_KINDS)}"
    if not pointer.startswith("/") or pointer == "/":
        return (
            f"needs a JSON pointer to a field after the kind, like /spec/replicas, not {pointer!r}"
        )
    if re.search(r"~(?![01])", pointer):
        return f"has an invalid JSON pointer escape in {pointer!r} (use ~0 for ~ and ~1 for /)"
    return _field_problem(kind, pointer)


def _field_problem(kind: str, pointer: str) -> str | None:
    """Why the field a valid pointer names may not be ignored, or None."""
    tokens = pointer_tokens(pointer)
    if kind == c.KIND and tokens[0] == "spec":
        return _WEBAPP_SPEC
    for start, why in _NEVER_IGNORED.items():
        if tokens[: len(start)] == start:
            return f"{pointer} {why}"
        if start[: len(tokens)] == tokens:
            covered = "".join("/" + part.replace("~", "~0").replace("/", "~1") for part in start)
            return f"{pointer} covers {covered}, which {why}"
    return None


@dataclass(frozen=True, order=True)
class IgnoreRule:
    """`Kind:/json/pointer`: that field of that kind of object is not drift.

    `origin` says where the rule was given, for the plan's "ignored by ...".
    """

    kind: str
    pointer: str
    origin: str = "--ignore"

    @classmethod
    def parse(cls, text: str, origin: str = "--ignore") -> IgnoreRule:
        """A rule from `Kind:/pointer`; ValueError with the reason when it cannot be one."""
        kind, colon, pointer = text.strip().partition(":")
        if not colon:
            raise ValueError(f"{text!r} is not Kind:/json/pointer (e.g. Deployment:/spec/replicas)")
        problem = ignore_rule_problem(kind.strip(), pointer.strip())
        if problem is not None:
            raise ValueError(f"{text.strip()!r} {problem}")
        return cls(kind.strip(), pointer.strip(), origin)

    @property
    def tokens(self) -> tuple[str, ...]:
        return pointer_tokens(self.pointer)

    def __str__(self) -> str:
        return f"{self.kind}:{self.pointer}"


def rule_texts(value: str) -> list[str]:
    """The rules written in one annotation value: separated by commas or new lines."""
    return [part.strip() for part in re.split(r"[,\n]", value) if part.strip()]
