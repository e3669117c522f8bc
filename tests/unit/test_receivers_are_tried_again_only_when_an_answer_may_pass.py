"""A notification is sent again only when the receiver's answer may pass (no answer, 408,
425, 429, 5xx but 501), after 0.5 s doubling to 4 s, or the receiver's Retry-After bounded
by 4 s, within --notify-timeout (shell.notify_http).

Sent to a real receiver on loopback that answers from a script, with an injected clock
and sleep: no waiting, and no mock of the sender.
"""

from __future__ import annotations

import pytest

from driftctl.core.notify.outbox import Post
from driftctl.shell.notify_http import Failed, Sent, send
from tests.support.clock import FakeTime
from tests.support.receivers import answering, nobody_listening


def sent(url: str, time: FakeTime, timeout: float = 60.0) -> Sent | Failed:
    post = Post(url, b"{}", "the webhook")
    return send(post, timeout, sleep=time.sleep, monotonic=time.clock)


@pytest.mark.parametrize("status", [408, 425, 429, 500, 502, 503, 504])
def test_an_answer_that_may_pass_is_tried_again(status: int) -> None:
    time = FakeTime()
    with answering([status]) as (url, answered):
        outcome = sent(url, time)

    assert (answered, time.sleeps) == ([status, 200], [0.5])
    assert isinstance(outcome, Sent)


@pytest.mark.parametrize("status", [400, 401, 403, 404, 405, 409, 410, 413, 422, 501])
def test_a_refusal_is_sent_once(status: int) -> None:
    time = FakeTime()
    with answering([status]) as (url, answered):
        outcome = sent(url, time)

    assert (answered, time.sleeps) == ([status], [])
    assert isinstance(outcome, Failed)
    assert outcome.reason.startswith(f"the webhook answered {status} ")


def test_the_waits_double_from_half_a_second_up_to_four() -> None:
    time = FakeTime()
    with answering([503] * 6) as (url, answered):
        outcome = sent(url, time)

    assert time.sleeps == [0.5, 1.0, 2.0, 4.0, 4.0, 4.0]
    assert (len(answered), outcome) == (7, Sent(200, {}))


@pytest.mark.parametrize(
    ("retry_after", "wait"),
    [
        pytest.param("2", 2.0, id="honoured"),
        pytest.param("0", 0.0, id="at-once"),
        pytest.param("1.5", 1.5, id="fraction"),
        pytest.param("30", 4.0, id="bounded-by-four-seconds"),
        pytest.param("-3", 0.5, id="negative-is-none"),
        pytest.param("soon", 0.5, id="not-a-number-is-none"),
        pytest.param("Wed, 21 Oct 2026 07:28:00 GMT", 0.5, id="http-date-is-none"),
    ],
)
def test_a_retry_after_replaces_the_wait_bounded_by_four_seconds(
    retry_after: str, wait: float
) -> None:
    time = FakeTime()
    with answering([429], {"Retry-After": retry_after}) as (url, _):
        sent(url, time)

    assert time.sleeps == [wait]


def test_a_receiver_that_is_down_is_tried_again_until_the_time_is_spent() -> None:
    time = FakeTime()
    outcome = sent(nobody_listening(), time, timeout=5.0)

    # 0.5 + 1 + 2 = 3.5 s; the next wait, 4 s, would end past 5 s
    assert time.sleeps == [0.5, 1.0, 2.0]
    assert isinstance(outcome, Failed)
    assert outcome.reason.startswith("the webhook is unreachable: ")
    assert outcome.reason.endswith("; gave up after 5s")


def test_the_tries_end_when_the_next_wait_would_pass_the_timeout() -> None:
    time = FakeTime()
    with answering([503] * 10) as (url, answered):
        outcome = sent(url, time, timeout=3.0)

    assert time.sleeps == [0.5, 1.0]
    assert answered == [503, 503, 503]
    assert outcome == Failed("the webhook answered 503 Service Unavailable; gave up after 3s")
