"""driftctl declares what it imports and imports what it declares: every third-party module
a file of driftctl/ imports belongs to a distribution pyproject.toml names, and every
distribution it names is imported somewhere (a dependency nothing uses is dropped)."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib

from tests.support.paths import ROOT


def declared() -> set[str]:
    """The distributions of [project] dependencies, normalized (PEP 503)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = {re.split(r"[<>=!~;\[ ]", spec, maxsplit=1)[0] for spec in project["dependencies"]}
    return {normalized(name) for name in names}


def normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def imported() -> dict[str, set[str]]:
    """Each third-party top-level module driftctl imports, with the files importing it."""
    found: dict[str, set[str]] = {}
    for path in sorted((ROOT / "driftctl").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for name in names:
                top = name.split(".")[0]
                if top != "driftctl" and top not in sys.stdlib_module_names:
                    found.setdefault(top, set()).add(str(path.relative_to(ROOT)))
    return found


def test_every_import_is_declared_and_every_declared_dependency_imported() -> None:
    owners = importlib.metadata.packages_distributions()
    by_distribution: dict[str, set[str]] = {}
    for module in imported():
        for distribution in owners.get(module, [module]):
            by_distribution.setdefault(normalized(distribution), set()).add(module)

    assert set(by_distribution) - declared() == set(), "imported, not declared"
    assert declared() - set(by_distribution) == set(), "declared, never imported"
