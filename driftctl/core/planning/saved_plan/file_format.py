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
    policy       the settings of driftctl.settings.Policy, a key per setting: its field in
                 camelCase, its value as the setting's kind writes it (driftctl.settings.
                 recorded): {prune, allowEmpty, maxPrune (N, P% or null), recreate,
                 changePolicy, driftPolicy, prunePolicy, propagation, quarantineGrace
                 ("1d"), windows (["deny 0 18 * * 5 for 64h ..."]), overrideWindows}; a
                 key a file lacks is read as its default (a setting added later)
    drift        the same of driftctl.settings.Drift: {overrideManagers, ignore
                 (["Kind:/pointer"]), ignoreManagers}: what counted as drift (rules in a
                 WebApp's annotation come from Git at the commit); a file from before drift
                 settings were saved has none, read as the defaults
    declared     the WebApps whose status a run writes: [{kind, namespace, name}]
    refusals     the prune guards' messages
    suspended    why the instance was suspended when the plan was made ("": it was not)
    lifted       the windows the plan goes through (--override-windows), per WebApp:
                 [{namespace, name, note}]
    objects      in the plan's order, one per action (core.planning.saved_plan.object_format
                 writes and reads each one)
"""

from __future__ import annotations

import json
from typing import Any, NoReturn, TypeVar

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
from driftctl.settings import Drift, Policy
from driftctl.settings.declare import Grouped
from driftctl.settings.recorded import from_recorded, recorded_json

G = TypeVar("G", bound=Grouped)
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
        "policy": recorded_json(policy),
        "drift": recorded_json(drift or Drift()),
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
    check.mapping(root.get("policy"), "policy")
    policy = _recorded(check, root, Policy, "policy")
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
    drift = _recorded(check, root, Drift, "drift")
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


def _recorded(check: Checks, document: dict[str, Any], group: type[G], where: str) -> G:
    """A group of recorded settings (driftctl.settings.recorded); a version 1 file has no
    controls, and a file from before drift settings were saved no drift: the defaults."""

    def fail(key: str, reason: str) -> NoReturn:
        check.fail(f"{where}.{key}" if key else where, reason)

    return from_recorded(group, check.mapping(document.get(where, {}), where), fail)
