"""Fixtures shared by every test: the node's (tests/support/node_fixtures.py, for tests/node
and the tooling tests of the node), the watch processes a test starts
(tests/support/watching.py), the integration and node markers, and how the suite is shared
out among processes (tests/support/spread.py)."""

from __future__ import annotations

import pytest

from tests.support.paths import ROOT

pytest_plugins = ["tests.support.node_fixtures", "tests.support.watching", "tests.support.spread"]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """tests/integration needs the control plane, tests/node one with a node: mark them so.
    A tooling test that needs either says so with its own `pytestmark`. The node's tests go
    first, and only where tests/support/spread.py runs them beside no other node (its own
    hook, after this one)."""
    for item in items:
        if "integration" in item.path.parts:
            item.add_marker(pytest.mark.integration)
        if "node" in item.path.relative_to(ROOT).parts[:2]:
            item.add_marker(pytest.mark.node)
