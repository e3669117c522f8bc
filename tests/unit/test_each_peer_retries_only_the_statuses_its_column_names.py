"""One table says which failures are tried again, with a column per peer: the API server
and the receivers of notifications (core.retries). Each status, each peer, retried or not;
and each peer's backoff, one value of one type."""

from __future__ import annotations

import pytest

from driftctl.core.retries import (
    API_SERVER,
    CONNECTION_FAILED,
    RECEIVERS,
    TRANSIENT,
    Peer,
    transient,
)

API, RECEIVER = Peer.API_SERVER, Peer.RECEIVER


@pytest.mark.parametrize(
    ("status", "peer", "retried"),
    [
        pytest.param(CONNECTION_FAILED, API, True, id="no-answer-api-server"),
        pytest.param(CONNECTION_FAILED, RECEIVER, True, id="no-answer-receiver"),
        pytest.param(400, API, False, id="400-api-server"),
        pytest.param(400, RECEIVER, False, id="400-receiver"),
        pytest.param(401, API, False, id="401-api-server"),
        pytest.param(401, RECEIVER, False, id="401-receiver"),
        pytest.param(403, API, False, id="403-api-server"),
        pytest.param(403, RECEIVER, False, id="403-receiver"),
        pytest.param(404, API, False, id="404-api-server"),
        pytest.param(404, RECEIVER, False, id="404-receiver"),
        pytest.param(405, API, False, id="405-api-server"),
        pytest.param(405, RECEIVER, False, id="405-receiver"),
        pytest.param(408, API, False, id="408-api-server"),
        pytest.param(408, RECEIVER, True, id="408-receiver"),
        pytest.param(409, API, False, id="409-api-server"),
        pytest.param(409, RECEIVER, False, id="409-receiver"),
        pytest.param(410, API, False, id="410-api-server"),
        pytest.param(410, RECEIVER, False, id="410-receiver"),
        pytest.param(413, API, False, id="413-api-server"),
        pytest.param(413, RECEIVER, False, id="413-receiver"),
        pytest.param(415, API, False, id="415-api-server"),
        pytest.param(415, RECEIVER, False, id="415-receiver"),
        pytest.param(422, API, False, id="422-api-server"),
        pytest.param(422, RECEIVER, False, id="422-receiver"),
        pytest.param(425, API, False, id="425-api-server"),
        pytest.param(425, RECEIVER, True, id="425-receiver"),
        pytest.param(429, API, True, id="429-api-server"),
        pytest.param(429, RECEIVER, True, id="429-receiver"),
        pytest.param(500, API, True, id="500-api-server"),
        pytest.param(500, RECEIVER, True, id="500-receiver"),
        pytest.param(501, API, False, id="501-api-server"),
        pytest.param(501, RECEIVER, False, id="501-receiver"),
        pytest.param(502, API, True, id="502-api-server"),
        pytest.param(502, RECEIVER, True, id="502-receiver"),
        pytest.param(503, API, True, id="503-api-server"),
        pytest.param(503, RECEIVER, True, id="503-receiver"),
        pytest.param(504, API, True, id="504-api-server"),
        pytest.param(504, RECEIVER, True, id="504-receiver"),
        pytest.param(505, API, False, id="505-api-server"),
        pytest.param(505, RECEIVER, False, id="505-receiver"),
    ],
)
def test_a_status_is_retried_only_where_its_peer_s_column_says(
    status: int, peer: Peer, retried: bool
) -> None:
    assert transient(peer, status) is retried


def test_the_table_names_only_failures() -> None:
    assert all(status == CONNECTION_FAILED or status >= 400 for status in TRANSIENT)


@pytest.mark.parametrize(
    ("attempt", "retry_after", "wait"),
    [
        pytest.param(0, None, 0.5, id="first"),
        pytest.param(1, None, 1.0, id="doubles"),
        pytest.param(2, None, 2.0, id="doubles-again"),
        pytest.param(3, None, 4.0, id="capped"),
        pytest.param(5000, None, 4.0, id="still-capped-after-many"),
        pytest.param(0, 2.0, 2.0, id="retry-after-honoured"),
        pytest.param(0, 30.0, 4.0, id="retry-after-bounded"),
        pytest.param(3, -1.0, 4.0, id="negative-retry-after-is-none"),
        pytest.param(3, float("nan"), 4.0, id="nan-retry-after-is-none"),
    ],
)
def test_receivers_wait_half_a_second_doubling_to_four_and_no_more(
    attempt: int, retry_after: float | None, wait: float
) -> None:
    assert RECEIVERS.delay(attempt, 0.999, retry_after) == wait  # no jitter: the same wait


def test_the_api_server_s_backoff_stays_capped_however_many_tries() -> None:
    assert API_SERVER.delay(5000, 0.0) == 5.0
    assert API_SERVER.delay(5000, 0.999999) == pytest.approx(10.0, rel=1e-5)
