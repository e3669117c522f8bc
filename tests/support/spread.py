"""How the suite is shared out when it runs in several processes (`make test`: pytest-xdist,
`-n 2`): a pytest plugin of the root conftest.

Most integration and node tests wait (on the API server, a rollout, a timer), not on a core,
so two processes on two cores take about half the time. Each process starts its own control
plane for the integration tests. What runs where is decided by module, as they come:

- a test module runs whole in one process: its module fixtures (a control plane of its
  own, a fleet) are set up once;
- every module of the node runs in one process, one after another: a machine runs one node
  at a time (tests/controlplane/leftovers.py). It goes first, being the longest.

The process that hands out the modules knows the tests only by their ids, not their marks,
so a module of the node is known by its path or its `pytestmark`; a `node` mark anywhere
else stops the collection (`check_node_marks`).
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

import pytest
from xdist.scheduler import LoadScopeScheduling

from tests.support.paths import ROOT

NODE_GROUP = "the node"
_MODULE_MARK = re.compile(r"^pytestmark = .*\bpytest\.mark\.node\b", re.MULTILINE)


@functools.cache
def runs_on_the_node(module: str) -> bool:
    """Whether a test module (its path from the root) needs the node: it is in tests/node,
    or marks itself `node`."""
    path = Path(module)
    if path.parts[:2] == ("tests", "node"):
        return True
    return path.suffix == ".py" and bool(_MODULE_MARK.search((ROOT / path).read_text()))


def module_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def group_of(nodeid: str) -> str:
    """Where a test runs: with the node's other tests, or with its module's."""
    module = module_of(nodeid)
    return NODE_GROUP if runs_on_the_node(module) else module


class ByModuleNodeTogether(LoadScopeScheduling):  # type: ignore[misc]  # xdist is untyped
    """xdist's hand-out by scope, with `group_of` for the scope of a test."""

    def _split_scope(self, nodeid: str) -> str:
        return group_of(nodeid)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> ByModuleNodeTogether:
    return ByModuleNodeTogether(config, log)


@pytest.hookimpl(trylast=True)  # after the root conftest has marked the node's tests
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    check_node_marks(items)
    node_first(items)


def check_node_marks(items: list[pytest.Item]) -> None:
    """A test marked `node` in a module `runs_on_the_node` does not know of would run beside
    another node: refuse the collection, naming it."""
    for item in items:
        if item.get_closest_marker("node") and not runs_on_the_node(module_of(item.nodeid)):
            raise pytest.UsageError(
                f"{item.nodeid}: a test of the node is marked by its module (`pytestmark = "
                "pytest.mark.node`) or lives in tests/node, so that it runs beside no other node"
            )


def node_first(items: list[pytest.Item]) -> None:
    """The node's tests first (stable otherwise): they are the longest group."""
    items.sort(key=lambda item: group_of(item.nodeid) != NODE_GROUP)
