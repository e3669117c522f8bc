"""Saved plans: the plan a reviewer approved, applied exactly, object by object.

Pure. `driftctl plan --out FILE` records, besides every action (with all the shell needs to
carry it out), who and what it was made for and, per object, the live uid and
resourceVersion it was computed against. `driftctl apply --plan FILE`:
1. a plan made for another instance, field manager, source, commit's folder, namespace,
   CRD or shard is refused as a whole (`refusal`), before any request;
2. each object that did not move gets its saved action, exactly; one that moved is planned
   again and proceeds only with the same verb and patch (`recheck`).

The package's rooms, each importable from here:
- identity: what a plan was made for (`PlanIdentity`, `CrdIdentity`), `refusal`,
  `unsavable`, and `SavedPlanError`;
- file_format: the file, versioned, written (`saved_plan_json`) and read
  (`parse_saved_plan`) in one module; object_format: each of its objects (an action),
  written and read key by key; checks: the value checks their reading passes;
- recheck: what moved since the plan (`moved`) and what proceeds (`recheck`).
"""

from driftctl.core.planning.saved_plan.file_format import (
    FORMAT,
    MAX_BYTES,
    VERSION,
    parse_saved_plan,
    saved_plan_json,
)
from driftctl.core.planning.saved_plan.identity import (
    CrdIdentity,
    PlanIdentity,
    SavedPlanError,
    refusal,
    source_of,
    unsavable,
)
from driftctl.core.planning.saved_plan.recheck import (
    Base,
    SavedPlan,
    base_of,
    moved,
    recheck,
    stale,
)

__all__ = [
    "FORMAT",
    "MAX_BYTES",
    "VERSION",
    "Base",
    "CrdIdentity",
    "PlanIdentity",
    "SavedPlan",
    "SavedPlanError",
    "base_of",
    "moved",
    "parse_saved_plan",
    "recheck",
    "refusal",
    "saved_plan_json",
    "source_of",
    "stale",
    "unsavable",
]
