"""One Event per WebApp chain, saying all it did (or its failure); a summary beyond the cap;
and the progress line a terminal shows."""

from __future__ import annotations

import io
from collections import Counter

import pytest

from driftctl import conventions as c
from driftctl.core.planning.actions import (
    Action,
    Create,
    OwnedDelete,
    Prune,
    Unchanged,
    Update,
)
from driftctl.core.planning.changes import FieldChange
from driftctl.core.planning.events import Event, chain_event, summary_event
from driftctl.core.planning.objects import ObjectKey
from driftctl.core.planning.outcomes import ObjectOutcome, Outcome
from driftctl.render.progress import progress_line
from driftctl.shell.terminal import ERASE_LINE, TerminalProgress

APP = ObjectKey(c.KIND, "web", "shop")
DEP = ObjectKey(c.DEPLOYMENT_KIND, "web", "shop")
REPLICAS = FieldChange("spec.replicas", "replace", 4, 2, ("kubectl",))


def done(*pairs: tuple[Action, Outcome, str]) -> list[tuple[Action, ObjectOutcome]]:
    return [
        (action, ObjectOutcome(action.key, outcome, reason)) for action, outcome, reason in pairs
    ]


@pytest.mark.parametrize(
    ("chain", "event"),
    [
        pytest.param(
            done(
                (Create(APP, "", {}, ()), Outcome.CREATED, ""),
                (Create(DEP, "", {}, (), owner=APP), Outcome.CREATED, ""),
            ),
            Event(
                "Created",
                "WebApp/web/shop created by driftctl; Deployment/web/shop created by driftctl",
            ),
            id="a-webapp-created-with-its-deployment-is-one-event",
        ),
        pytest.param(
            done(
                (Unchanged(APP), Outcome.UNCHANGED, ""),
                (Update(DEP, "", {}, (), (REPLICAS,)), Outcome.CONFIGURED, ""),
            ),
            Event("Updated", "Deployment/web/shop updated by driftctl (spec.replicas)"),
            id="an-update-names-its-fields",
        ),
        pytest.param(
            done(
                (
                    Prune(APP, "not declared in Git", {}, (), (OwnedDelete(DEP, {}),)),
                    Outcome.DELETED,
                    "",
                ),
            ),
            Event(
                "Pruned",
                "WebApp/web/shop pruned by driftctl (not declared in Git), "
                "Deployment/web/shop deleted",
            ),
            id="a-prune-and-its-cleanup-are-one-event",
        ),
        pytest.param(
            done(
                (Create(APP, "", {}, ()), Outcome.CREATED, ""),
                (Create(DEP, "", {}, (), owner=APP), Outcome.FAILED, "422 Invalid: bad"),
            ),
            Event("ApplyFailed", "Deployment/web/shop: 422 Invalid: bad", warning=True),
            id="a-failure-is-the-event-of-its-chain",
        ),
        pytest.param(
            done((Unchanged(APP), Outcome.UNCHANGED, ""), (Unchanged(DEP), Outcome.UNCHANGED, "")),
            None,
            id="nothing-changed-no-event",
        ),
    ],
)
def test_a_chain_makes_at_most_one_event(
    chain: list[tuple[Action, ObjectOutcome]], event: Event | None
) -> None:
    assert chain_event(chain) == event


def test_the_summary_event_counts_what_the_cap_left_out_by_reason() -> None:
    event = summary_event(Counter({"Created": 9_890, "Updated": 10}), 100, "a" * 40)

    assert event == Event(
        "EventsLimited",
        "9900 more WebApp Events of this run (at aaaaaaaaaaaa) were not recorded, beyond "
        "--max-events 100: 9890 Created, 10 Updated",
    )


@pytest.mark.parametrize(
    ("phase", "done_", "total", "seconds", "line"),
    [
        ("applying", 3412, 20000, 2.0, "applying: 3,412/20,000 objects (17%), 1,706/s"),
        ("listing", 12000, None, 0.4, "listing: 12,000 objects, 30,000/s"),
        ("dry-run", 0, 10, 0.0, "dry-run: 0/10 objects (0%)"),
    ],
)
def test_the_progress_line_says_phase_done_of_total_and_rate(
    phase: str, done_: int, total: int | None, seconds: float, line: str
) -> None:
    assert progress_line(phase, done_, total, seconds) == line


def test_the_terminal_line_is_redrawn_at_most_once_per_interval_and_erased() -> None:
    now = [0.0]
    stream = io.StringIO()
    terminal = TerminalProgress(stream, progress_line, interval=1.0, clock=lambda: now[0])

    terminal.tick("applying", 1, 4)  # a new phase: drawn
    now[0] = 0.5
    terminal.tick("applying", 2, 4)  # too soon: not drawn
    now[0] = 1.5
    terminal.tick("applying", 3, 4)  # drawn
    now[0] = 1.6
    terminal.tick("applying", 4, 4)  # the end of a phase: always drawn
    terminal.clear()

    assert stream.getvalue().split(ERASE_LINE) == [
        "",
        "applying: 1/4 objects (25%)",
        "applying: 3/4 objects (75%), 2/s",
        "applying: 4/4 objects (100%), 2/s",
        "",
    ]
