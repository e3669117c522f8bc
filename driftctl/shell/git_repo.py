"""GitPython, opened and closed: a repository for the time of one read, and git's commands.

- `opened`: a GitPython `Repo` for a local repository or a URL's cache, with git's
  environment (shell.git_env) set on its command runner; its object database is a
  persistent `git cat-file --batch` (and `--batch-check`), started on first use. It is
  closed on the way out, which stops those processes and closes their pipes: GitPython's
  README warns that a `Repo` left open keeps them, and `watch` opens one per Git poll for
  days (tests/integration/test_watch_polls_git_without_leaking.py counts them).
  A repository with SHA-256 object names is refused by name: GitPython's object database
  (gitdb) takes 20-byte names.
- `run` / `attempt`: one git command through GitPython's runner (`Git.execute`), with
  stdin empty and in a session of its own (no controlling terminal: nothing, ssh or a
  credential helper, can stop to ask a question nobody is there to answer), stopped after
  its timeout; failures become SourceError with git's own last lines, redacted of the
  run's secrets.
- `refuse_unsafe`: GitPython's own checks of what reaches `git fetch` and `git ls-remote`
  (transport helpers such as ext::, --upload-pack and the like), never allowed.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator, Sequence
from pathlib import Path

from git import Git, Repo
from git.exc import (
    GitCommandNotFound,
    InvalidGitRepositoryError,
    NoSuchPathError,
    UnsafeOptionError,
    UnsafeProtocolError,
)
from git.remote import Remote

from driftctl.core.source.repo_url import redact_text
from driftctl.errors import SourceError
from driftctl.shell.git_env import drop_inherited

# What git adds after every failed remote: it would push the reason (ssh's own line, such
# as "Host key verification failed.") out of the three lines a message keeps.
_GIT_ADVICE = ("Please make sure you have the correct access rights", "and the repository exists.")
SHA256_HINT = (
    "driftctl reads repositories with SHA-1 object names (git's default); a SHA-256 "
    "repository cannot be read yet"
)


@contextlib.contextmanager
def opened(path: Path, env: dict[str, str], *, search: bool = False) -> Iterator[Repo]:
    """The repository at `path` (`search`: or the one it lies in), closed afterwards."""
    drop_inherited()
    try:
        repo = Repo(path, search_parent_directories=search, expand_vars=False)
    except NoSuchPathError:
        raise SourceError(f"repository {path} does not exist (or is not a folder)") from None
    except InvalidGitRepositoryError:
        raise SourceError(
            f"{path} is not a Git repository",
            hint="driftctl reads a Git repository; pass --repo with its path or URL",
        ) from None
    try:
        repo.git.update_environment(**env)
        _refuse_sha256(repo, path)
        yield repo
    finally:
        repo.close()


def _refuse_sha256(repo: Repo, path: Path) -> None:
    with repo.config_reader("repository") as config:
        names = str(config.get_value("extensions", "objectformat", "sha1")).lower()
    if names != "sha1":
        raise SourceError(f"{path} uses {names.upper()} object names", hint=SHA256_HINT)


def runner(cwd: Path, env: dict[str, str]) -> Git:
    """GitPython's runner for a command outside any repository (`git ls-remote`, `init`)."""
    drop_inherited()
    git = Git(str(cwd))
    git.update_environment(**env)
    return git


def attempt(git: Git, *args: str, timeout: float | None = None) -> tuple[int, bytes, str]:
    """git ARGS: its exit status, its output and its messages."""
    command = [git.GIT_PYTHON_GIT_EXECUTABLE, *args]
    try:
        status, out, err = git.execute(
            command,
            with_extended_output=True,
            with_exceptions=False,
            stdout_as_string=False,
            strip_newline_in_stdout=False,
            kill_after_timeout=timeout,
            start_new_session=True,
        )
    except GitCommandNotFound:
        raise SourceError("git is not installed (or not on PATH)") from None
    if timeout is not None and status == -signal.SIGKILL:
        raise SourceError(f"git {args[0]} took longer than {timeout:.0f} s and was stopped")
    return status, out, err


def run(
    git: Git,
    *args: str,
    what: str = "git",
    timeout: float | None = None,
    secrets: Sequence[str] = (),
) -> bytes:
    """git ARGS' output; SourceError saying `what` failed, and why, when it fails."""
    status, out, err = attempt(git, *args, timeout=timeout)
    if status != 0:
        raise SourceError(f"{what} failed: {reason(err, status, secrets)}")
    return out


def reason(stderr: str, status: int, secrets: Sequence[str] = ()) -> str:
    """git's last three lines of a failure, without its advice and its `fatal: `."""
    lines = [
        line.removeprefix("fatal: ")
        for line in stderr.strip().splitlines()
        if line.strip() and line not in _GIT_ADVICE
    ]
    return redact_text("; ".join(lines[-3:]) or f"exit status {status}", tuple(secrets))


def refuse_unsafe(url: str, *refs: str, options: Sequence[str] = ()) -> None:
    """GitPython's refusals of a transport helper URL (ext::, fd::) and of the options that
    run commands (--upload-pack...), for what driftctl hands `git fetch` and `ls-remote`."""
    try:
        for text in (url, *refs):
            Git.check_unsafe_protocols(text)
        unsafe = [*Remote.unsafe_git_fetch_options, *Git.unsafe_git_ls_remote_options]
        Git.check_unsafe_options(options=list(options), unsafe_options=unsafe)
    except (UnsafeProtocolError, UnsafeOptionError) as refused:
        raise SourceError(f"refused by GitPython: {refused}") from None
