"""Ignored fields: which fields are not drift, and how a change of them in Git still applies.

A field of an object is ignored when
- an ignore rule names it: `--ignore Kind:/json/pointer`, or the WebApp's annotation
  `driftctl.example.com/ignore` in Git (for that WebApp and its Deployment); what a rule
  may say, and the fields none may name, is driftctl.ignore_rules;
- an ignored manager owns it (`--ignore-manager NAME`);
- it is a Deployment's `spec.replicas` and a HorizontalPodAutoscaler scales that Deployment.

An ignored field is neither reported as drift nor reset. A change of it in Git is still
applied (the trap Flux's and Argo CD's ignore rules leave open): Git's value is compared
with the value Git had at the last apply, which the live WebApp holds. driftctl keeps a
WebApp equal to Git, so a field of it that driftctl still owns holds Git's value as last
applied, and the Deployment built from those fields is the Deployment as last applied.
That is also why the fields Git declares on a WebApp are never ignored: only fields Git
does not declare there can be (another tool's label or annotation).

How the manifest follows: an ignored field Git did not change is left out of the apply
when another manager owns it, so it keeps that manager's value and driftctl does not take
the field back; a field driftctl still owns is sent as it is (leaving it out would make the
server remove it). Pure.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from driftctl import conventions as c
from driftctl.core.planning import field_access
from driftctl.core.planning import fieldset as fs
from driftctl.core.planning.changes import Kept
from driftctl.core.planning.normalize import equal, normalize
from driftctl.core.planning.objects import Obj, labels_of
from driftctl.core.source.model import WebApp, WebAppSpec
from driftctl.ignore_rules import IgnoreRule
from driftctl.settings import Drift

Ignored = tuple[tuple[fs.FieldPath, str], ...]  # (field, why it is ignored)
REPLICAS: fs.FieldPath = ("f:spec", "f:replicas")


def rule_reason(rule: IgnoreRule) -> str:
    """`ignored by --ignore Deployment:/spec/replicas`, or by the WebApp's annotation."""
    if rule.origin == "--ignore":
        return f"ignored by --ignore {rule}"
    return f"ignored by {rule} in {rule.origin}"


def ignored_fields(
    live: Obj,
    manifest: Obj,
    rules: Iterable[IgnoreRule],
    drift: Drift,
    manager: str,
    *,
    autoscaler: str | None = None,
) -> Ignored:
    """The ignored fields of `live`, each with why (rules of other kinds are skipped)."""
    kind = str(manifest.get("kind", ""))
    rules = [rule for rule in rules if rule.kind == kind]
    if not rules and not drift.ignore_managers and autoscaler is None:
        return ()  # the common case, on every object of every run: nothing to walk
    found: dict[fs.FieldPath, str] = {}
    for rule in rules:
        if rule.kind == kind:
            for path in {
                fs.pointer_path(manifest, rule.pointer),
                fs.pointer_path(live, rule.pointer),
            }:
                found.setdefault(path, rule_reason(rule))
    for name in drift.ignore_managers:
        for path in _owned_by(live, name, manager):
            found.setdefault(path, f"set by {name}, ignored by --ignore-manager {name}")
    if autoscaler is not None and kind == c.DEPLOYMENT_KIND:
        found[REPLICAS] = f"scaled by {autoscaler}"
    if kind == c.KIND:  # the WebApp is Git's declaration: only what Git does not declare
        declared = fs.fieldset(manifest)
        found = {path: why for path, why in found.items() if not fs.overlaps(declared, path)}
    return tuple(sorted(found.items()))


def _owned_by(live: Obj, name: str, manager: str) -> frozenset[fs.FieldPath]:
    paths: set[fs.FieldPath] = set()
    for entry in fs.managed_entries(live):
        ours = entry.get("manager") == manager and entry.get("operation") == "Apply"
        if entry.get("manager") == name and not ours and entry.get("subresource") != "status":
            paths |= fs.tree_paths(entry.get("fieldsV1") or {})
    return frozenset(paths)


def previous_declaration(live_webapp: Obj | None, app: WebApp, manager: str) -> WebApp:
    """The WebApp as Git declared it at the last apply: the live WebApp's fields driftctl
    still owns (`app`'s own value where it owns none, i.e. unknown: taken as unchanged)."""
    if live_webapp is None:
        return app
    owned = fs.owned_fields(live_webapp, manager, c.API_VERSION)
    spec = live_webapp.get("spec") or {}
    image = str(spec["image"]) if ("f:spec", "f:image") in owned else app.spec.image
    replicas = int(spec["replicas"]) if REPLICAS in owned else app.spec.replicas
    labels = {
        key: value
        for key, value in labels_of(live_webapp).items()
        if ("f:metadata", "f:labels", f"f:{key}") in owned
    }
    return replace(app, spec=WebAppSpec(image, replicas), labels=labels)


@dataclass(frozen=True)
class Followed:
    """The manifest to send once ignored fields are followed, and what the plan says of them.

    `kept`: ignored fields that differ from Git and stay; `applied`: ignored fields Git
    changed, which are applied, with the note the plan shows for them.
    """

    manifest: Obj
    kept: tuple[Kept, ...] = ()
    applied: Ignored = ()


def follow(manifest: Obj, live: Obj, ignored: Ignored, previous: Obj, manager: str) -> Followed:
    """Leave out of `manifest` the ignored fields Git did not change and driftctl does not own."""
    if not ignored:
        return Followed(manifest)
    owned = fs.owned_fields(live, manager, str(manifest.get("apiVersion", "")))
    shown = normalize(live)
    out, kept, applied = manifest, [], []
    for path, why in ignored:
        leaves = [leaf for leaf in fs.fieldset(manifest) if _related(leaf, path)]
        if not leaves:
            continue  # Git does not declare it: core.planning.outside_git keeps it
        git = field_access.value_at(manifest, path)
        there = field_access.value_at(shown, path)
        if not _same(git, field_access.value_at(previous, path)):
            if not _same(git, there):
                applied.append((path, f"{why}; applied because Git changed it"))
            continue
        if not _same(git, there):
            kept.append(Kept(fs.display_path(path), why, there[1], git[1]))
        for leaf in leaves:
            if leaf not in owned:
                out = field_access.without(out, leaf)
    return Followed(out, tuple(kept), tuple(applied))


def _related(leaf: fs.FieldPath, path: fs.FieldPath) -> bool:
    return leaf[: len(path)] == path or path[: len(leaf)] == leaf


def _same(left: tuple[bool, object], right: tuple[bool, object]) -> bool:
    return left[0] == right[0] and equal(left[1], right[1])
