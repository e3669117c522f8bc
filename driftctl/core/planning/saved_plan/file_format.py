"""The saved-plan file: one versioned JSON document, written and read here and in
core.planning.saved_plan.object_format (each of its objects), and nowhere else.

Pure: `saved_plan_json` returns the text of a plan, `parse_saved_plan` reads it back and
refuses anything malformed with the file, the field and the reason (SavedPlanError, exit
3). Each part of the document is written and read side by side below, so a key cannot
change on one side only. This module must not know an action's own keys: the objects are
object_format's. shell.plan_file puts the text on disk.

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
    objects      in the plan's order, one per action (core.planning.saved_plan.object_format
                 writes and reads each one)
"""

from __future__ import annotations

import enum
import json
from typing import Any

from driftctl import __version__
from driftctl.core.planning.actions import Plan
from driftctl.core.planning.live import LiveState
from driftctl.core.planning.objects import ObjectKey
from driftctl.core.planning.saved_plan.checks import Checks
from driftctl.core.planning.saved_plan.identity import CrdIdentity, PlanIdentity, SavedPlanError
from driftctl.core.planning.saved_plan.object_format import (
    object_json,
    read_action,
    read_base,
    read_key,
)
from driftctl.core.planning.saved_plan.recheck import Base, SavedPlan
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
        "objects": [object_json(action, live) for action in plan.actions],
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
    declared = tuple(
        read_key(check, *each) for each in check.each(root.get("declared"), "declared")
    )
    refusals = check.names(root.get("refusals"), "refusals")
    bases: dict[ObjectKey, Base | None] = {}
    actions = []
    for entry, where in check.each(root.get("objects"), "objects"):
        action = read_action(check, entry, where)
        actions.append(action)
        bases[action.key] = read_base(check, entry.get("live"), f"{where}.live")
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
