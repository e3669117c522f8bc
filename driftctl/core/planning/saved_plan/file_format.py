"""The saved-plan file: one versioned JSON document, written and read here, and nowhere else.

Pure: `saved_plan_json` returns the text of a plan, `parse_saved_plan` reads it back and
refuses anything malformed with the file, the field and the reason (SavedPlanError, exit
3). Each part of the document is written and read side by side below, so a key cannot
change on one side only. shell.plan_file puts the text on disk.

Keys (in this order):
    format       "driftctl.example.com/saved-plan"
    version      2 (bumped when a key changes meaning; readers refuse versions they do
                 not know). Version 1 (before the controls) is still read: its missing
                 keys are the defaults, and it holds no held, orphan, quarantine or
                 confirm action; a driftctl that reads only version 1 refuses this one
    driftctl     the version that wrote it (for people; not checked)
    instance, fieldManager, shard ("shard I of N"; a sharded plan is that shard's alone)
    source       {source: "<url>#<path>", commit, namespace (of WebApps that name none)}
    crd          {name, version, digest: sha256 of the generated CRD}
    policy       {prune, allowEmpty, maxPrune (N, P% or null), recreate, prunePolicy,
                 propagation, quarantineGrace ("24h"), changePolicy, driftPolicy,
                 windows (["deny 0 18 * * 5 for 64h ..."]), overrideWindows}
    drift        {overrideManagers, ignore (["Kind:/pointer"]), ignoreManagers}: what counted
                 as drift (rules in a WebApp's annotation come from Git at the commit); a
                 file from before drift settings were saved has none, read as the defaults
    declared     the WebApps whose status a run writes: [{kind, namespace, name}]
    refusals     the prune guards' messages
    suspended    why the instance was suspended when the plan was made ("": it was not)
    lifted       the windows the plan goes through (--override-windows), per WebApp:
                 [{namespace, name, note}]
    objects      in the plan's order, one per action: kind, namespace, name, action (the
                 verb), reason, live ({uid, resourceVersion} it was planned against, or
                 null), patch (RFC 6902, live -> result), and what carrying it out needs,
                 the keys of `_FIELDS` its action has: manifest, owner, changes ({path, op,
                 before, after, managers, field, note, corrected}), removal ({fields,
                 patch}: the action's revert of fields set outside Git, or null), apply
                 (whether an update sends its manifest), kept ([{path, reason, live,
                 git, held}]), delete, finalizerPatch, owned, error, and for what a
                 control holds: would (the verb held) and control (which kind holds it,
                 core.planning.controls.Control); for an orphaning: released
                 ([{kind, namespace, name, patch}])

An action is read back as the type of its verb (a skip with an `error` is a Refused one),
so a new kind of action whose fields are among `_FIELDS` needs nothing here.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from driftctl import __version__
from driftctl import conventions as c
from driftctl.core.planning.actions import (
    Action,
    FieldRevert,
    OwnedDelete,
    Plan,
    Refused,
    Release,
    patch_of,
)
from driftctl.core.planning.changes import FieldChange, Kept
from driftctl.core.planning.controls import Control
from driftctl.core.planning.live import LiveState
from driftctl.core.planning.objects import ObjectKey
from driftctl.core.planning.saved_plan.checks import Checks
from driftctl.core.planning.saved_plan.identity import CrdIdentity, PlanIdentity, SavedPlanError
from driftctl.core.planning.saved_plan.recheck import Base, SavedPlan, base_of
from driftctl.core.planning.verbs import Verb
from driftctl.core.source.model import Place
from driftctl.errors import UsageError
from driftctl.ignore_rules import IgnoreRule
from driftctl.schedules import duration_text
from driftctl.settings import Drift, Policy

FORMAT = "driftctl.example.com/saved-plan"
VERSION = 2
READABLE = (1, 2)  # the versions this driftctl reads
MAX_BYTES = 64 * 1024 * 1024  # a plan of 10,000 WebApps is a few tens of MiB

# ---- the document ----------------------------------------------------------------------------


def saved_plan_json(
    plan: Plan, live: LiveState, identity: PlanIdentity, policy: Policy, drift: Drift | None = None
) -> str:
    """The saved-plan document of `plan`, made against `live` (keys in the module docstring)."""
    document = {
        "format": FORMAT,
        "version": VERSION,
        "driftctl": __version__,
        **_identity_json(identity),
        "policy": _policy_json(policy),
        "drift": _drift_json(drift or Drift()),
        "declared": [key.as_json() for key in plan.declared],
        "refusals": list(plan.refusals),
        "suspended": plan.suspended,
        "lifted": [
            {"namespace": place.namespace, "name": place.name, "note": note}
            for place, note in plan.lifted.items()
        ],
        "objects": [_object_json(action, live) for action in plan.actions],
    }
    return json.dumps(document, indent=2) + "\n"


def parse_saved_plan(text: str, file: str) -> SavedPlan:
    """The saved plan in `text` (read from `file`), or SavedPlanError naming what is wrong."""
    try:
        document = json.loads(text)
    except ValueError as error:
        raise SavedPlanError(file, f"not JSON: {error}") from None
    check = Checks(file)
    root = check.mapping(document, "the document")
    if root.get("format") != FORMAT:
        check.fail("", f"not a saved driftctl plan (format is not {FORMAT!r})")
    if root.get("version") not in READABLE:
        readable = " and ".join(str(each) for each in READABLE)
        check.fail(
            "",
            f"version {root.get('version')!r} is not supported (this driftctl reads {readable})",
            hint="make the plan again with this driftctl",
        )
    identity = _identity(check, root)
    policy = _policy(check, check.mapping(root.get("policy"), "policy"))
    declared = tuple(_key(check, *each) for each in check.each(root.get("declared"), "declared"))
    refusals = check.names(root.get("refusals"), "refusals")
    bases: dict[ObjectKey, Base | None] = {}
    actions = []
    for entry, where in check.each(root.get("objects"), "objects"):
        action = _action(check, entry, where)
        actions.append(action)
        bases[action.key] = _base(check, entry.get("live"), f"{where}.live")
    lifted = {
        Place(check.text(each, "namespace", at), check.text(each, "name", at)): check.text(
            each, "note", at
        )
        for each, at in check.each(root.get("lifted", []), "lifted")
    }
    suspended = check.string(root.get("suspended", ""), "suspended")
    plan = Plan(tuple(actions), declared, refusals, identity.commit, lifted, suspended)
    drift = _drift(check, check.mapping(root.get("drift", {}), "drift"))
    return SavedPlan(identity, policy, plan, bases, drift)


def _identity_json(identity: PlanIdentity) -> dict[str, Any]:
    return {
        "instance": identity.instance,
        "fieldManager": identity.field_manager,
        "shard": identity.shard,
        "source": {
            "source": identity.source,
            "commit": identity.commit,
            "namespace": identity.namespace,
        },
        "crd": {
            "name": identity.crd.name,
            "version": identity.crd.version,
            "digest": identity.crd.digest,
        },
    }


def _identity(check: Checks, root: dict[str, Any]) -> PlanIdentity:
    source = check.mapping(root.get("source"), "source")
    crd = check.mapping(root.get("crd"), "crd")
    return PlanIdentity(
        instance=check.text(root, "instance", ""),
        field_manager=check.text(root, "fieldManager", ""),
        source=check.text(source, "source", "source"),
        commit=check.text(source, "commit", "source"),
        namespace=check.text(source, "namespace", "source"),
        crd=CrdIdentity(
            check.text(crd, "name", "crd"),
            check.text(crd, "version", "crd"),
            check.text(crd, "digest", "crd"),
        ),
        shard=check.text(root, "shard", ""),
    )


def _policy_json(policy: Policy) -> dict[str, Any]:
    return {
        "prune": policy.prune,
        "allowEmpty": policy.allow_empty,
        "maxPrune": None if policy.max_prune is None else str(policy.max_prune),
        "recreate": policy.recreate,
        "prunePolicy": str(policy.prune_policy),
        "propagation": str(policy.propagation),
        "quarantineGrace": duration_text(policy.quarantine_grace),
        "changePolicy": str(policy.change_policy),
        "driftPolicy": str(policy.drift_policy),
        "windows": [str(window) for window in policy.windows],
        "overrideWindows": policy.override_windows,
    }


def _policy(check: Checks, policy: dict[str, Any]) -> Policy:
    """The policy a plan was made with; a version 1 file has no controls: the defaults."""
    limit = policy.get("maxPrune")
    if limit is not None and not isinstance(limit, str):
        check.fail("policy.maxPrune", "must be a string or null")
    default = Policy()
    grace = policy.get("quarantineGrace", duration_text(default.quarantine_grace))
    overridden = policy.get("overrideWindows", False)
    prune = check.flag(policy.get("prune"), "policy.prune")
    allow_empty = check.flag(policy.get("allowEmpty"), "policy.allowEmpty")
    recreate = check.flag(policy.get("recreate"), "policy.recreate")
    prune_policy = _choice(check, policy, "prunePolicy", default.prune_policy)
    propagation = _choice(check, policy, "propagation", default.propagation)
    change_policy = _choice(check, policy, "changePolicy", default.change_policy)
    drift_policy = _choice(check, policy, "driftPolicy", default.drift_policy)
    windows = check.names(policy.get("windows", []), "policy.windows")
    override_windows = check.flag(overridden, "policy.overrideWindows")
    try:
        return Policy.of(
            prune=prune,
            allow_empty=allow_empty,
            max_prune=limit,
            recreate=recreate,
            prune_policy=prune_policy,
            prune_propagation=propagation,
            quarantine_grace=check.string(grace, "policy.quarantineGrace"),
            change_policy=change_policy,
            drift_policy=drift_policy,
            window=windows,
            override_windows=override_windows,
        )
    except UsageError as bad:
        where = "policy.maxPrune" if bad.message.startswith("--max-prune") else "policy"
        check.fail(where, bad.message)


def _choice(check: Checks, policy: dict[str, Any], key: str, default: enum.StrEnum) -> str:
    value = check.string(policy.get(key, str(default)), f"policy.{key}")
    if value not in tuple(type(default)):
        check.fail(f"policy.{key}", f"{value!r} is not one of {', '.join(type(default))}")
    return value


def _drift_json(drift: Drift) -> dict[str, Any]:
    return {
        "overrideManagers": list(drift.override_managers),
        "ignore": [str(rule) for rule in drift.ignore],
        "ignoreManagers": list(drift.ignore_managers),
    }


def _drift(check: Checks, drift: dict[str, Any]) -> Drift:
    overrides = drift.get("overrideManagers")
    managers = (
        Drift().override_managers
        if overrides is None
        else check.names(overrides, "drift.overrideManagers")
    )
    rules = []
    for n, text in enumerate(check.names(drift.get("ignore", []), "drift.ignore")):
        try:
            rules.append(IgnoreRule.parse(text))
        except ValueError as bad:
            check.fail(f"drift.ignore[{n}]", str(bad))
    ignored = check.names(drift.get("ignoreManagers", []), "drift.ignoreManagers")
    return Drift(managers, tuple(rules), ignored)


def _key(check: Checks, entry: Mapping[str, Any], where: str) -> ObjectKey:
    kind = check.text(entry, "kind", where)
    if kind not in (c.KIND, c.DEPLOYMENT_KIND):
        check.fail(f"{where}.kind", f"{kind!r} is not a kind driftctl manages")
    namespace = check.text(entry, "namespace", where)
    return ObjectKey(kind, namespace, check.text(entry, "name", where))


def _base(check: Checks, value: Any, where: str) -> Base | None:
    if value is None:
        return None
    live = check.mapping(value, where)
    return check.text(live, "uid", where), check.text(live, "resourceVersion", where)


# ---- one object: the keys every action has, then those of `_FIELDS` it has -----------------


def _object_json(action: Action, live: LiveState) -> dict[str, Any]:
    base = base_of(live, action.key)
    out: dict[str, Any] = action.key.as_json() | {
        "action": str(action.verb),
        "reason": action.reason,
        "live": None if base is None else {"uid": base[0], "resourceVersion": base[1]},
        "patch": list(patch_of(action)),
    }
    attributes = _attributes(type(action))
    for each in _FIELDS:
        if each.attribute in attributes:
            out[each.key] = each.write(getattr(action, each.attribute))
    return out


def _action(check: Checks, entry: dict[str, Any], where: str) -> Action:
    key = _key(check, entry, where)
    verb, reason = check.text(entry, "action", where), check.text(entry, "reason", where)
    patch = check.operations(entry.get("patch", []), f"{where}.patch")
    kind = Refused if verb == "skip" and entry.get("error") is not None else _TYPES.get(verb)
    if kind is None:
        check.fail(f"{where}.action", f"{verb!r} is not an action")
    attributes = _attributes(kind)
    values = {
        each.attribute: each.read(check, entry.get(each.key, each.default), f"{where}.{each.key}")
        for each in _FIELDS
        if each.attribute in attributes
    }
    if "patch" in attributes:
        values["patch"] = patch
    action: Action = kind(key=key, reason=reason, **values)
    return action


def _attributes(kind: type[Action]) -> frozenset[str]:
    return frozenset(each.name for each in dataclasses.fields(kind))


@dataclass(frozen=True)
class _Field:
    """One key of a saved object: the action attribute it holds, written and read."""

    key: str
    attribute: str
    write: Callable[[Any], Any]
    read: Callable[[Checks, Any, str], Any]  # (checks, the value or `default`, where)
    default: Any = None


def _owner_json(owner: ObjectKey | None) -> Any:
    return None if owner is None else owner.as_json()


def _owner(check: Checks, value: Any, where: str) -> ObjectKey | None:
    return None if value is None else _key(check, check.mapping(value, where), where)


def _changes_json(changes: tuple[FieldChange, ...]) -> list[dict[str, Any]]:
    return [_change_json(change) for change in changes]


def _change_json(change: FieldChange) -> dict[str, Any]:
    return {
        "path": change.path,
        "op": change.op,
        "before": change.before,
        "after": change.after,
        "managers": list(change.managers),
        "field": list(change.field),
        "note": change.note,
        "corrected": change.corrected,
    }


def _changes(check: Checks, value: Any, where: str) -> tuple[FieldChange, ...]:
    return tuple(_change(check, change, at) for change, at in check.each(value, where))


def _change(check: Checks, change: dict[str, Any], where: str) -> FieldChange:
    managers = check.items(change.get("managers", []), f"{where}.managers")
    elements = check.items(change.get("field", []), f"{where}.field")
    corrected = change.get("corrected", 0)
    if isinstance(corrected, bool) or not isinstance(corrected, int):
        check.fail(f"{where}.corrected", "must be an integer")
    return FieldChange(
        check.text(change, "path", where),
        check.text(change, "op", where),
        change.get("before"),
        change.get("after"),
        tuple(str(name) for name in managers),
        tuple(str(element) for element in elements),
        str(change.get("note", "")),
        corrected,
    )


def _revert_json(revert: FieldRevert | None) -> Any:
    if revert is None:
        return None
    return {"fields": [list(path) for path in revert.fields], "patch": list(revert.patch)}


def _revert(check: Checks, value: Any, where: str) -> FieldRevert | None:
    if value is None:
        return None
    entry = check.mapping(value, where)
    fields = tuple(
        tuple(str(element) for element in check.items(path, f"{where}.fields[{n}]"))
        for n, path in enumerate(check.items(entry.get("fields"), f"{where}.fields"))
    )
    return FieldRevert(fields, check.operations(entry.get("patch"), f"{where}.patch"))


def _kept_json(kept: tuple[Kept, ...]) -> list[dict[str, Any]]:
    return [
        {"path": k.path, "reason": k.reason, "live": k.live, "git": k.git, "held": k.held}
        for k in kept
    ]


def _kept(check: Checks, value: Any, where: str) -> tuple[Kept, ...]:
    return tuple(
        Kept(
            check.text(entry, "path", at),
            check.text(entry, "reason", at),
            entry.get("live"),
            entry.get("git"),
            _control(check, entry.get("held", ""), f"{at}.held", empty=True),
        )
        for entry, at in check.each(value, where)
    )


def _control(check: Checks, value: Any, where: str, *, empty: bool = False) -> str:
    text = check.string(value, where)
    if not (empty and text == "") and text not in tuple(Control):
        check.fail(where, f"{text!r} is not one of {', '.join(Control)}")
    return text


def _would(check: Checks, value: Any, where: str) -> Verb:
    text = check.string(value, where)
    if text not in tuple(Verb) or text == Verb.HOLD:
        check.fail(where, f"{text!r} is not an action a control holds")
    return Verb(text)


def _released_json(released: tuple[Release, ...]) -> list[dict[str, Any]]:
    return [each.key.as_json() | {"patch": list(each.patch)} for each in released]


def _released(check: Checks, value: Any, where: str) -> tuple[Release, ...]:
    return tuple(
        Release(_key(check, entry, at), check.operations(entry.get("patch"), f"{at}.patch"))
        for entry, at in check.each(value, where)
    )


def _maybe_mapping(check: Checks, value: Any, where: str) -> dict[str, Any] | None:
    return None if value is None else check.mapping(value, where)


def _owned_json(owned: tuple[OwnedDelete, ...]) -> list[dict[str, Any]]:
    return [each.key.as_json() | {"delete": each.body} for each in owned]


def _owned(check: Checks, value: Any, where: str) -> tuple[OwnedDelete, ...]:
    return tuple(_owned_delete(check, entry, at) for entry, at in check.each(value, where))


def _owned_delete(check: Checks, entry: dict[str, Any], where: str) -> OwnedDelete:
    body = check.mapping(entry.get("delete"), f"{where}.delete")
    return OwnedDelete(_key(check, entry, where), body)


def _as_is(value: Any) -> Any:
    return value


def _listed(value: Any) -> Any:
    return list(value)


# In the order they are written. Read with `default` when absent; an action's attributes not
# here are not saved: Create.unchecked (only apply makes unchecked creates, never `plan`),
# the `foreign` fields of Update and Unchanged (shown by `plan --show-foreign`, never applied)
# and Skip.undeclared (what plan's exit code says; applying a skip does nothing either way).
_FIELDS = (
    _Field("manifest", "manifest", _as_is, Checks.mapping),
    _Field("owner", "owner", _owner_json, _owner),
    _Field("changes", "changes", _changes_json, _changes, default=[]),
    _Field("removal", "revert", _revert_json, _revert),
    _Field("apply", "apply", _as_is, Checks.flag, default=True),
    _Field("kept", "kept", _kept_json, _kept, default=[]),
    _Field("delete", "delete", _as_is, _maybe_mapping),
    _Field("finalizerPatch", "finalizer_patch", _listed, Checks.operations, default=[]),
    _Field("owned", "owned", _owned_json, _owned, default=[]),
    _Field("error", "error", _as_is, Checks.string),
    _Field("would", "would", str, _would),
    _Field("control", "control", _as_is, _control),
    _Field("released", "released", _released_json, _released, default=[]),
)
NOT_SAVED = frozenset({"unchecked", "foreign", "undeclared"})
SAVED = frozenset({"key", "reason", "patch", *(each.attribute for each in _FIELDS)})

# Each verb read back as its action's type; Refused shares skip's verb and has an `error`.
_TYPES: dict[str, type[Action]] = {
    str(kind.verb): kind for kind in typing.get_args(Action) if kind is not Refused
}
