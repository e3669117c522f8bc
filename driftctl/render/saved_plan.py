"""Moved: the saved-plan file is written and read in core.planning.saved_plan.file_format.

Only re-exports `saved_plan_json` for pipeline.saved_plan, which imports it from here; once
it imports `from driftctl.core.planning.saved_plan import saved_plan_json`, delete this
module.
"""

from driftctl.core.planning.saved_plan import saved_plan_json

__all__ = ["saved_plan_json"]
