"""The history --verify and `check` read from Git, through GitPython: the commit graph a
repository holds, more of it fetched into a URL's cache, and the raw commit and tag objects.

The graph is walked from GitPython's commit objects (each parsed from the object database,
the persistent `git cat-file --batch`), a shallow commit listed with no parents as git
lists it. The raw objects come from the same database as they are stored, byte for byte:
the signature layer in the core (core.source.signatures) splits them itself, since
GitPython's commit parser skips `mergetag`, ignores `gpgsig-sha256` and decodes loosely,
and so cannot give back the payload that was signed. Each call opens the repository the
source was read from (shell.git_repo `opened`) and closes it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

from git import Commit, Repo

from driftctl.core.source.lineage import CommitGraph
from driftctl.core.source.repo_url import is_url, parse_repo_url
from driftctl.errors import SourceError
from driftctl.settings import Source
from driftctl.shell import git_repo
from driftctl.shell.git_auth import authenticate
from driftctl.shell.git_env import git_environment
from driftctl.shell.git_source import (
    FETCH_TIMEOUT_SECONDS,
    cache_repository,
    default_cache_dir,
    has_commit,
)


def commit_graph(request: Source, environ: Mapping[str, str], *tips: str) -> CommitGraph:
    """The commits reachable from `tips` that the repository holds (a cache: as far as it was
    fetched), each with its parents, and the shallow ones; tips it lacks are left out."""
    with _repository(request, environ) as (repo, _secrets):
        present = [tip for tip in dict.fromkeys(tips) if has_commit(repo, tip)]
        shallow = _shallow(repo)
        parents: dict[str, tuple[str, ...]] = {}
        todo = list(present)
        while todo:
            sha = todo.pop()
            if sha in parents:
                continue
            try:
                above = () if sha in shallow else _parents(repo, sha)
            except ValueError:  # not in the repository: left out, as git's rev-list would
                continue
            parents[sha] = above
            todo.extend(parent for parent in above if parent not in parents)
    return CommitGraph(parents, shallow)


def _parents(repo: Repo, sha: str) -> tuple[str, ...]:
    """The parents a commit names, from GitPython's commit object."""
    return tuple(parent.hexsha for parent in Commit(repo, bytes.fromhex(sha)).parents)


def _shallow(repo: Repo) -> frozenset[str]:
    """The commits whose parents a shallow repository lacks (its `shallow` file)."""
    listing = Path(repo.common_dir) / "shallow"
    return frozenset(listing.read_text().split()) if listing.is_file() else frozenset()


def fetch_history(request: Source, environ: Mapping[str, str], *refs: str | None) -> bool:
    """Fetch the whole history of `refs` (None: the remote's HEAD) into a URL's cache; False
    when there is nothing more to fetch (a local repository, or a cache already whole)."""
    if not is_url(request.repo):
        return False
    url = parse_repo_url(request.repo)
    with _repository(request, environ) as (repo, secrets):
        if not _shallow(repo):
            return False
        wanted = [ref or "HEAD" for ref in dict.fromkeys(refs)]
        options = ["--unshallow", "--no-tags", "--quiet"]
        git_repo.refuse_unsafe(url.url, *wanted, options=options)
        git_repo.run(
            repo.git, "fetch", *options, "--end-of-options", url.url, *wanted,
            timeout=FETCH_TIMEOUT_SECONDS, what=f"fetching the history of {url.url}",
            secrets=secrets,
        )  # fmt: skip
    return True


def read_objects(
    request: Source, environ: Mapping[str, str], shas: Iterable[str]
) -> dict[str, bytes]:
    """The raw bytes of commits and tags, by SHA, from the repository's object database."""
    wanted = list(dict.fromkeys(shas))
    if not wanted:
        return {}
    found: dict[str, bytes] = {}
    with _repository(request, environ) as (repo, _secrets):
        for sha in wanted:
            try:
                found[sha] = repo.odb.stream(bytes.fromhex(sha)).read()
            except ValueError:  # `<sha> missing`, or not a SHA
                raise SourceError(f"object {sha[:12]} is not in the repository") from None
    return found


@contextlib.contextmanager
def _repository(
    request: Source, environ: Mapping[str, str]
) -> Iterator[tuple[Repo, tuple[str, ...]]]:
    """The repository a source was read from (a URL's cache, or a local repository),
    opened, with the secrets git's messages must be redacted of."""
    if is_url(request.repo):
        url = parse_repo_url(request.repo)
        env = git_environment(environ, url)
        secrets = authenticate(env, url, environ, request.auth)
        cache = cache_repository(url, request.cache_dir or default_cache_dir(environ), env)
        with git_repo.opened(cache, env) as repo:
            yield repo, secrets
        return
    local = Path(request.repo).resolve()
    with git_repo.opened(local, git_environment(environ), search=True) as repo:
        yield repo, ()
