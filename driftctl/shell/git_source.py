"""The Git shell: reads one folder of a repository at one commit, through GitPython.

Three ways in, one value out (a core.source.tree.Snapshot):
- a local path without --ref: the working tree, as a person editing files sees it, with
  HEAD's SHA and whether the folder differs from it;
- a local path with --ref: the objects of that commit, read from the repository's object
  database (GitPython's persistent `git cat-file --batch`): its trees walked, the blobs of
  the manifests read, never a checkout;
- a URL: a shallow fetch of the one ref into a bare cache repository, reused and updated
  on the next run, then read from objects like a local ref.

Each read opens the repository (shell.git_repo `opened`) and closes it, its cat-file
processes with it. git runs with a clean environment (shell.git_env: inherited GIT_*
variables dropped, no terminal prompts, only the URL's own protocol, a stalled transfer
aborted, literal pathspecs); `git fetch` and `git ls-remote` go through GitPython's runner
after its checks of unsafe protocols and options (never allowed), in a session of their
own and stopped after FETCH_TIMEOUT_SECONDS. Credentials reach git through environment
variables scoped to the URL's host (shell.git_auth), never through the URL or git's argv,
so they are never written to the cache's config and never appear in git's messages or a
process list. The working tree is listed by `git ls-files` and `git status`, whose
answers (tracked, untracked, ignored, changed) have no GitPython object. No module of the
shell runs git through `subprocess` itself. This module decides nothing about what is
read: the core says which files to read (tree.should_read) and what is refused.
The history --verify reads (lineage, raw commits and tags) is shell.git_history.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
import stat
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import BinaryIO

from git import Commit, Repo
from git.objects.fun import traverse_tree_recursive

from driftctl.core.source.kustomize.gather import render_at
from driftctl.core.source.repo_url import RepoUrl, is_url, parse_repo_url
from driftctl.core.source.tree import (
    MAX_FILE_BYTES,
    Snapshot,
    TreeEntry,
    TreeEntryKind,
    folder_path,
    is_manifest,
    joined,
    should_read,
)
from driftctl.errors import SourceError, UsageError
from driftctl.settings import Source
from driftctl.shell import git_repo
from driftctl.shell.git_auth import authenticate
from driftctl.shell.git_env import git_environment
from driftctl.shell.git_files import CommitFiles, WorktreeFiles

FETCH_TIMEOUT_SECONDS = 600
_FULL_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_FILE_MODES = (0o100644, 0o100755)
_SYMLINK = 0o120000
_CHUNK = 1024 * 1024  # a blob over the size bound is read through and dropped, a MiB at a time
_BATCH = 1000  # object names (41 bytes each) written to cat-file at a time: under a pipe's 64 KiB


def read_snapshot(request: Source, environ: Mapping[str, str]) -> Snapshot:
    """The folder of the desired state, read the way the source settings ask."""
    path = folder_path(request.path)
    if request.ref is not None:
        _check_ref(request.ref)
    if is_url(request.repo):
        return _read_remote(parse_repo_url(request.repo), request, path, environ)
    return _read_local(Path(request.repo), request.ref, path, environ)


def head_of(request: Source, environ: Mapping[str, str]) -> str | None:
    """The commit `request`'s ref points at now, without fetching it (a URL: `git ls-remote`,
    a local path: `rev-parse`); None for a working tree, which has no commit to compare."""
    if request.ref is not None:
        _check_ref(request.ref)
    if is_url(request.repo):
        url = parse_repo_url(request.repo)
        if request.ref is not None and _FULL_SHA.fullmatch(request.ref):
            return request.ref
        env = git_environment(environ, url)
        secrets = authenticate(env, url, environ, request.auth)
        wanted = request.ref or "HEAD"
        git_repo.refuse_unsafe(url.url, wanted)
        out = git_repo.run(
            git_repo.runner(Path.cwd(), env), "ls-remote", "--end-of-options", url.url, wanted,
            timeout=FETCH_TIMEOUT_SECONDS, what=f"looking at {url.url}", secrets=secrets,
        )  # fmt: skip
        return _advertised(out.decode(), wanted)
    if request.ref is None:
        return None
    folder = Path(request.repo).resolve()
    with git_repo.opened(folder, git_environment(environ), search=True) as repo:
        return resolve(repo, request.ref, request.repo)


def _advertised(listing: str, wanted: str) -> str | None:
    """The SHA `git ls-remote URL REF` gives for REF (a branch before a tag of that name)."""
    found: dict[str, str] = {}
    for line in listing.splitlines():
        sha, _, name = line.partition("\t")
        found.setdefault(name, sha)
    for name in (wanted, f"refs/heads/{wanted}", f"refs/tags/{wanted}^{{}}", f"refs/tags/{wanted}"):
        if name in found:
            return found[name]
    return None


def default_cache_dir(environ: Mapping[str, str]) -> Path:
    """~/.cache/driftctl/repos, or under $XDG_CACHE_HOME when set."""
    base = environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "driftctl" / "repos"


def _check_ref(ref: str) -> None:
    """A --ref git could take for an option, or that is no name at all, is refused."""
    if not ref or ref.startswith("-") or any(ch.isspace() or ch == "\0" for ch in ref):
        raise UsageError(f"--ref {ref!r} is not a branch, tag or commit name")


def _read_remote(url: RepoUrl, request: Source, path: str, environ: Mapping[str, str]) -> Snapshot:
    env = git_environment(environ, url)
    secrets = authenticate(env, url, environ, request.auth)
    cache = cache_repository(url, request.cache_dir or default_cache_dir(environ), env)
    with git_repo.opened(cache, env) as repo:
        sha = _fetch(repo, url, request.ref, secrets)
        snapshot = _committed(repo, sha, path, url.url)
        tag = _tag_named(repo, "FETCH_HEAD", sha) if request.ref != sha else None
    return dataclasses.replace(snapshot, tag=tag)


def _committed(repo: Repo, sha: str, folder: str, where: str) -> Snapshot:
    """The folder at one commit: rendered when it holds a kustomization, else listed."""
    source = f"{where}#{folder}"
    rendered = render_at(CommitFiles(repo, sha, _blobs_of_any_name), folder)
    if rendered is not None:
        loaded, read = rendered
        return Snapshot(read, sha, False, source, rendered=loaded)
    entries = tuple(_tree_entries(repo, sha, folder, where))
    return Snapshot(entries, sha, False, source, single_file=_names_one(entries, folder))


def cache_repository(url: RepoUrl, cache_dir: Path, env: dict[str, str]) -> Path:
    """A bare repository for this URL (keyed by the URL without credentials), made once."""
    folder = cache_dir / hashlib.sha256(url.url.encode()).hexdigest()[:24]
    if not (folder / "HEAD").exists():
        try:
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        except OSError as error:
            raise SourceError(f"cannot create cache folder {folder}: {error.strerror}") from None
        git = git_repo.runner(folder, env)
        git_repo.run(git, "init", "--bare", "--quiet", ".", what="creating the cache")
    return folder


def _fetch(repo: Repo, url: RepoUrl, ref: str | None, secrets: tuple[str, ...]) -> str:
    """The commit SHA of `ref` (default: the remote's HEAD), fetched shallow unless cached."""
    if ref is not None and _FULL_SHA.fullmatch(ref) and has_commit(repo, ref):
        return ref  # a commit never changes: no need to ask the server again
    wanted = ref or "HEAD"
    options = ["--depth=1", "--no-tags", "--quiet"]
    git_repo.refuse_unsafe(url.url, wanted, options=options)
    status, _out, err = git_repo.attempt(
        repo.git, "fetch", *options, "--end-of-options", url.url, wanted,
        timeout=FETCH_TIMEOUT_SECONDS,
    )  # fmt: skip
    if status != 0:
        reason = git_repo.reason(err, status, secrets)
        if "couldn't find remote ref" in reason or "not our ref" in reason:
            raise SourceError(f"ref {wanted!r} not found in {url.url}")
        if "mismatched algorithms" in reason:
            raise SourceError(f"{url.url}: {reason}", hint=git_repo.SHA256_HINT)
        raise SourceError(f"cannot fetch {url.url}: {reason}")
    return resolve(repo, "FETCH_HEAD", url.url, shown=wanted)


def has_commit(repo: Repo, sha: str) -> bool:
    """Whether the repository holds the commit of this full SHA."""
    return _kind(repo, sha) == b"commit"


def _kind(repo: Repo, sha: str) -> bytes | None:
    """What the object of a full SHA is (b"commit", b"tag"...), None when it is missing."""
    try:
        return bytes(repo.odb.info(bytes.fromhex(sha)).type)
    except ValueError:  # `<sha> missing`, or not a SHA
        return None


def resolve(repo: Repo, ref: str, where: str, *, shown: str | None = None) -> str:
    """The commit `ref` names in `repo`, as git's own `rev-parse` reads a name."""
    status, out, _err = git_repo.attempt(
        repo.git, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"
    )
    if status != 0:
        raise SourceError(f"ref {shown or ref!r} not found in {where}")
    return out.decode().strip()


def _tag_named(repo: Repo, ref: str, commit: str) -> str | None:
    """The annotated tag object `ref` names (that peels to `commit`), or None."""
    status, out, _err = git_repo.attempt(
        repo.git, "rev-parse", "--verify", "--quiet", "--end-of-options", ref
    )
    named = out.decode().strip()
    if status != 0 or named == commit:
        return None
    return named if _kind(repo, named) == b"tag" else None


def _read_local(repo: Path, ref: str | None, path: str, environ: Mapping[str, str]) -> Snapshot:
    if not repo.is_dir():
        raise SourceError(f"repository {repo} does not exist (or is not a folder)")
    with git_repo.opened(repo.resolve(), git_environment(environ), search=True) as opened:
        bare = opened.bare
        top = Path(opened.git_dir if bare else str(opened.working_tree_dir))
        folder = joined("" if bare else _prefix(repo, top), path)
        if ref is None and not bare:
            return _read_worktree(opened, top, folder)
        sha = resolve(opened, ref or "HEAD", str(top))
        snapshot = _committed(opened, sha, folder, str(top))
        tag = _tag_named(opened, ref, sha) if ref is not None else None
    return dataclasses.replace(snapshot, tag=tag)


def _prefix(repo: Path, top: Path) -> str:
    """Where `repo` lies in the working tree `top` ('' at its top, or outside it)."""
    try:
        inside = repo.resolve().relative_to(top.resolve()).as_posix()
    except ValueError:  # a working tree elsewhere (core.worktree): read from its top
        return ""
    return "" if inside == "." else inside


def _names_one(entries: tuple[TreeEntry, ...], folder: str) -> bool:
    """Whether the --path of a commit's tree names a file: its one entry is the path itself."""
    return bool(folder) and any(entry.path == folder for entry in entries)


def _tree_entries(repo: Repo, sha: str, folder: str, where: str) -> Iterator[TreeEntry]:
    """Entries under `folder` in the commit's tree, with the bytes of the files asked for."""
    manifests: list[tuple[str, bytes]] = []
    for binsha, mode, entry_path in _listed(repo, sha, folder, where):
        if mode in _FILE_MODES:
            if is_manifest(entry_path):
                manifests.append((entry_path, binsha))
        elif mode == _SYMLINK:  # refused by the core, not read
            yield TreeEntry(entry_path, TreeEntryKind.SYMLINK, repo.odb.info(binsha).size)
        else:
            yield TreeEntry(entry_path, TreeEntryKind.SUBMODULE)
    yield from _blobs(repo, manifests)


def _listed(repo: Repo, sha: str, folder: str, where: str) -> list[tuple[bytes, int, str]]:
    """(object name, mode, path) of every entry under `folder`, its subtrees walked."""
    tree = Commit(repo, bytes.fromhex(sha)).tree
    if not folder:
        return traverse_tree_recursive(repo.odb, tree.binsha, "")
    try:
        found = tree / folder
    except KeyError:
        raise SourceError(f"--path {folder!r} does not exist in {where} at {sha[:12]}") from None
    if found.type == "tree":
        return traverse_tree_recursive(repo.odb, found.binsha, f"{folder}/")
    return [(found.binsha, found.mode, folder)]


def _blobs_of_any_name(repo: Repo, files: list[tuple[str, bytes]]) -> list[TreeEntry]:
    """The files a kustomization lists, whatever their names, within the size bound."""
    return _blobs(repo, files, lambda _path, size: size <= MAX_FILE_BYTES)


def _blobs(
    repo: Repo,
    manifests: list[tuple[str, bytes]],
    wanted: Callable[[str, int], bool] = should_read,
) -> list[TreeEntry]:
    """The manifests' entries, with their bytes when within the core's bound (else only
    their size), from the object database's own `git cat-file --batch`, its names written
    _BATCH at a time. Asked one by one (the database's `stream`: a round trip each), the
    10,000 files of `validate --ref` took 1.14 times the CPU that command took before
    GitPython, against 0.94 batched (docs/development/benchmarks.md). Each batch fits the
    pipe, and git has read the one before when its last answer is in, so no write ever
    waits on git."""
    if not manifests:
        return []
    process = repo.git.cat_file_all  # started by the walk: the trees were read through it
    if process is None:
        raise SourceError("the repository's object database did not start")
    found: list[TreeEntry] = []
    for start in range(0, len(manifests), _BATCH):
        batch = manifests[start : start + _BATCH]
        process.stdin.write(b"".join(b"%s\n" % binsha.hex().encode() for _p, binsha in batch))
        process.stdin.flush()
        found += [_answer(process.stdout, path, wanted) for path, _binsha in batch]
    return found


def _answer(answers: BinaryIO, entry_path: str, wanted: Callable[[str, int], bool]) -> TreeEntry:
    """One object of `git cat-file --batch`'s answers: `<sha> blob <size>`, the bytes, a
    line end; an object over the core's bound is read through and dropped as it passes."""
    header = answers.readline().split()
    if len(header) != 3:
        raise SourceError(f"cannot read {entry_path} from the repository: {b' '.join(header)!r}")
    size = int(header[2])
    if wanted(entry_path, size):
        data = answers.read(size)
        if len(data) != size or answers.read(1) != b"\n":
            raise SourceError(f"cannot read {entry_path} from the repository: cut short")
        return TreeEntry(entry_path, TreeEntryKind.FILE, size, data)
    left = size + 1  # its line end too
    while left > 0:
        passed = len(answers.read(min(left, _CHUNK)))
        left = left - passed if passed else 0
    return TreeEntry(entry_path, TreeEntryKind.FILE, size)


def _read_worktree(repo: Repo, top: Path, folder: str) -> Snapshot:
    if not (top / folder).exists():
        raise SourceError(f"--path {folder!r} does not exist in {top}")
    status, out, _err = git_repo.attempt(
        repo.git, "rev-parse", "--verify", "--quiet", "HEAD^{commit}"
    )
    sha = out.decode().strip() if status == 0 else None
    rendered = render_at(WorktreeFiles(top), folder)
    if rendered is not None:
        loaded, read = rendered
        dirty = _is_dirty(repo, *sorted({entry.path for entry in read}))
        return Snapshot(read, sha, dirty, f"{top}#{folder}", rendered=loaded)
    entries = tuple(_worktree_entries(repo, top, folder))
    single = (top / folder).is_file()
    return Snapshot(entries, sha, _is_dirty(repo, folder), f"{top}#{folder}", single_file=single)


def _spec(folder: str) -> list[str]:
    return [folder] if folder else []


def _worktree_entries(repo: Repo, top: Path, folder: str) -> Iterator[TreeEntry]:
    """Entries under `folder` in the working tree: tracked and untracked, not ignored."""
    tracked = git_repo.run(repo.git, "ls-files", "-z", "--cached", "--", *_spec(folder))
    untracked = git_repo.run(
        repo.git, "ls-files", "-z", "--others", "--exclude-standard", "--", *_spec(folder)
    )
    names = {name for name in (tracked + b"\0" + untracked).split(b"\0") if name}
    for name in sorted(names):
        entry_path = name.decode("utf-8", "surrogateescape").rstrip("/")
        entry = _worktree_entry(top, entry_path)
        if entry is not None:
            yield entry


def _worktree_entry(top: Path, entry_path: str) -> TreeEntry | None:
    try:
        info = (top / entry_path).lstat()
    except FileNotFoundError:
        return None  # tracked but deleted in the working tree: not desired any more
    if stat.S_ISLNK(info.st_mode):
        return TreeEntry(entry_path, TreeEntryKind.SYMLINK)
    if stat.S_ISDIR(info.st_mode):
        return TreeEntry(entry_path, TreeEntryKind.SUBMODULE)  # a gitlink, or a nested repository
    if not is_manifest(entry_path):
        return None
    if not should_read(entry_path, info.st_size):
        return TreeEntry(
            entry_path, TreeEntryKind.FILE, info.st_size
        )  # refused by the core, not read
    try:
        data = (top / entry_path).read_bytes()
    except OSError as error:
        raise SourceError(f"cannot read {entry_path}: {error.strerror}") from None
    return TreeEntry(entry_path, TreeEntryKind.FILE, len(data), data)


def _is_dirty(repo: Repo, *paths: str) -> bool:
    """Whether the working tree differs from HEAD at any of `paths` (the root when none)."""
    spec = [path for path in paths if path]
    status = git_repo.run(
        repo.git, "status", "--porcelain", "-z", "--untracked-files=all", "--", *spec
    )
    return bool(status.strip(b"\0"))


def where(request: Source) -> str:
    """How messages name the repository: its path, or its URL without credentials."""
    return parse_repo_url(request.repo).url if is_url(request.repo) else request.repo
