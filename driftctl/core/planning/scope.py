"""Which namespaces a run may touch: the whole cluster, or only `--target-namespaces`.

With a namespace-scoped RBAC (Roles in some namespaces, no ClusterRole) driftctl reads
and writes only the namespaces it is given. A WebApp that Git declares anywhere else could
never be applied: it is refused with the rest of the desired state's problems, before
anything is written, so `plan` and `apply` refuse it alike. Pure.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from driftctl.core.source.model import WebApp
from driftctl.errors import Problem


def out_of_scope(webapps: Iterable[WebApp], namespaces: Sequence[str]) -> Iterator[Problem]:
    """A problem, at its file and line, for each WebApp outside `namespaces` (none: no limit)."""
    if not namespaces:
        return
    allowed = ", ".join(namespaces)
    for webapp in webapps:
        if webapp.namespace in namespaces:
            continue
        file, line = (webapp.origin.file, webapp.origin.line) if webapp.origin else ("", 0)
        reason = (
            f"{webapp.display}: namespace {webapp.namespace!r} is not one of "
            f"--target-namespaces ({allowed})"
        )
        yield Problem(file, line, 1, reason)
