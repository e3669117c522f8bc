"""Saved plans: the plan a reviewer approved, applied exactly, object by object.

Pure. `driftctl plan --out FILE` records, besides every action (with all the shell needs to
carry it out), who and what it was made for (`PlanIdentity`: instance, field manager,
source, commit, default namespace, the WebApp CRD) and, per object, the live uid and
resourceVersion it was computed against (`Base`, None for an object that did not exist).
render.saved_plan writes that document; `parse_saved_plan` reads it back, refusing
anything malformed with the file and the reason.

`driftctl apply --plan FILE`:
1. a plan made for another instance, field manager, source, commit's folder, namespace or
   CRD is refused as a whole (`refusal`), before any request;
2. each object whose live uid and resourceVersion are the recorded ones gets its saved
   action, exactly;
3. an object whose uid or resourceVersion moved (appeared, disappeared, was written) is
   planned again; if its new action has the same verb and the same patch it proceeds
   (with the new action, whose delete preconditions name the new resourceVersion),
   otherwise it is refused with the reason (`reconcile`); a Deployment waiting for a
   refused WebApp is skipped, as in any plan (core.planning.plan.unless_owner_refused).
A create applied once makes the object exist, so applying the same plan again refuses
that create instead of creating twice.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NoReturn

from driftctl import conventions as c
from driftctl.core.planning.actions import (
    Action,
    Cleanup,
    Conflict,
    Create,
    FieldRemoval,
    OwnedDelete,
    Plan,
    Prune,
    Refused,
    Replace,
    Skip,
    Unchanged,
    Update,
    patch_of,
)
from driftctl.core.planning.changes import FieldChange, Kept
from driftctl.core.planning.live import LiveState
from driftctl.core.planning.objects import Obj, ObjectKey, metadata
from driftctl.core.planning.plan import unless_owner_refused
from driftctl.core.planning.verbs import Verb
from driftctl.core.source.crd import webapp_crd
from driftctl.errors import DriftctlError, ExitCode
from driftctl.settings import Drift, IgnoreRule, MaxPrune, Policy

FORMAT = "driftctl.example.com/saved-plan"
VERSION = 1
MAX_BYTES = 64 * 1024 * 1024  # a plan of 10,000 WebApps is a few tens of MiB

Base = tuple[str, str]  # (uid, resourceVersion) of the live object the plan was made against


class SavedPlanError(DriftctlError):
    """A saved plan that cannot be applied: malformed, or made for something else."""

    exit_code = ExitCode.INVALID_INPUT

    def __init__(self, file: str, reason: str, *, hint: str | None = None) -> None:
        super().__init__(f"{file}: {reason}", hint=hint)
        self.file = file
        self.reason = reason


@dataclass(frozen=True)
class CrdIdentity:
    """The WebApp CRD a plan was made with: name, version and a digest of its schema."""

    name: str
    version: str
    digest: str

    @classmethod
    def current(cls) -> CrdIdentity:
        """The CRD this driftctl generates from its model."""
        canonical = json.dumps(webapp_crd(), sort_keys=True, separators=(",", ":"))
        digest = "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()
        return cls(c.CRD_NAME, c.VERSION, digest)


@dataclass(frozen=True)
class PlanIdentity:
    """What a saved plan was made for; applying it anywhere else is refused."""

    instance: str
    field_manager: str
    source: str  # "<url without credentials>#<path>"
    commit: str
    namespace: str  # of WebApps that name none
    crd: CrdIdentity
    shard: str = "shard 0 of 1"  # a sharded run's plan is its shard's alone


@dataclass(frozen=True)
class SavedPlan:
    """A plan read back from its file."""

    identity: PlanIdentity
    policy: Policy
    plan: Plan
    bases: Mapping[ObjectKey, Base | None]
    drift: Drift = field(default_factory=Drift)


def base_of(live: LiveState, key: ObjectKey) -> Base | None:
    """The uid and resourceVersion of the live object `key`, or None when it is absent."""
    objects = live.webapps if key.kind == c.KIND else live.deployments
    obj = objects.get((key.namespace, key.name))
    if obj is None:
        return None
    meta = metadata(obj)
    return str(meta.get("uid", "")), str(meta.get("resourceVersion", ""))


def unsavable(label: str, commit: str | None) -> str | None:
    """Why a desired state cannot be saved in a plan: it is not one commit."""
    if commit is None or label != commit:
        return (
            f"a saved plan records one commit, and this desired state is {label}: "
            "commit the change or pass --ref"
        )
    return None


def refusal(saved: PlanIdentity, expected: PlanIdentity) -> str | None:
    """Why a plan made for `saved` must not be applied where `expected` holds, or None."""
    checks = (
        ("instance", saved.instance, expected.instance),
        ("field manager", saved.field_manager, expected.field_manager),
        ("source", saved.source, expected.source),
        ("commit", saved.commit, expected.commit),
        ("default namespace", saved.namespace, expected.namespace),
        ("CRD", _crd_text(saved.crd), _crd_text(expected.crd)),
        ("shard", saved.shard, expected.shard),
    )
    for what, planned, here in checks:
        if planned != here:
            return f"the plan was made for {what} {planned!r}, not {here!r}; nothing was applied"
    return None


def _crd_text(crd: CrdIdentity) -> str:
    return f"{crd.name}/{crd.version} ({crd.digest[:19]})"


def moved(saved: SavedPlan, live: LiveState) -> frozenset[ObjectKey]:
    """The objects of the plan whose live uid or resourceVersion is no longer the recorded one."""
    return frozenset(key for key, base in saved.bases.items() if base_of(live, key) != base)


def reconcile(saved: SavedPlan, fresh: Plan, live: LiveState) -> Plan:
    """The plan to carry out: saved actions where nothing moved, checked ones where it did."""
    changed = moved(saved, live)
    again: dict[ObjectKey, list[Action]] = {}
    for action in fresh.actions:
        again.setdefault(action.key, []).append(action)
    actions = [
        _rechecked(action, again.get(action.key, [])) if action.key in changed else action
        for action in saved.plan.actions
    ]
    refused = {a.key for a, s in zip(actions, saved.plan.actions, strict=True) if a is not s}
    refused &= {a.key for a in actions if isinstance(a, Refused)}
    return Plan(
        tuple(unless_owner_refused(action, refused) for action in actions),
        saved.plan.declared,
        saved.plan.refusals,
        saved.plan.revision,
    )


def _rechecked(action: Action, fresh: list[Action]) -> Action:
    same_type = [other for other in fresh if type(other) is type(action)]
    now = same_type[0] if same_type else (fresh[0] if fresh else None)
    if now is not None and now.verb is action.verb and _same_patch(now, action):
        return now
    if now is None:
        became = "now nothing to do"
    elif now.verb is action.verb:
        became = f"now {now.verb} with another patch"
    else:
        became = f"now {now.verb}"
    reason = (
        f"changed in the cluster since the plan was made: planned {action.verb}, {became}; "
        "make a new plan"
    )
    return Refused(action.key, reason, "the live object moved since the plan was made")


def _same_patch(one: Action, other: Action) -> bool:
    return _canonical(list(patch_of(one))) == _canonical(list(patch_of(other)))


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


# ---- reading the file -----------------------------------------------------------------------


def parse_saved_plan(text: str, file: str) -> SavedPlan:
    """The saved plan in `text` (read from `file`), or SavedPlanError naming what is wrong."""
    try:
        document = json.loads(text)
    except ValueError as error:
        raise SavedPlanError(file, f"not JSON: {error}") from None
    reader = _Reader(file)
    root = reader.mapping(document, "the document")
    if root.get("format") != FORMAT:
        reader.fail("", f"not a saved driftctl plan (format is not {FORMAT!r})")
    if root.get("version") != VERSION:
        reader.fail(
            "",
            f"version {root.get('version')!r} is not supported (this driftctl reads {VERSION})",
            hint="make the plan again with this driftctl",
        )
    return reader.saved(root)


class _Reader:
    """Checks a document's shape field by field; every failure names the file and field."""

    def __init__(self, file: str) -> None:
        self.file = file

    def fail(self, where: str, reason: str, *, hint: str | None = None) -> NoReturn:
        raise SavedPlanError(self.file, f"{where}: {reason}" if where else reason, hint=hint)

    def mapping(self, value: Any, where: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            self.fail(where, "must be an object")
        out: dict[str, Any] = value
        return out

    def items(self, value: Any, where: str) -> list[Any]:
        if not isinstance(value, list):
            self.fail(where, "must be a list")
        out: list[Any] = value
        return out

    def text(self, parent: Mapping[str, Any], key: str, where: str) -> str:
        value = parent.get(key)
        if not isinstance(value, str):
            self.fail(f"{where}.{key}" if where else key, "must be a string")
        return str(value)

    def flag(self, parent: Mapping[str, Any], key: str, where: str) -> bool:
        value = parent.get(key)
        if not isinstance(value, bool):
            self.fail(f"{where}.{key}", "must be true or false")
        return bool(value)

    def saved(self, root: dict[str, Any]) -> SavedPlan:
        identity = self.identity(root)
        policy = self.policy(self.mapping(root.get("policy"), "policy"))
        declared = tuple(
            self.key(self.mapping(item, f"declared[{n}]"), f"declared[{n}]")
            for n, item in enumerate(self.items(root.get("declared"), "declared"))
        )
        refusals = tuple(
            self.text({"r": r}, "r", f"refusals[{n}]")
            for n, r in enumerate(self.items(root.get("refusals"), "refusals"))
        )
        bases: dict[ObjectKey, Base | None] = {}
        actions = []
        for n, item in enumerate(self.items(root.get("objects"), "objects")):
            where = f"objects[{n}]"
            entry = self.mapping(item, where)
            action = self.action(entry, where)
            actions.append(action)
            bases[action.key] = self.base(entry.get("live"), f"{where}.live")
        plan = Plan(tuple(actions), declared, refusals, identity.commit)
        drift = self.drift(self.mapping(root.get("drift", {}), "drift"))
        return SavedPlan(identity, policy, plan, bases, drift)

    def drift(self, drift: dict[str, Any]) -> Drift:
        """What counted as drift; a file from before drift settings were saved has none."""
        overrides = drift.get("overrideManagers")
        managers = (
            Drift().override_managers
            if overrides is None
            else self.names(overrides, "drift.overrideManagers")
        )
        rules = []
        for n, text in enumerate(self.names(drift.get("ignore", []), "drift.ignore")):
            try:
                rules.append(IgnoreRule.parse(text))
            except ValueError as bad:
                self.fail(f"drift.ignore[{n}]", str(bad))
        ignored = self.names(drift.get("ignoreManagers", []), "drift.ignoreManagers")
        return Drift(managers, tuple(rules), ignored)

    def names(self, value: Any, where: str) -> tuple[str, ...]:
        items = self.items(value, where)
        return tuple(self.text({"n": item}, "n", f"{where}[{n}]") for n, item in enumerate(items))

    def identity(self, root: dict[str, Any]) -> PlanIdentity:
        source = self.mapping(root.get("source"), "source")
        crd = self.mapping(root.get("crd"), "crd")
        return PlanIdentity(
            instance=self.text(root, "instance", ""),
            field_manager=self.text(root, "fieldManager", ""),
            source=self.text(source, "source", "source"),
            commit=self.text(source, "commit", "source"),
            namespace=self.text(source, "namespace", "source"),
            crd=CrdIdentity(
                self.text(crd, "name", "crd"),
                self.text(crd, "version", "crd"),
                self.text(crd, "digest", "crd"),
            ),
            shard=self.text(root, "shard", ""),
        )

    def policy(self, policy: dict[str, Any]) -> Policy:
        limit = policy.get("maxPrune")
        if limit is not None and not isinstance(limit, str):
            self.fail("policy.maxPrune", "must be a string or null")
        try:
            max_prune = MaxPrune.parse(limit) if limit is not None else None
        except DriftctlError as bad:
            self.fail("policy.maxPrune", bad.message)
        return Policy(
            self.flag(policy, "prune", "policy"),
            self.flag(policy, "allowEmpty", "policy"),
            max_prune,
            self.flag(policy, "recreate", "policy"),
        )

    def key(self, entry: Mapping[str, Any], where: str) -> ObjectKey:
        kind = self.text(entry, "kind", where)
        if kind not in (c.KIND, c.DEPLOYMENT_KIND):
            self.fail(f"{where}.kind", f"{kind!r} is not a kind driftctl manages")
        namespace = self.text(entry, "namespace", where)
        return ObjectKey(kind, namespace, self.text(entry, "name", where))

    def base(self, value: Any, where: str) -> Base | None:
        if value is None:
            return None
        live = self.mapping(value, where)
        return self.text(live, "uid", where), self.text(live, "resourceVersion", where)

    def operations(self, value: Any, where: str) -> tuple[dict[str, Any], ...]:
        return tuple(
            self.mapping(op, f"{where}[{n}]") for n, op in enumerate(self.items(value, where))
        )

    def owner(self, entry: Mapping[str, Any], where: str) -> ObjectKey | None:
        value = entry.get("owner")
        return None if value is None else self.key(self.mapping(value, where), f"{where}.owner")

    def changes(self, value: Any, where: str) -> tuple[FieldChange, ...]:
        out = []
        for n, item in enumerate(self.items(value, where)):
            change = self.mapping(item, f"{where}[{n}]")
            managers = self.items(change.get("managers", []), f"{where}[{n}].managers")
            elements = self.items(change.get("field", []), f"{where}[{n}].field")
            corrected = change.get("corrected", 0)
            if isinstance(corrected, bool) or not isinstance(corrected, int):
                self.fail(f"{where}[{n}].corrected", "must be an integer")
            out.append(
                FieldChange(
                    self.text(change, "path", f"{where}[{n}]"),
                    self.text(change, "op", f"{where}[{n}]"),
                    change.get("before"),
                    change.get("after"),
                    tuple(str(name) for name in managers),
                    tuple(str(element) for element in elements),
                    str(change.get("note", "")),
                    corrected,
                )
            )
        return tuple(out)

    def kept(self, value: Any, where: str) -> tuple[Kept, ...]:
        out = []
        for n, item in enumerate(self.items(value, where)):
            entry = self.mapping(item, f"{where}[{n}]")
            path = self.text(entry, "path", f"{where}[{n}]")
            reason = self.text(entry, "reason", f"{where}[{n}]")
            out.append(Kept(path, reason, entry.get("live"), entry.get("git")))
        return tuple(out)

    def removal(self, value: Any, where: str) -> FieldRemoval | None:
        if value is None:
            return None
        entry = self.mapping(value, where)
        fields = tuple(
            tuple(str(element) for element in self.items(path, f"{where}.fields[{n}]"))
            for n, path in enumerate(self.items(entry.get("fields"), f"{where}.fields"))
        )
        return FieldRemoval(fields, self.operations(entry.get("patch"), f"{where}.patch"))

    def owned(self, value: Any, where: str) -> tuple[OwnedDelete, ...]:
        out = []
        for n, item in enumerate(self.items(value, where)):
            entry = self.mapping(item, f"{where}[{n}]")
            body = self.mapping(entry.get("delete"), f"{where}[{n}].delete")
            out.append(OwnedDelete(self.key(entry, f"{where}[{n}]"), body))
        return tuple(out)

    def action(self, entry: dict[str, Any], where: str) -> Action:  # noqa: PLR0911
        key = self.key(entry, where)
        verb, reason = self.text(entry, "action", where), self.text(entry, "reason", where)
        patch = self.operations(entry.get("patch", []), f"{where}.patch")

        def manifest() -> Obj:
            return self.mapping(entry.get("manifest"), f"{where}.manifest")

        def body(name: str) -> Obj:
            return self.mapping(entry.get(name), f"{where}.{name}")

        changes = self.changes(entry.get("changes", []), f"{where}.changes")
        kept = self.kept(entry.get("kept", []), f"{where}.kept")
        if verb == Verb.CREATE:
            return Create(key, reason, manifest(), patch, self.owner(entry, where))
        if verb == Verb.UPDATE:
            outside_git = self.removal(entry.get("removal"), f"{where}.removal")
            apply = entry.get("apply", True)
            if not isinstance(apply, bool):
                self.fail(f"{where}.apply", "must be true or false")
            owner = self.owner(entry, where)
            return Update(key, reason, manifest(), patch, changes, owner, outside_git, apply, kept)
        if verb == Verb.UNCHANGED:
            return Unchanged(key, reason, kept)
        if verb == Verb.CONFLICT:
            return Conflict(key, reason)
        if verb == Verb.REPLACE:
            return Replace(key, reason, manifest(), patch, changes, body("delete"))
        removal = self.operations(entry.get("finalizerPatch", []), f"{where}.finalizerPatch")
        owned = self.owned(entry.get("owned", []), f"{where}.owned")
        if verb == Verb.PRUNE:
            return Prune(key, reason, body("delete"), removal, owned)
        if verb == Verb.CLEANUP:
            return Cleanup(key, reason, removal, owned)
        if verb == Verb.SKIP:
            error = entry.get("error")
            if error is not None:
                return Refused(key, reason, self.text(entry, "error", where))
            return Skip(key, reason, changes)
        raise SavedPlanError(self.file, f"{where}.action: {verb!r} is not an action")
