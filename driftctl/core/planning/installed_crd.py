"""What the WebApp CRD installed in the cluster lets a run write: read once per run.

Pure: the shell reads the CRD (shell.live_state), this module judges it. driftctl's own
CRD is generated from its model (core.source.crd); a cluster may hold another one: an older
driftctl's, or the seed operator's, whose status declares only `available_replicas` and
`ready`. The API server refuses a server-side apply naming a field its schema does not
declare, with a 500, every time, so a run compares the two schemas before it writes:

- spec: every field driftctl applies must be declared there, of the same type (and the
  installed schema must require nothing more); otherwise no WebApp can be applied, and the
  run is refused before anything is written (`spec_problems`);
- status: a field the installed schema lacks is left out of every status write (`fit`),
  the others are written, and the run says once which are missing and how to upgrade
  (`notice`); without a status subresource no status is written at all.

Both comparisons walk the two schemas, never a list of field names: a status field the
model gains is checked, and left out where the CRD lacks it, with nothing changed here.
When the CRD cannot be read (a ServiceAccount not allowed to), driftctl's own is assumed
and the run says so (`unreadable`). `comparable_spec` is what `driftctl crd --diff` compares
with driftctl's own: the installed spec without what the API server fills in by itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from driftctl import conventions as c
from driftctl.core.planning.objects import Obj
from driftctl.core.source.crd import webapp_schema
from driftctl.core.source.schema import Schema

PRESERVE = "x-kubernetes-preserve-unknown-fields"
UPGRADE = "driftctl crd | kubectl apply --server-side -f -"
SHOW_UPGRADE = "driftctl crd --diff"
CRD_GRANT = "get on customresourcedefinitions/webapps.example.com"


@dataclass(frozen=True)
class InstalledCrd:
    """What the installed CRD lets a run write.

    `status`: the installed status schema (None: no status subresource, nothing is
    written); `missing`: the status fields driftctl writes that it lacks, as paths;
    `spec_problems`: why driftctl cannot apply a WebApp's spec through it; `unread`: why
    it could not be read (driftctl's own CRD is assumed then).
    """

    status: Schema | None
    missing: tuple[str, ...] = ()
    spec_problems: tuple[str, ...] = ()
    unread: str = ""


def _own(part: str) -> Schema:
    schema: Schema = webapp_schema()["properties"][part]
    return schema


OWN = InstalledCrd(_own("status"))  # driftctl's own CRD: nothing left out


def installed(crd: Obj) -> InstalledCrd:
    """Judge the CRD object the API server returned (module docstring)."""
    version = _served_version(crd)
    if version is None:
        served = f"{c.GROUP}/{c.VERSION}"
        return InstalledCrd(None, spec_problems=(f"it does not serve {served}",))
    root = ((version.get("schema") or {}).get("openAPIV3Schema")) or {}
    properties = root.get("properties") or {}
    if root.get(PRESERVE):
        theirs_spec: Schema = {PRESERVE: True}
        theirs_status: Schema = {PRESERVE: True}
    else:
        theirs_spec = properties.get("spec") or {}
        theirs_status = properties.get("status") or {}
    problems = _spec_problems(_own("spec"), theirs_spec)
    if "status" not in (version.get("subresources") or {}):
        return InstalledCrd(None, ("status (no status subresource)",), problems)
    missing = tuple(lacking(_own("status"), theirs_status, "status"))
    return InstalledCrd(theirs_status, missing, problems)


def unreadable(reason: str) -> InstalledCrd:
    """The CRD could not be read: driftctl's own is assumed, and the run says why."""
    return InstalledCrd(OWN.status, unread=reason)


def _served_version(crd: Obj) -> Obj | None:
    for version in (crd.get("spec") or {}).get("versions") or []:
        if version.get("name") == c.VERSION and version.get("served"):
            found: Obj = version
            return found
    return None


def _spec_problems(ours: Schema, theirs: Schema) -> tuple[str, ...]:
    if not theirs:
        return ("spec is not declared",)
    problems = [f"{path} is not declared" for path in lacking(ours, theirs, "spec")]
    declared = set((ours.get("properties") or {}).keys())
    problems += [
        f"spec.{name} is required there, and driftctl does not write it"
        for name in theirs.get("required") or []
        if name not in declared and not theirs.get(PRESERVE)
    ]
    return tuple(problems)


def lacking(ours: Schema, theirs: Schema, path: str) -> list[str]:
    """The paths under `path` that `ours` declares and `theirs` cannot hold: absent there,
    or of another type (`status.ready (string there)`)."""
    if theirs.get(PRESERVE):
        return []
    if not _same_type(ours, theirs):
        return [f"{path} ({theirs.get('type')} there)"]
    if ours.get("type") == "array":
        return lacking(ours.get("items") or {}, theirs.get("items") or {}, f"{path}[]")
    found: list[str] = []
    for name, sub in (ours.get("properties") or {}).items():
        inner = _property(theirs, name)
        if inner is None:
            found.append(f"{path}.{name}")
        else:
            found += lacking(sub, inner, f"{path}.{name}")
    return found


def _same_type(ours: Schema, theirs: Schema) -> bool:
    return "type" not in theirs or theirs.get("type") == ours.get("type")


def _property(schema: Schema, name: str) -> Schema | None:
    """The schema of member `name` of an object schema, or None when it has no such member."""
    declared = (schema.get("properties") or {}).get(name)
    if declared is not None:
        found: Schema = declared
        return found
    others = schema.get("additionalProperties")
    if isinstance(others, dict):
        return others
    if others is True:
        return {PRESERVE: True}
    return None


def fit(value: Any, schema: Schema) -> Any:
    """`value` with every member `schema` does not declare (or declares of another type)
    left out: what a server-side apply through that schema accepts."""
    if schema.get(PRESERVE):
        return value
    if isinstance(value, dict):
        kept: dict[str, Any] = {}
        for name, member in value.items():
            inner = _property(schema, name)
            if inner is not None and _holds(inner, member):
                kept[name] = fit(member, inner)
        return kept
    if isinstance(value, list):
        items = schema.get("items") or {PRESERVE: True}
        return [fit(item, items) for item in value if _holds(items, item)]
    return value


_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "boolean": (bool,),
    "integer": (int,),
    "number": (int, float),
    "object": (dict,),
    "array": (list,),
}


def _holds(schema: Schema, value: Any) -> bool:
    kind = schema.get("type")
    if kind is None or kind not in _TYPES:
        return True
    if isinstance(value, bool) and kind != "boolean":
        return False
    return isinstance(value, _TYPES[kind])


def notice(crd: InstalledCrd) -> str | None:
    """The one line a run says about the installed CRD, or None when it is driftctl's."""
    if crd.unread:
        return (
            f"could not read the installed CRD {c.CRD_NAME} ({crd.unread}): status is "
            f"written as driftctl's own CRD declares it; grant {CRD_GRANT} to know"
        )
    if not crd.missing:
        return None
    if crd.status is None:
        what = "has no status subresource: no status is written"
    else:
        fields = ", ".join(crd.missing)
        what = f"lacks {fields}: status is written without them"
    return (
        f"the installed CRD {c.CRD_NAME} {what}; `{SHOW_UPGRADE}` shows what an upgrade "
        f"changes, `{UPGRADE}` makes it"
    )


def spec_refusal(crd: InstalledCrd) -> str | None:
    """Why no WebApp can be applied through the installed CRD, or None."""
    if not crd.spec_problems:
        return None
    return f"the installed CRD {c.CRD_NAME} cannot hold what driftctl applies: " + "; ".join(
        crd.spec_problems
    )


# What the API server sets in every CRD it stores when the manifest does not.
_SERVER_DEFAULTS: dict[str, Any] = {"conversion": {"strategy": "None"}}


def comparable_spec(crd: Obj | None) -> Obj:
    """The spec of a CRD as its manifest would say it: the server's defaults left out
    (nothing at all for a CRD that is not installed)."""
    spec = dict((crd or {}).get("spec") or {})
    for key, default in _SERVER_DEFAULTS.items():
        if spec.get(key) == default:
            del spec[key]
    return spec
