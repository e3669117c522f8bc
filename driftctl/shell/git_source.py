"""The only module that runs git: reads one folder of a repository at one commit.

Three ways in, one value out (a core.source.tree.Snapshot):
- a local path without --ref: the working tree, as a person editing files sees it, with
  HEAD's SHA and whether the folder differs from it;
- a local path with --ref: the Git objects of that commit (`ls-tree` + `cat-file --batch`),
  never a checkout;
- a URL: a shallow fetch of the one ref into a bare cache repository, reused and updated
  on the next run, then read from objects like a local ref.

git runs with a clean environment: inherited GIT_* variables dropped (GIT_DIR would point
it at another repository), no terminal prompts, only the URL's own protocol allowed, a
stalled transfer aborted. Credentials reach git through environment variables scoped to
the URL's host (shell.git_auth), never through the URL or git's argv, so they are never
written to the cache's config and never appear in git's messages or a process list. This
module decides nothing about what is read: the core says which files to read
(tree.should_read) and what is refused.
"""

from __future__ import annotations

import hashlib
import re
import stat
import subprocess
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

from driftctl.core.source.lineage import CommitGraph
from driftctl.core.source.repo_url import RepoUrl, is_url, parse_repo_url, redact_text
from driftctl.core.source.tree import (
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
from driftctl.shell.git_auth import authenticate

KEPT_GIT_ENV = ("GIT_SSH", "GIT_SSH_COMMAND", "GIT_SSH_VARIANT")  # the SSH setup git already uses
FETCH_TIMEOUT_SECONDS = 600
# What git adds after every failed remote: it would push the reason (ssh's own line, such
# as "Host key verification failed.") out of the three lines a message keeps.
_GIT_ADVICE = ("Please make sure you have the correct access rights", "and the repository exists.")
_FULL_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_MODES = {
    "100644": TreeEntryKind.FILE,
    "100755": TreeEntryKind.FILE,
    "120000": TreeEntryKind.SYMLINK,
}


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
        out = _Git(Path.cwd(), env, secrets).run(
            "ls-remote", "--end-of-options", url.url, wanted,
            timeout=FETCH_TIMEOUT_SECONDS, what=f"looking at {url.url}",
        )  # fmt: skip
        return _advertised(out.decode(), wanted)
    if request.ref is None:
        return None
    git = _Git(Path(request.repo).resolve(), git_environment(environ))
    return _resolve(git, request.ref, request.repo)


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
    if not ref or ref.startswith("-") or any(ch.isspace() or ch == "\0" for ch in ref):
        raise UsageError(f"--ref {ref!r} is not a branch, tag or commit name")


class _Git:
    """Runs git in one directory with a clean environment; failures become SourceError."""

    def __init__(self, cwd: Path, env: dict[str, str], secrets: tuple[str, ...] = ()) -> None:
        self.cwd = cwd
        self.env = env
        self.secrets = secrets

    def run(
        self,
        *args: str,
        input: bytes | None = None,
        timeout: float | None = None,
        what: str = "git",
    ) -> bytes:
        done = self.attempt(*args, input=input, timeout=timeout, what=what)
        if done.returncode != 0:
            raise SourceError(f"{what} failed: {self._stderr(done)}")
        return done.stdout

    def attempt(
        self,
        *args: str,
        input: bytes | None = None,
        timeout: float | None = None,
        what: str = "git",
    ) -> subprocess.CompletedProcess[bytes]:
        command = ["git", "--literal-pathspecs", *args]
        try:
            return subprocess.run(
                command,
                cwd=self.cwd,
                env=self.env,
                input=input,
                capture_output=True,
                timeout=timeout,
                check=False,
                # No stdin and no controlling terminal: nothing (ssh, a credential helper)
                # can stop to ask a question nobody is there to answer.
                stdin=None if input is not None else subprocess.DEVNULL,
                start_new_session=True,
            )
        except FileNotFoundError:
            raise SourceError("git is not installed (or not on PATH)") from None
        except subprocess.TimeoutExpired:
            raise SourceError(f"{what} took longer than {timeout:.0f} s and was stopped") from None

    def _stderr(self, done: subprocess.CompletedProcess[bytes]) -> str:
        text = done.stderr.decode("utf-8", "replace").strip()
        lines = [
            line.removeprefix("fatal: ")
            for line in text.splitlines()
            if line.strip() and line not in _GIT_ADVICE
        ]
        return redact_text("; ".join(lines[-3:]) or f"exit status {done.returncode}", self.secrets)


def git_environment(environ: Mapping[str, str], url: RepoUrl | None = None) -> dict[str, str]:
    """The environment git runs with: inherited GIT_* dropped, no prompts, bounded transfers."""
    env = {
        key: value
        for key, value in environ.items()
        if not key.startswith("GIT_") or key in KEPT_GIT_ENV
    }
    env.update(
        GIT_TERMINAL_PROMPT="0",
        GCM_INTERACTIVE="never",
        GIT_HTTP_LOW_SPEED_LIMIT="1000",  # bytes per second ...
        GIT_HTTP_LOW_SPEED_TIME="30",  # ... for this long, or the fetch is a stall
        GIT_ALLOW_PROTOCOL=url.allowed_protocols if url else "file",
        GIT_CONFIG_NOSYSTEM="1",
        LC_ALL="C",  # git's messages are matched below, and shown as they are
    )
    return env


def _read_remote(url: RepoUrl, request: Source, path: str, environ: Mapping[str, str]) -> Snapshot:
    env = git_environment(environ, url)
    secrets = authenticate(env, url, environ, request.auth)
    cache = _cache_repository(url, request.cache_dir or default_cache_dir(environ), env)
    git = _Git(cache, env, secrets)
    sha = _fetch(git, url, request.ref)
    entries = tuple(_tree_entries(git, sha, path, url.url))
    tag = _tag_named(git, "FETCH_HEAD", sha) if request.ref != sha else None
    return Snapshot(entries, sha, dirty=False, source=f"{url.url}#{path}", tag=tag)


def _cache_repository(url: RepoUrl, cache_dir: Path, env: dict[str, str]) -> Path:
    """A bare repository for this URL (keyed by the URL without credentials), made once."""
    folder = cache_dir / hashlib.sha256(url.url.encode()).hexdigest()[:24]
    if not (folder / "HEAD").exists():
        try:
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        except OSError as error:
            raise SourceError(f"cannot create cache folder {folder}: {error.strerror}") from None
        _Git(folder, env).run("init", "--bare", "--quiet", ".", what="creating the cache")
    return folder


def _fetch(git: _Git, url: RepoUrl, ref: str | None) -> str:
    """The commit SHA of `ref` (default: the remote's HEAD), fetched shallow unless cached."""
    if ref is not None and _FULL_SHA.fullmatch(ref) and _has_commit(git, ref):
        return ref  # a commit never changes: no need to ask the server again
    wanted = ref or "HEAD"
    done = git.attempt(
        "fetch", "--depth=1", "--no-tags", "--quiet", "--end-of-options", url.url, wanted,
        timeout=FETCH_TIMEOUT_SECONDS, what=f"fetching {url.url}",
    )  # fmt: skip
    if done.returncode != 0:
        reason = git._stderr(done)
        if "couldn't find remote ref" in reason or "not our ref" in reason:
            raise SourceError(f"ref {wanted!r} not found in {url.url}")
        raise SourceError(f"cannot fetch {url.url}: {reason}")
    return _resolve(git, "FETCH_HEAD", url.url, shown=wanted)


def _has_commit(git: _Git, sha: str) -> bool:
    return git.attempt("cat-file", "-e", f"{sha}^{{commit}}").returncode == 0


def _resolve(git: _Git, ref: str, where: str, *, shown: str | None = None) -> str:
    done = git.attempt("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    if done.returncode != 0:
        raise SourceError(f"ref {shown or ref!r} not found in {where}")
    return done.stdout.decode().strip()


def _tag_named(git: _Git, ref: str, commit: str) -> str | None:
    """The annotated tag object `ref` names (that peels to `commit`), or None."""
    done = git.attempt("rev-parse", "--verify", "--quiet", "--end-of-options", ref)
    named = done.stdout.decode().strip()
    if done.returncode != 0 or named == commit:
        return None
    kind = git.attempt("cat-file", "-t", named)
    return named if kind.returncode == 0 and kind.stdout.strip() == b"tag" else None


def _read_local(repo: Path, ref: str | None, path: str, environ: Mapping[str, str]) -> Snapshot:
    if not repo.is_dir():
        raise SourceError(f"repository {repo} does not exist (or is not a folder)")
    git = _Git(repo.resolve(), git_environment(environ))
    top, prefix, bare = _locate(git, repo)
    git = _Git(top, git.env)
    folder = joined(prefix, path)
    if ref is not None or bare:
        sha = _resolve(git, ref or "HEAD", str(top))
        entries = tuple(_tree_entries(git, sha, folder, str(top)))
        tag = _tag_named(git, ref, sha) if ref is not None else None
        return Snapshot(entries, sha, dirty=False, source=f"{top}#{folder}", tag=tag)
    return _read_worktree(git, top, folder)


def _read_worktree(git: _Git, top: Path, folder: str) -> Snapshot:
    if not (top / folder).exists():
        raise SourceError(f"--path {folder!r} does not exist in {top}")
    head = git.attempt("rev-parse", "--verify", "--quiet", "HEAD^{commit}")
    sha = head.stdout.decode().strip() if head.returncode == 0 else None
    entries = tuple(_worktree_entries(git, top, folder))
    return Snapshot(entries, sha, _is_dirty(git, folder), source=f"{top}#{folder}")


def _locate(git: _Git, repo: Path) -> tuple[Path, str, bool]:
    """The repository's top folder, the prefix of `repo` inside it, and whether it is bare."""
    done = git.attempt("rev-parse", "--is-bare-repository", "--show-prefix")
    if done.returncode != 0:
        raise SourceError(
            f"{repo} is not a Git repository",
            hint="driftctl reads a Git repository; pass --repo with its path or URL",
        )
    bare, _newline, prefix = done.stdout.decode().partition("\n")
    if bare == "true":
        return git.cwd, "", True
    top = git.run("rev-parse", "--show-toplevel").decode().strip()
    return Path(top), prefix.strip().rstrip("/"), False


def _tree_entries(git: _Git, sha: str, folder: str, where: str) -> Iterator[TreeEntry]:
    """Entries under `folder` in the commit's tree, with the bytes of the files asked for."""
    listing = git.run("ls-tree", "-r", "-z", "-l", "--full-tree", sha, "--", *_spec(folder))
    records = [record for record in listing.split(b"\0") if record]
    if not records and folder and not _exists_in(git, sha, folder):
        raise SourceError(f"--path {folder!r} does not exist in {where} at {sha[:12]}")
    wanted: list[tuple[str, int, str]] = []
    for record in records:
        info, _tab, raw_path = record.partition(b"\t")
        mode, _type, object_id, size = info.decode().split()
        entry_path = raw_path.decode("utf-8", "surrogateescape")
        kind = _MODES.get(mode, TreeEntryKind.SUBMODULE)
        size_bytes = int(size) if size.isdigit() else 0
        if kind is TreeEntryKind.FILE and should_read(entry_path, size_bytes):
            wanted.append((entry_path, size_bytes, object_id))
        elif kind is not TreeEntryKind.FILE or is_manifest(entry_path):
            yield TreeEntry(entry_path, kind, size_bytes)  # refused by the core, not read
    yield from _read_blobs(git, wanted)


def _spec(folder: str) -> list[str]:
    return [folder] if folder else []


def _exists_in(git: _Git, sha: str, folder: str) -> bool:
    return git.attempt("cat-file", "-e", f"{sha}:{folder}").returncode == 0


def _read_blobs(git: _Git, wanted: list[tuple[str, int, str]]) -> Iterator[TreeEntry]:
    """The bytes of many blobs from one `git cat-file --batch`, in the order asked."""
    if not wanted:
        return
    batch = "".join(f"{object_id}\n" for _path, _size, object_id in wanted).encode()
    output = git.run("cat-file", "--batch", input=batch)
    offset = 0
    for entry_path, size, _object_id in wanted:
        header_end = output.index(b"\n", offset)
        length = int(output[offset:header_end].split()[2])
        start = header_end + 1
        yield TreeEntry(entry_path, TreeEntryKind.FILE, size, output[start : start + length])
        offset = start + length + 1  # the blob is followed by a newline


def _worktree_entries(git: _Git, top: Path, folder: str) -> Iterator[TreeEntry]:
    """Entries under `folder` in the working tree: tracked and untracked, not ignored."""
    tracked = git.run("ls-files", "-z", "--cached", "--", *_spec(folder))
    untracked = git.run("ls-files", "-z", "--others", "--exclude-standard", "--", *_spec(folder))
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


def _is_dirty(git: _Git, folder: str) -> bool:
    status = git.run("status", "--porcelain", "-z", "--untracked-files=all", "--", *_spec(folder))
    return bool(status.strip(b"\0"))


# -- history, for --verify ------------------------------------------------------------------


def commit_graph(request: Source, environ: Mapping[str, str], *tips: str) -> CommitGraph:
    """The commits reachable from `tips` that the repository holds (a cache: as far as it was
    fetched), each with its parents, and the shallow ones; tips it lacks are left out."""
    git = _repository(request, environ)
    present = [tip for tip in dict.fromkeys(tips) if _has_commit(git, tip)]
    if not present:
        return CommitGraph({})
    listing = git.run("rev-list", "--parents", *present, "--", what="listing the history")
    parents = {}
    for line in listing.decode().splitlines():
        commit, *above = line.split()
        parents[commit] = tuple(above)
    shallow_file = git.run("rev-parse", "--git-path", "shallow").decode().strip()
    shallow_path = (
        Path(shallow_file) if Path(shallow_file).is_absolute() else git.cwd / shallow_file
    )
    shallow = frozenset(shallow_path.read_text().split()) if shallow_path.is_file() else frozenset()
    return CommitGraph(parents, shallow)


def fetch_history(request: Source, environ: Mapping[str, str], *refs: str | None) -> bool:
    """Fetch the whole history of `refs` (None: the remote's HEAD) into a URL's cache; False
    when there is nothing more to fetch (a local repository, or a cache already whole)."""
    if not is_url(request.repo):
        return False
    url = parse_repo_url(request.repo)
    git = _repository(request, environ)
    if git.attempt("rev-parse", "--is-shallow-repository").stdout.strip() != b"true":
        return False
    wanted = [ref or "HEAD" for ref in dict.fromkeys(refs)]
    git.run(
        "fetch", "--unshallow", "--no-tags", "--quiet", "--end-of-options", url.url, *wanted,
        timeout=FETCH_TIMEOUT_SECONDS, what=f"fetching the history of {url.url}",
    )  # fmt: skip
    return True


def read_objects(
    request: Source, environ: Mapping[str, str], shas: Iterable[str]
) -> dict[str, bytes]:
    """The raw bytes of commits and tags (`git cat-file`), by SHA, from one process."""
    wanted = list(dict.fromkeys(shas))
    if not wanted:
        return {}
    git = _repository(request, environ)
    output = git.run("cat-file", "--batch", input="".join(f"{sha}\n" for sha in wanted).encode())
    found: dict[str, bytes] = {}
    offset = 0
    for sha in wanted:
        header_end = output.index(b"\n", offset)
        header = output[offset:header_end].split()
        if header[-1] == b"missing":
            raise SourceError(f"object {sha[:12]} is not in the repository")
        length = int(header[2])
        start = header_end + 1
        found[sha] = output[start : start + length]
        offset = start + length + 1
    return found


def where(request: Source) -> str:
    """How messages name the repository: its path, or its URL without credentials."""
    return parse_repo_url(request.repo).url if is_url(request.repo) else request.repo


def _repository(request: Source, environ: Mapping[str, str]) -> _Git:
    """git in the repository a source was read from: a URL's cache, or a local repository."""
    if is_url(request.repo):
        url = parse_repo_url(request.repo)
        env = git_environment(environ, url)
        secrets = authenticate(env, url, environ, request.auth)
        cache = _cache_repository(url, request.cache_dir or default_cache_dir(environ), env)
        return _Git(cache, env, secrets)
    return _Git(Path(request.repo).resolve(), git_environment(environ))
