"""Rendering a kustomization: what it lists is read through the shell's FileReader, inside the
repository only, then patched and transformed, components and bases first.

What is refused, before anything is read from it: a URL (a remote base), an absolute path,
a path that leaves the repository, a symlink on the way to a path (it can point anywhere),
a submodule, a file outside the listing kustomization's folder (kustomize refuses those
too), a folder without a kustomization, a cycle, and a chain deeper than MAX_CHAIN. Each is
told at the line and column of the entry that named it. Pure: the reader is the only way in.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence

from driftctl.core.source.documents import Document, Loaded, load_file
from driftctl.core.source.kustomize import patches
from driftctl.core.source.kustomize.configuration import Configuration, read_configuration
from driftctl.core.source.kustomize.fields import Kustomization, Text, Where, read_kustomization
from driftctl.core.source.kustomize.resources import Resource
from driftctl.core.source.kustomize.transform import transform
from driftctl.core.source.tree import (
    KUSTOMIZATION_NAMES,
    FileReader,
    TreeEntry,
    TreeEntryKind,
    is_hidden,
    joined,
)
from driftctl.errors import Problem

MAX_CHAIN = 20  # kustomizations deep: a real layout is three or four (base, region, env)
# Kustomizations read in one rendering: a base listed twice by each of twenty levels would
# otherwise be gathered a million times.
MAX_KUSTOMIZATIONS = 1000
_REMOTE = ("git@", "git::", "github.com/", "gitlab.com/", "bitbucket.org/", "ssh:", "oci:")
_KINDS_SHOWN = {
    TreeEntryKind.SYMLINK: "is a symlink, or lies under one: refused, it can point out of "
    "the repository; commit the files themselves",
    TreeEntryKind.SUBMODULE: "is a submodule: refused, its content is another repository's",
    TreeEntryKind.MISSING: "does not exist in the repository",
}


class Render:
    """One rendering: the reader, what it read, and every problem met."""

    def __init__(self, reader: FileReader) -> None:
        self.reader = reader
        self.problems: list[Problem] = []
        self.read: dict[str, TreeEntry] = {}
        self.texts: dict[str, bytes] = {}
        self.folders = 0  # kustomizations gathered so far

    def root(self, folder: str) -> Loaded | None:
        """The WebApps the kustomization at `folder` renders; None when it has none."""
        kustomization = self._kustomization(folder, None, ())
        if kustomization is None:
            return None if not self.problems else Loaded((), tuple(self.problems))
        if kustomization.component:
            where = kustomization.document.located(("kind",))
            self.problems.append(Problem(*where, "--path names a Component: name an overlay"))
            return Loaded((), tuple(self.problems))
        resources = self._build(kustomization, (folder,))
        return Loaded(tuple(r.rendered() for r in resources), tuple(self.problems))

    def _entries(self, paths: Sequence[str]) -> Sequence[TreeEntry]:
        found = self.reader.read(paths)
        for entry in found:
            if entry.kind is TreeEntryKind.FILE:
                self.read[entry.path] = entry
        return found

    def _kustomization(
        self, folder: str, at: Where | None, stack: tuple[str, ...]
    ) -> Kustomization | None:
        """The kustomization of `folder`, or None (a problem told when `at` named it)."""
        entries = self._entries([joined(folder, name) for name in KUSTOMIZATION_NAMES])
        refused = [e for e in entries if e.kind in (TreeEntryKind.SYMLINK, TreeEntryKind.SUBMODULE)]
        files = [entry for entry in entries if entry.kind is TreeEntryKind.FILE]
        if refused or len(files) != 1:
            self._no_kustomization(folder, at, refused, files)
            return None
        loaded = load_file(files[0].path, files[0].data, size=files[0].size, keys=True)
        self.problems.extend(loaded.problems)
        if len(loaded.documents) != 1:
            if not loaded.problems:
                self.problems.append(
                    Problem(files[0].path, 1, 1, "a kustomization is one document")
                )
            return None
        self.texts[files[0].path] = files[0].data or b""
        kustomization, problems = read_kustomization(loaded.documents[0], folder)
        self.problems.extend(problems)
        return kustomization

    def _no_kustomization(
        self, folder: str, at: Where | None, refused: list[TreeEntry], files: list[TreeEntry]
    ) -> None:
        if refused:
            entry = refused[0]
            self.problems.append(
                Problem(*(at or (entry.path, 1, 1)), f"{entry.path} {_KINDS_SHOWN[entry.kind]}")
            )
        elif len(files) > 1:
            names = ", ".join(entry.path for entry in files)
            self.problems.append(
                Problem(
                    *(at or (files[0].path, 1, 1)),
                    f"found more than one kustomization file: {names}",
                )
            )
        elif at is not None:
            reason = (
                f"{folder or '.'} has no kustomization file: "
                "kustomize reads a folder only through one"
            )
            self.problems.append(Problem(*at, reason))

    def _build(
        self,
        kustomization: Kustomization,
        stack: tuple[str, ...],
        into: list[Resource] | None = None,
    ) -> list[Resource]:
        """The resources a kustomization renders; a component's are added `into` what its
        parent gathered, and its patches and transformers run over all of them."""
        resources = [] if into is None else into
        resources.extend(self._resources(kustomization, stack))
        for text in kustomization.components:
            component = self._folder(kustomization, text, stack, want_component=True)
            if component is not None:
                self._build(component, (*stack, component.folder), into=resources)
        self._own(kustomization, resources)
        return resources

    def _own(self, kustomization: Kustomization, resources: list[Resource]) -> None:
        """The kustomization's patches, then its transformers, over `resources`."""
        configuration = self._configuration(kustomization)
        for loaded in self._patches(kustomization):
            self.problems.extend(patches.apply_patch(loaded, resources))
        self.problems.extend(transform(kustomization, resources, configuration))

    def _resources(self, kustomization: Kustomization, stack: tuple[str, ...]) -> list[Resource]:
        resources: list[Resource] = []
        paths = self._paths(kustomization, kustomization.resources, files_only=False)
        entries = self._entries([path for _text, path in paths])
        for (text, path), entry in zip(paths, entries, strict=True):
            if entry.kind is TreeEntryKind.FOLDER:
                base = self._folder(kustomization, text, stack, want_component=False, path=path)
                if base is not None:
                    resources.extend(self._build(base, (*stack, base.folder)))
            elif self._file_inside(kustomization, text, entry):
                loaded = load_file(entry.path, entry.data, size=entry.size)
                self.problems.extend(loaded.problems)
                resources.extend(Resource.of(document) for document in loaded.documents)
        return resources

    def _folder(
        self,
        parent: Kustomization,
        text: Text,
        stack: tuple[str, ...],
        *,
        want_component: bool,
        path: str | None = None,
    ) -> Kustomization | None:
        """The kustomization (or component) of a folder `text` names, its chain checked."""
        if path is None:
            path = self._component_folder(parent, text)
            if path is None:
                return None
        refused = self._bounds(path, stack)
        if refused is not None:
            self.problems.append(Problem(*text.at, f"{text.value}: {refused}"))
            return None
        found_kustomization = self._kustomization(path, text.at, stack)
        if found_kustomization is None:
            return None
        if found_kustomization.component != want_component:
            field = "components" if found_kustomization.component else "resources"
            what = "a Component" if found_kustomization.component else "a Kustomization"
            self.problems.append(
                Problem(*text.at, f"{text.value} is {what}: list it under {field}")
            )
            return None
        return found_kustomization

    def _bounds(self, path: str, stack: tuple[str, ...]) -> str | None:
        """Why the folder `path` is not read: a cycle, a chain or a count over its bound."""
        if path in stack:
            return f"a cycle of kustomizations: {' → '.join((*stack[stack.index(path) :], path))}"
        self.folders += 1
        if self.folders > MAX_KUSTOMIZATIONS:
            return f"more than {MAX_KUSTOMIZATIONS} kustomizations in one overlay"
        if len(stack) >= MAX_CHAIN:
            return f"kustomizations nested more than {MAX_CHAIN} deep at {path}"
        return None

    def _component_folder(self, parent: Kustomization, text: Text) -> str | None:
        """The folder a `components` entry names, or None (told) when it is not one."""
        found = self._paths(parent, (text,), files_only=False)
        if not found:
            return None
        entry = self._entries([found[0][1]])[0]
        if entry.kind is TreeEntryKind.FOLDER:
            return found[0][1]
        what = "is a file" if entry.kind is TreeEntryKind.FILE else _KINDS_SHOWN[entry.kind]
        reason = f"component {text.value} {what}: a component is a folder"
        self.problems.append(Problem(*text.at, reason))
        return None

    def _paths(
        self, kustomization: Kustomization, texts: Sequence[Text], *, files_only: bool
    ) -> list[tuple[Text, str]]:
        """Repository paths of the entries, each refused one told and left out."""
        found = []
        for text in texts:
            path, reason = resolve(kustomization.folder, text.value)
            if reason is None and files_only and not _below(kustomization.folder, path):
                reason = _outside_folder(kustomization.folder)
            if reason is not None:
                self.problems.append(Problem(*text.at, f"{text.value}: {reason}"))
            else:
                found.append((text, path))
        return found

    def _file_inside(self, kustomization: Kustomization, text: Text, entry: TreeEntry) -> bool:
        reason = None
        if entry.kind is not TreeEntryKind.FILE:
            reason = f"{entry.path} {_KINDS_SHOWN.get(entry.kind, 'is not a file')}"
        elif not _below(kustomization.folder, entry.path):
            reason = _outside_folder(kustomization.folder)
        if reason is not None:
            self.problems.append(Problem(*text.at, f"{text.value}: {reason}"))
        return reason is None

    def _files(
        self, kustomization: Kustomization, texts: Sequence[Text]
    ) -> list[tuple[Text, TreeEntry]]:
        paths = self._paths(kustomization, texts, files_only=True)
        entries = self._entries([path for _text, path in paths])
        return [
            (text, entry)
            for (text, _path), entry in zip(paths, entries, strict=True)
            if self._file_inside(kustomization, text, entry)
        ]

    def _configuration(self, kustomization: Kustomization) -> Configuration:
        configuration = Configuration()
        for _text, entry in self._files(kustomization, kustomization.configurations):
            loaded = load_file(entry.path, entry.data, size=entry.size, keys=True)
            self.problems.extend(loaded.problems)
            for document in loaded.documents:
                read, problems = read_configuration(document)
                self.problems.extend(problems)
                configuration = configuration.joined(read)
        return configuration

    def _patches(self, kustomization: Kustomization) -> list[patches.Loaded]:
        found = []
        listed = [patch.path for patch in kustomization.patches if patch.path]
        files = {id(text): entry for text, entry in self._files(kustomization, listed)}
        for patch in kustomization.patches:
            if patch.path is not None:
                entry = files.get(id(patch.path))
                if entry is None:
                    continue
                loaded = load_file(entry.path, entry.data, size=entry.size, lists=patches.OPS)
            else:
                assert patch.inline is not None  # fields.py keeps one of the two
                loaded = self._inline(patch.inline)
            self.problems.extend(loaded.problems)
            found.append(patches.Loaded(loaded.documents, patch.target, patch.at))
        return found

    def _inline(self, text: Text) -> Loaded:
        """An inline patch, its positions those of the kustomization file's own lines."""
        file, line, column = text.at
        lines = self.texts.get(file, b"").decode("utf-8", "replace").splitlines()
        start = lines[line - 1][column - 1 :] if line <= len(lines) else ""
        loaded = load_file(file, text.value.encode(), lists=patches.OPS)
        if start.startswith(("|", ">")):
            first = lines[line] if line < len(lines) else ""
            indent = len(first) - len(first.lstrip(" "))  # the block's, which YAML strips

            def place(mark: tuple[int, int]) -> tuple[int, int]:
                return line + mark[0], indent + mark[1]
        else:

            def place(mark: tuple[int, int]) -> tuple[int, int]:
                return line + mark[0] - 1, column + mark[1]

        documents = tuple(
            Document(
                file, *place((d.line, d.column)), d.body, {p: place(m) for p, m in d.marks.items()}
            )
            for d in loaded.documents
        )
        problems = tuple(
            Problem(file, *place((p.line, p.column)), p.reason) for p in loaded.problems
        )
        return Loaded(documents, problems)


def resolve(folder: str, entry: str) -> tuple[str, str | None]:
    """The repository path an entry names from `folder`, or why it is refused."""
    if "://" in entry or entry.startswith(_REMOTE) or "?ref=" in entry:
        return "", "remote bases are refused: a base is read from this repository, at this commit"
    if entry.startswith("/") or "\\" in entry or "\0" in entry:
        return "", "an absolute path is refused: give a path relative to the kustomization"
    path = (
        posixpath.normpath(posixpath.join(folder, entry)) if folder else posixpath.normpath(entry)
    )
    if path == ".." or path.startswith("../"):
        return "", "the path leads out of the repository: refused"
    if is_hidden(path):  # .git among them, in a working tree
        return "", "a hidden path is refused: dot-files and dot-folders are never desired state"
    return ("" if path == "." else path), None


def _below(folder: str, path: str) -> bool:
    return not folder or path.startswith(f"{folder}/")


def _outside_folder(folder: str) -> str:
    return (
        f"a file outside {folder or 'the root'} is refused (as kustomize refuses it): "
        "a kustomization lists files in its folder or below, "
        "and other folders by their kustomization"
    )


def render_at(reader: FileReader, folder: str) -> tuple[Loaded, tuple[TreeEntry, ...]] | None:
    """The documents the kustomization at `folder` renders and the files read for them, or
    None when `folder` holds no kustomization (a plain folder of manifests)."""
    render = Render(reader)
    loaded = render.root(folder)
    if loaded is None:
        return None
    return loaded, tuple(render.read.values())
