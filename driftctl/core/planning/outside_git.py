"""Fields set outside Git: which of them are drift, and the guarded patch that reverts them.

Drift is every difference from Git, so a field Git does not declare is drift when a person
set it: when an *override manager* (the kubectl family by default, `--override-manager`)
owns it in `managedFields`. Fields of other managers (controllers, webhooks, ignored
managers) are theirs and left alone. The annotations a person sets with kubectl to ask
driftctl for something (a suspension, a prune approval, the prune opt-out) are requests,
not drift: never reverted. Pure.

Why a JSON Patch and not server-side apply (checked on kube-apiserver v1.37.2):
- an apply never removes a field another manager owns, not even one sent as `null`, and an
  apply that carries `metadata.managedFields` is refused (400, "must be nil"); so taking
  the fields over first (Flux's technique) needs a write that a dry-run cannot chain;
- a JSON Patch that removes fields drops them from every manager's set and deletes the
  entries it leaves empty, and its dry-run answers exactly what it will do, defaults that
  come back included. So `plan` dry-runs the very patch `apply` sends.

The patch's first op `test`s the resourceVersion the plan was made from, so its list
indexes cannot point at anything else: if the object changed, the server refuses (422)
and the next run plans again.

One field a person sets is never drift, whoever sets it: the Pod template's
`kubectl.kubernetes.io/restartedAt` annotation, which `kubectl rollout restart` writes (as
`kubectl-rollout`; dashboards and Argo CD's restart action write it too). It asks for a
restart and says nothing about what should run; removing it would start a second rollout,
back to the template before the restart (docs/concepts/drift.md, "What counts as drift").
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from driftctl import conventions as c
from driftctl.core.planning import field_access
from driftctl.core.planning import fieldset as fs
from driftctl.core.planning.actions import FieldRevert
from driftctl.core.planning.changes import Foreign, Kept, Operation
from driftctl.core.planning.ignoring import Ignored
from driftctl.core.planning.normalize import normalize
from driftctl.core.planning.objects import Obj, metadata
from driftctl.settings import Drift

RESTARTED_AT = "kubectl.kubernetes.io/restartedAt"  # kubectl's, not driftctl's
RESPECTED: frozenset[fs.FieldPath] = frozenset(
    {("f:spec", "f:template", "f:metadata", "f:annotations", f"f:{RESTARTED_AT}")}
)


@dataclass(frozen=True)
class Reverted:
    """A field set outside Git that apply reverts (removes), and the managers that set it."""

    path: fs.FieldPath
    managers: tuple[str, ...]


@dataclass(frozen=True)
class OutsideGit:
    """What an object holds that Git does not declare: to revert, kept (ignored), theirs."""

    reverted: tuple[Reverted, ...] = ()
    kept: tuple[Kept, ...] = ()
    foreign: tuple[Foreign, ...] = ()


def _main_entries(live: Obj) -> list[Obj]:
    # Status and scale entries are left out: status is not drift, and the scale
    # subresource only owns spec.replicas, which driftctl always declares.
    return [entry for entry in fs.managed_entries(live) if not entry.get("subresource")]


def _is_override(entry: Obj, drift: Drift, manager: str) -> bool:
    name = entry.get("manager")
    ours = name == manager and entry.get("operation") == "Apply"
    return name in drift.override_managers and name not in drift.ignore_managers and not ours


def _nodes(entry: Obj) -> frozenset[fs.FieldPath]:
    return fs.owned_nodes(entry.get("fieldsV1") or {})


def outside_git(
    live: Obj, applied: Obj, drift: Drift, manager: str, ignored: Ignored = ()
) -> OutsideGit:
    """The fields of `live` outside what `applied` (the manifest sent) declares.

    A node an override manager owns is removed when nothing at or under it is declared or
    owned by another manager, and no field above it is; only the top-most such node is
    named (the whole `env` list, not each variable). One an ignore rule covers is kept.
    """
    entries = _main_entries(live)
    overrides = [e for e in entries if _is_override(e, drift, manager)]
    if not overrides and not drift.show_foreign:
        return OutsideGit()  # the common case: no person touched the object
    others = [e for e in entries if not _is_override(e, drift, manager) and not _ours(e, manager)]
    declared = fs.fieldset(applied)
    keep = _Owned.of(others).plus(declared)
    reverted, kept = [], []
    for node in _top_free(live, _Owned.of(overrides).nodes - RESPECTED, keep):
        why = _ignored_by(ignored, node)
        if why is None:
            reverted.append(Reverted(node, _managers(overrides, node)))
        else:
            kept.append(Kept(fs.display_path(node), why, _value(live, node)))
    foreign: tuple[Foreign, ...] = ()
    if drift.show_foreign:
        blocked = _Owned.of(overrides).plus(declared)
        foreign = tuple(
            Foreign(fs.display_path(node), _managers(others, node), _value(live, node))
            for node in _top_free(live, _Owned.of(others).nodes, blocked)
        )
    return OutsideGit(tuple(reverted), tuple(kept), foreign)


@dataclass(frozen=True)
class _Owned:
    """Fields owned: every node (leaves and the inner nodes an entry made), and the leaves."""

    nodes: frozenset[fs.FieldPath]
    leaves: frozenset[fs.FieldPath]

    @classmethod
    def of(cls, entries: Iterable[Obj]) -> _Owned:
        trees = [entry.get("fieldsV1") or {} for entry in entries]
        return cls(
            frozenset().union(*(fs.owned_nodes(tree) for tree in trees)),
            frozenset().union(*(fs.tree_paths(tree) for tree in trees)),
        )

    def plus(self, leaves: frozenset[fs.FieldPath]) -> _Owned:
        return _Owned(self.nodes | leaves, self.leaves | leaves)

    def blocks(self, node: fs.FieldPath) -> bool:
        """Whether `node` holds a field owned here, or is inside one (an atomic field).

        An inner node another entry made does not block: making a map is not owning its keys.
        """
        below = any(path[: len(node)] == node for path in self.nodes)
        return below or any(node[:n] in self.leaves for n in range(1, len(node)))


# Labels and annotations are named key by key, never as a whole map.
_KEYED_MAPS = frozenset({"f:labels", "f:annotations"})

# What a person sets on a live object to ask driftctl for something, with kubectl annotate:
# never drift, never reverted, and never shown as another's field either.
LIVE_CONTROLS = frozenset(
    ("f:metadata", "f:annotations", f"f:{key}")
    for key in (c.SUSPEND_ANNOTATION, c.APPROVE_PRUNE_ANNOTATION, c.PRUNE_ANNOTATION)
)


def _top_free(live: Obj, nodes: frozenset[fs.FieldPath], blocking: _Owned) -> list[fs.FieldPath]:
    """The top-most of `nodes` present in `live` that `blocking` does not block."""
    free = {
        node
        for node in nodes
        if node[-1] not in _KEYED_MAPS
        and node not in LIVE_CONTROLS
        and not blocking.blocks(node)
        and field_access.locate(live, node)
    }
    return sorted(node for node in free if not any(node[:n] in free for n in range(1, len(node))))


def _ours(entry: Obj, manager: str) -> bool:
    return entry.get("manager") == manager and entry.get("operation") == "Apply"


def _ignored_by(ignored: Ignored, node: fs.FieldPath) -> str | None:
    for path, why in ignored:
        if node[: len(path)] == path or path[: len(node)] == node:
            return why
    return None


def _managers(entries: Iterable[Obj], node: fs.FieldPath) -> tuple[str, ...]:
    """The managers among `entries` owning `node` or a field under it."""
    return tuple(
        sorted(
            {
                str(entry.get("manager"))
                for entry in entries
                if any(path[: len(node)] == node for path in _nodes(entry))
            }
        )
    )


def _value(live: Obj, node: fs.FieldPath) -> object:
    return field_access.value_at(normalize(live), node)[1]


def field_revert(live: Obj, outside: OutsideGit) -> FieldRevert | None:
    """The revert an action carries for what `outside` found to revert (None: nothing)."""
    if not outside.reverted:
        return None
    paths = tuple(each.path for each in outside.reverted)
    return FieldRevert(paths, revert_patch(live, outside.reverted))


def revert_patch(live: Obj, reverted: Iterable[Reverted]) -> tuple[Operation, ...]:
    """The JSON Patch that removes `reverted` from `live`, guarded by its resourceVersion.

    Removals run from the last list index to the first, so no index moves under a later op.
    """
    steps = [field_access.locate(live, each.path) for each in reverted]
    ordered = sorted((s for s in steps if s is not None), key=_order, reverse=True)
    if not ordered:
        return ()
    version = str(metadata(live).get("resourceVersion", ""))
    guard: Operation = {"op": "test", "path": "/metadata/resourceVersion", "value": version}
    return (guard, *({"op": "remove", "path": field_access.json_pointer(s)} for s in ordered))


def _order(steps: tuple[str | int, ...]) -> tuple[tuple[int, int, str], ...]:
    return tuple((1, step, "") if isinstance(step, int) else (0, 0, step) for step in steps)


def with_reverts(after: Obj, revert_answer: Obj, reverted: Iterable[fs.FieldPath]) -> Obj:
    """`after` (the apply's answer) with each reverted field as the revert's answer has it:
    gone, or back as the server's default. The two touch different fields."""
    out = after
    for path in reverted:
        present, value = field_access.value_at(revert_answer, path)
        out = field_access.with_value(out, path, present, value)
    return out
