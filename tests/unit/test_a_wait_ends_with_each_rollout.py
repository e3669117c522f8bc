"""`apply --wait`: which WebApps a run waits for, how the wait ends, and what it reports.

The exit code tells "applied and rolled out" (0) from "applied, but a rollout stalled or
did not finish in time" (7) from "some objects failed" (5, whatever the rollouts did). The
end of the run says it in every form: its text, its JSON summary, its pushed metrics, and
the Warning Event of a rollout that just stalled.
"""

from __future__ import annotations

import datetime
import json

from prometheus_client import generate_latest
from prometheus_client.parser import text_string_to_metric_families

from driftctl import conventions as c
from driftctl.core.planning.actions import Refused
from driftctl.core.planning.events import Event, chain_event, stall_event
from driftctl.core.planning.objects import ObjectKey
from driftctl.core.planning.outcomes import ApplyReport, ObjectOutcome, Outcome, RolloutState
from driftctl.core.planning.status import ended, state_of
from driftctl.core.planning.waiting import finished, pending, waited_for
from driftctl.errors import ExitCode
from driftctl.render import log as log_render
from driftctl.render import plan as plan_render
from driftctl.render.metrics import RunResult, run_registry
from driftctl.render.progress import progress_line
from driftctl.settings import Shard

SHOP, BLOG, WIKI = (ObjectKey(c.KIND, "web", name) for name in ("shop", "blog", "wiki"))
NOW = datetime.datetime(2026, 12, 2, 9, 0, 0, tzinfo=datetime.UTC)
COMPLETE, PROGRESSING = RolloutState.COMPLETE, RolloutState.PROGRESSING
STALLED, TIMED_OUT = RolloutState.STALLED, RolloutState.TIMED_OUT


def deployment(key: ObjectKey) -> ObjectKey:
    return ObjectKey(c.DEPLOYMENT_KIND, key.namespace, key.name)


def applied(*rollouts: tuple[ObjectKey, RolloutState], failed: bool = False) -> ApplyReport:
    """shop's Deployment configured (or failed), blog's WebApp created, wiki unchanged."""
    outcomes = (
        ObjectOutcome(SHOP, Outcome.UNCHANGED),
        ObjectOutcome(deployment(SHOP), Outcome.FAILED if failed else Outcome.CONFIGURED),
        ObjectOutcome(BLOG, Outcome.CREATED),
        ObjectOutcome(deployment(BLOG), Outcome.CREATED),
        ObjectOutcome(WIKI, Outcome.UNCHANGED),
        ObjectOutcome(deployment(WIKI), Outcome.UNCHANGED),
    )
    return ApplyReport(outcomes, "a" * 40, rollouts=tuple(rollouts))


def test_a_run_waits_for_the_webapps_it_changed_and_none_that_failed() -> None:
    report = applied((SHOP, PROGRESSING), (BLOG, PROGRESSING), (WIKI, PROGRESSING))

    assert waited_for(report) == {SHOP, BLOG}
    assert waited_for(applied((SHOP, PROGRESSING), (BLOG, PROGRESSING), failed=True)) == {BLOG}


def test_what_is_still_progressing_when_the_time_is_gone_timed_out() -> None:
    states = {SHOP: PROGRESSING, BLOG: STALLED, WIKI: PROGRESSING}

    assert pending(states, {SHOP, BLOG}) == [SHOP]
    assert finished(states, {SHOP, BLOG}) == (
        (SHOP, TIMED_OUT),
        (BLOG, STALLED),
        (WIKI, PROGRESSING),  # not waited for: as the run saw it
    )


def test_a_completion_ends_the_wait_only_once_it_is_confirmed() -> None:
    """A container that exits at once is counted available for an instant: a completion
    not confirmed yet (core.planning.status.rollout_state) is still in progress."""
    states = {SHOP: PROGRESSING, BLOG: COMPLETE}

    assert pending(states, {SHOP, BLOG}) == [SHOP]
    assert finished(states, {SHOP, BLOG}) == ((SHOP, TIMED_OUT), (BLOG, COMPLETE))


def test_the_exit_code_tells_rolled_out_from_not_rolled_out_from_failed() -> None:
    def code(*rollouts: tuple[ObjectKey, RolloutState], failed: bool = False) -> ExitCode:
        report = applied(*rollouts, failed=failed)
        return ApplyReport(
            report.outcomes, rollouts=report.rollouts, waited=frozenset({SHOP, BLOG})
        ).exit_code

    assert code((SHOP, COMPLETE), (BLOG, COMPLETE), (WIKI, PROGRESSING)) == ExitCode.OK
    assert code((SHOP, COMPLETE), (BLOG, STALLED)) == ExitCode.NOT_ROLLED_OUT
    assert int(ExitCode.NOT_ROLLED_OUT) == 7
    assert code((SHOP, TIMED_OUT), (BLOG, COMPLETE)) == ExitCode.NOT_ROLLED_OUT
    assert code((SHOP, STALLED), failed=True) == ExitCode.PARTIAL_FAILURE
    # Without --wait, a rollout in progress is the next run's business.
    assert applied((SHOP, STALLED)).exit_code == ExitCode.OK


def test_the_end_of_the_wait_is_in_the_text_and_the_json_summary() -> None:
    report = ApplyReport(
        applied().outcomes,
        rollouts=((SHOP, COMPLETE), (BLOG, STALLED), (WIKI, PROGRESSING)),
        waited=frozenset({SHOP, BLOG}),
    )

    summary = log_render.apply_summary(report, 1.0)

    assert plan_render.rollout_summary(report) == (
        "Rollouts: 1 complete, 1 stalled, 0 timed out (of 2 waited for)"
    )
    assert summary.message.endswith(
        "; Rollouts: 1 complete, 1 stalled, 0 timed out (of 2 waited for)"
    )
    assert summary.fields["exit_code"] == 7
    assert summary.fields["rollouts"] == {
        "complete": 1,
        "progressing": 1,
        "stalled": 1,
        "timed_out": 0,
    }


def test_the_pushed_metrics_count_the_webapps_by_their_rollout() -> None:
    report = ApplyReport(
        applied().outcomes,
        rollouts=((SHOP, COMPLETE), (BLOG, TIMED_OUT), (WIKI, COMPLETE)),
        waited=frozenset({SHOP, BLOG}),
    )

    text = generate_latest(run_registry(RunResult(7, 1.0, 1.0, Shard(), report))).decode()

    got = {
        sample.labels["result"]: sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name == "driftctl_last_run_rollouts"
    }
    assert got == {"complete": 2, "progressing": 0, "stalled": 0, "timed_out": 1}


def stalled_status(reason: str = "ImagePullBackOff") -> dict[str, object]:
    condition = {"status": "True", "reason": reason, "message": f"Pod shop-1: {reason}"}
    return {
        "ready": False,
        "conditions": [
            {"type": "Ready", **condition, "status": "False"},
            {"type": "Stalled", **condition},
        ],
    }


def test_a_rollout_ends_when_the_webapp_turns_ready_or_stalled_not_while_it_stays() -> None:
    progressing = {"ready": False, "conditions": [{"type": "Reconciling", "status": "True"}]}

    assert state_of(stalled_status()) is STALLED
    assert ended(progressing, stalled_status()) is STALLED
    assert ended(stalled_status(), stalled_status("CrashLoopBackOff")) is None
    assert ended(stalled_status(), {"ready": True}) is COMPLETE
    assert ended({}, {"ready": True}) is COMPLETE  # a new WebApp's first rollout
    assert ended({"ready": True}, progressing) is None


def test_a_rollout_that_stalled_makes_the_chains_warning_unless_something_failed() -> None:
    stalled = stall_event(SHOP, "ImagePullBackOff: Pod shop-1: ImagePullBackOff")
    refused = Refused(deployment(SHOP), "the API server refused it", "422 Invalid")
    failed = ObjectOutcome(deployment(SHOP), Outcome.FAILED, "422 Invalid")

    assert stalled == Event(
        "RolloutStalled",
        "WebApp/web/shop: rollout stalled: ImagePullBackOff: Pod shop-1: ImagePullBackOff",
        warning=True,
    )
    assert chain_event([], stalled) == stalled
    event = chain_event([(refused, failed)], stalled)
    assert event is not None
    assert event.reason == "ApplyFailed"


def test_a_stalled_status_line_is_a_warning_naming_the_pod() -> None:
    record = log_render.status_record(SHOP, stalled_status())

    assert record.level == "warning"
    assert record.message == (
        "status WebApp/web/shop: stalled (0 available): Pod shop-1: ImagePullBackOff"
    )
    assert (record.fields["rollout"], record.fields["ready_reason"]) == (
        "stalled",
        "ImagePullBackOff",
    )
    line = json.loads(log_render.json_line(record, log_render.LogContext("default"), NOW))
    assert line["message"] == record.message
    assert line["ready_message"] == "Pod shop-1: ImagePullBackOff"


def test_the_terminal_line_counts_webapps_while_rolling_out() -> None:
    assert progress_line("rolling out", 1, 3, 24.4) == "rolling out: 1/3 WebApps (33%), 24 s"
