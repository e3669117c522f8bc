"""On a terminal, apply asks before it prunes or replaces; --yes, a pipe or a Pod never ask.

The terminal is a real pseudo-terminal (stdin, stdout and stderr on it, as in a person's
shell): the test reads what driftctl drew until the question, then types the answer.
"""

from __future__ import annotations

from tests.support.harness import Harness
from tests.support.terminal import answered as on_a_terminal

QUESTION = "Apply, with 1 to prune? [y/N]: "


def answered(harness: Harness, answer: str | None, *args: str) -> tuple[int, str]:
    """`driftctl apply ARGS` on a terminal, typing `answer` once the question is on it
    (None: never typing): (exit code, everything the terminal showed)."""
    return on_a_terminal(harness.argv("apply", *args), QUESTION, answer)


def one_to_prune(harness: Harness) -> Harness:
    harness.declare({"shop": ("nginx:1.27", 1), "blog": ("nginx:1.27", 1)})
    assert harness.driftctl("apply").code == 0
    harness.declare({"shop": ("nginx:1.27", 1)}, "drop blog")
    return harness


def test_answered_no_it_writes_nothing_and_exits_1(harness: Harness) -> None:
    one_to_prune(harness)
    versions = harness.versions()

    code, screen = answered(harness, "n")

    assert code == 1, screen
    assert f"- WebApp/{harness.namespace}/blog: prune (not declared in Git)" in screen
    assert QUESTION in screen
    assert "error: nothing was applied: the answer was no" in screen
    assert harness.versions() == versions


def test_answered_yes_it_prunes(harness: Harness) -> None:
    one_to_prune(harness)

    code, screen = answered(harness, "y")

    assert code == 0, screen
    assert f"deleted WebApp/{harness.namespace}/blog" in screen
    assert harness.names("webapps") == ["shop"]


def test_yes_never_asks_even_on_a_terminal(harness: Harness) -> None:
    one_to_prune(harness)

    code, screen = answered(harness, None, "--yes")

    assert code == 0, screen
    assert "[y/N]" not in screen
    assert harness.names("webapps") == ["shop"]


def test_nothing_is_asked_in_a_pipe(harness: Harness) -> None:
    one_to_prune(harness)

    ran = harness.driftctl("apply")

    assert ran.code == 0, ran.err
    assert "[y/N]" not in ran.out + ran.err
    assert harness.names("webapps") == ["shop"]


def test_nothing_is_asked_in_a_pod(harness: Harness) -> None:
    one_to_prune(harness)
    in_a_pod = {"KUBERNETES_SERVICE_HOST": "127.0.0.1"}
    code, screen = on_a_terminal(harness.argv("apply"), QUESTION, None, extra_env=in_a_pod)

    assert code == 0, screen
    assert "[y/N]" not in screen
    assert harness.names("webapps") == ["shop"]
