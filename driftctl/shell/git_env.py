"""The environment git runs with, and this process's own, cleaned of inherited GIT_*.

GitPython starts every git from a copy of this process's environment (`os.environ`) and
can only add to it, and its `Repo` reads GIT_DIR, GIT_WORK_TREE, GIT_OBJECT_DIRECTORY and
GIT_COMMON_DIR from it when it opens a repository. An inherited GIT_DIR (a Git hook, a
developer's shell) would point both at another repository; GIT_INDEX_FILE, GIT_CONFIG_*
and the others would change what git reads. So the command line drops every inherited
GIT_* variable (but the SSH set-up git already uses, KEPT_GIT_ENV) from the process
environment once, when it starts, before any thread does (`drop_inherited`, from
cli.main). The Git shell calls it again before it opens a repository, for callers that
did not start from the command line (the tests, the benchmarks): in a run it finds
nothing left to drop, so no thread ever changes the environment.

Over that clean copy, each git gets `git_environment`: no terminal prompts, a stalled
transfer aborted, only the URL's own protocol, no system configuration, literal
pathspecs, plain-C messages (matched by the shell and shown as they are), and the
credentials shell.git_auth adds, scoped to the URL's host. Nothing here imports GitPython:
the command line calls `drop_inherited` before a command imports anything.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, MutableMapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from driftctl.core.source.repo_url import RepoUrl

KEPT_GIT_ENV = ("GIT_SSH", "GIT_SSH_COMMAND", "GIT_SSH_VARIANT")  # the SSH setup git already uses


def inherited(environ: Mapping[str, str]) -> list[str]:
    """The GIT_* variables of `environ` that git must not see (KEPT_GIT_ENV aside)."""
    return [key for key in environ if key.startswith("GIT_") and key not in KEPT_GIT_ENV]


def drop_inherited(environ: MutableMapping[str, str] = os.environ) -> None:
    """Remove the inherited GIT_* variables from the process environment (see above)."""
    for key in inherited(environ):
        del environ[key]


def git_environment(environ: Mapping[str, str], url: RepoUrl | None = None) -> dict[str, str]:
    """What each git runs with, over the process environment: `environ` without its GIT_*,
    no prompts, bounded transfers, the URL's protocol only, literal pathspecs."""
    dropped = set(inherited(environ))
    env = {key: value for key, value in environ.items() if key not in dropped}
    env.update(
        GIT_TERMINAL_PROMPT="0",
        GCM_INTERACTIVE="never",
        GIT_HTTP_LOW_SPEED_LIMIT="1000",  # bytes per second ...
        GIT_HTTP_LOW_SPEED_TIME="30",  # ... for this long, or the fetch is a stall
        GIT_ALLOW_PROTOCOL=url.allowed_protocols if url else "file",
        GIT_CONFIG_NOSYSTEM="1",
        GIT_LITERAL_PATHSPECS="1",  # a --path is a path, never a pattern (`*`, `:(glob)`)
        LC_ALL="C",  # git's messages are matched by the shell, and shown as they are
    )
    return env
