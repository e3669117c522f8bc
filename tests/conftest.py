"""Fixtures shared by every test: the repository root and the integration and node markers."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """tests/integration needs the control plane, tests/node one with a node: mark them so."""
    for item in items:
        if "integration" in item.path.parts:
            item.add_marker(pytest.mark.integration)
        if "node" in item.path.relative_to(ROOT).parts[:2]:
            item.add_marker(pytest.mark.node)
