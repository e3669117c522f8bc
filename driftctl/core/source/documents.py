"""YAML bytes to documents that remember where each value was written.

Only plain data gets through: a safe loader (libyaml's parser when present), no anchors or
aliases (an alias bomb of a few hundred bytes expands to gigabytes once anything walks it),
no duplicate keys (YAML loaders silently keep the last), no merge keys (they need anchors),
no custom tags, UTF-8 only, a bounded size and nesting depth. Every refusal is a Problem
with file:line:column and a one-line reason. Pure: takes bytes, returns values.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

import yaml
from yaml import events

from driftctl.core.source.schema import Path, describe
from driftctl.core.source.tree import (
    KUSTOMIZATION_NAMES,
    MAX_FILE_BYTES,
    TreeEntry,
    TreeEntryKind,
    is_hidden,
    is_manifest,
)
from driftctl.errors import Problem

_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml is ~8x faster

MAX_DEPTH = 64  # a WebApp nests four levels; deep nesting only serves to exhaust the stack
_YAML = "tag:yaml.org,2002:"
_SCALAR_TAGS = {f"{_YAML}{name}" for name in ("str", "int", "float", "bool", "null", "timestamp")}
_MERGE_TAG = f"{_YAML}merge"


@dataclass(frozen=True)
class Document:
    """One YAML document that is a mapping, with the line and column of every value in it."""

    file: str
    line: int
    column: int
    body: Mapping[Any, Any]
    marks: Mapping[Path, tuple[int, int]]
    # Values an overlay wrote (a patch, a transformer): the file, line and column they came
    # from, which win over `marks` (where the base wrote the value they replaced).
    origins: Mapping[Path, tuple[str, int, int]] = field(default_factory=dict)
    # Where each key was written, by the path of its value: kept only when asked for
    # (load_file's `keys`), for files whose fields are refused by name (a kustomization).
    keys: Mapping[Path, tuple[int, int]] = field(default_factory=dict)

    def position(self, path: Path) -> tuple[int, int]:
        """Line and column of the value at `path`, or of its nearest written ancestor."""
        return self.located(path)[1:]

    def located(self, path: Path) -> tuple[str, int, int]:
        """File, line and column of the value at `path`, or of its nearest written ancestor."""
        for end in range(len(path), 0, -1):
            origin = self.origins.get(path[:end]) if self.origins else None
            if origin is not None:
                return origin
            mark = self.marks.get(path[:end])
            if mark is not None:
                return (self.file, *mark)
        return (self.file, self.line, self.column)

    def problem(self, path: Path, reason: str) -> Problem:
        """A problem located at the value at `path`."""
        return Problem(*self.located(path), reason)

    def key_problem(self, path: Path, reason: str) -> Problem:
        """A problem located at the key of the value at `path` (at the value without one)."""
        mark = self.keys.get(path)
        return Problem(self.file, *mark, reason) if mark else self.problem(path, reason)


@dataclass(frozen=True)
class Loaded:
    """Documents of one or more files, and every refusal met while reading them."""

    documents: tuple[Document, ...]
    problems: tuple[Problem, ...]


class _Refusal(Exception):
    """Stops one document at its first unsafe construct."""

    def __init__(self, mark: Any, reason: str) -> None:
        super().__init__(reason)
        self.line = mark.line + 1
        self.column = mark.column + 1
        self.reason = reason


def load_documents(entries: Iterable[TreeEntry]) -> Loaded:
    """Documents of every manifest among `entries`; symlinks and submodules are refused."""
    documents: list[Document] = []
    problems: list[Problem] = []
    for entry in sorted(entries, key=lambda e: e.path):
        if is_hidden(entry.path):
            continue
        if entry.kind is not TreeEntryKind.FILE:
            problems.append(Problem(entry.path, 1, 1, _refused_kind(entry.kind)))
        elif PurePosixPath(entry.path).name in KUSTOMIZATION_NAMES:
            problems.append(Problem(entry.path, 1, 1, _kustomization_below(entry.path)))
        elif is_manifest(entry.path):
            loaded = load_file(entry.path, entry.data, size=entry.size)
            documents.extend(loaded.documents)
            problems.extend(loaded.problems)
    return Loaded(tuple(documents), tuple(problems))


def _kustomization_below(path: str) -> str:
    folder = str(PurePosixPath(path).parent)
    return (
        "a kustomization below --path is refused: two overlays of one base would declare "
        f"every WebApp twice; give --path {folder} to render it"
    )


def _refused_kind(kind: TreeEntryKind) -> str:
    if kind is TreeEntryKind.SYMLINK:
        return "symlinks are refused: they can point outside the folder; commit the file itself"
    return "submodules are refused: their content is another repository's; use --path or --repo"


def load_file(
    file: str,
    data: bytes | None,
    *,
    size: int | None = None,
    lists: str | None = None,
    keys: bool = False,
) -> Loaded:
    """Every non-empty document of one file, or the problems that refuse it. With `lists`,
    a document that is a list (a JSON patch) is kept too, as the mapping {lists: the list};
    with `keys`, the documents keep where each key was written."""
    size = len(data) if size is None and data is not None else (size or 0)
    if data is None or size > MAX_FILE_BYTES:
        reason = f"file is {size} bytes, over the limit of {MAX_FILE_BYTES} bytes"
        return Loaded((), (Problem(file, 1, 1, reason),))
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as bad:
        return Loaded((), (_not_utf8(file, data, bad.start),))
    return _Composer(file, text, lists, keys).documents()


def _implicit_tag(value: str, implicit: tuple[bool, bool]) -> str:
    """The tag YAML's resolver gives a scalar written without one, found once per value: the
    same keys and words recur in every WebApp."""
    tag = _IMPLICIT_TAGS.get((value, implicit))
    if tag is None:
        if len(_IMPLICIT_TAGS) >= _MAX_IMPLICIT_TAGS:  # many names and images: start over
            _IMPLICIT_TAGS.clear()
        tag = _IMPLICIT_TAGS[value, implicit] = _RESOLVER.resolve(yaml.ScalarNode, value, implicit)
    return tag


_RESOLVER: Any = yaml.resolver.Resolver()  # the safe loaders' own (untyped, as _Loader)
_IMPLICIT_TAGS: dict[tuple[str, tuple[bool, bool]], str] = {}
_MAX_IMPLICIT_TAGS = 10_000


def _refused_tag(tag: str) -> str:
    shown = tag.replace(_YAML, "!!", 1) if tag.startswith(_YAML) else tag
    return f"tag {shown} is refused: only plain data (strings, numbers, booleans, null)"


def _not_utf8(file: str, data: bytes, offset: int) -> Problem:
    line = data.count(b"\n", 0, offset) + 1
    column = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
    return Problem(file, line, column, f"not UTF-8: byte 0x{data[offset]:02x} cannot be decoded")


class _Composer:
    """Builds plain values from parser events, refusing what plain data does not need.

    Events rather than PyYAML's composer: they show anchors, aliases and every key's place,
    which a composed node graph has already hidden (an alias is just a shared node there).
    """

    def __init__(self, file: str, text: str, lists: str | None = None, keys: bool = False) -> None:
        self.file = file
        self.text = text
        self.lists = lists
        self.keys: dict[Path, tuple[int, int]] | None = {} if keys else None
        self.loader = _Loader(text)

    def documents(self) -> Loaded:
        documents: list[Document] = []
        problems: list[Problem] = []
        try:
            self._expect(events.StreamStartEvent)
            while not self.loader.check_event(events.StreamEndEvent):
                self._one_document(documents, problems)
        except yaml.MarkedYAMLError as invalid:
            problems.append(self._invalid(invalid))
        except yaml.reader.ReaderError as unreadable:
            problems.append(self._unreadable(unreadable))
        finally:
            self.loader.dispose()
        return Loaded(tuple(documents), tuple(problems))

    def _one_document(self, documents: list[Document], problems: list[Problem]) -> None:
        self._expect(events.DocumentStartEvent)
        marks: dict[Path, tuple[int, int]] = {}
        try:
            root_event = self.loader.peek_event()
            body = self._value((), marks, depth=0)
        except _Refusal as refused:
            problems.append(Problem(self.file, refused.line, refused.column, refused.reason))
            self._skip_to_document_end()
        else:
            line, column = root_event.start_mark.line + 1, root_event.start_mark.column + 1
            if isinstance(body, list) and self.lists is not None:
                marks = {(self.lists, *path): mark for path, mark in marks.items()}
                body = {self.lists: body}
            if isinstance(body, dict):
                keys = self.keys or {}
                documents.append(Document(self.file, line, column, body, marks, keys=keys))
                self.keys = None if self.keys is None else {}
            elif body is not None:  # `---` alone, or only comments: an empty document
                reason = f"a document must be a mapping (a Kubernetes object), got {describe(body)}"
                problems.append(Problem(self.file, line, column, reason))
        self._expect(events.DocumentEndEvent)

    def _value(self, path: Path, marks: dict[Path, tuple[int, int]], depth: int) -> Any:
        event = self.loader.get_event()
        if isinstance(event, events.AliasEvent):
            reason = f"aliases are refused (*{event.anchor}): write the value out"
            raise _Refusal(event.start_mark, reason)
        if event.anchor is not None:
            reason = f"anchors are refused (&{event.anchor}): write the value out"
            raise _Refusal(event.start_mark, reason)
        if depth > MAX_DEPTH:
            raise _Refusal(event.start_mark, f"nested deeper than {MAX_DEPTH} levels")
        marks[path] = (event.start_mark.line + 1, event.start_mark.column + 1)
        if isinstance(event, events.ScalarEvent):
            return self._scalar(event)
        if isinstance(event, events.SequenceStartEvent):
            return self._sequence(event, path, marks, depth)
        return self._mapping(event, path, marks, depth)

    def _scalar(self, event: Any) -> Any:
        tag = event.tag
        if tag is None or tag == "!":
            tag = _implicit_tag(event.value, event.implicit)
        if tag == f"{_YAML}str":
            return event.value
        if tag not in _SCALAR_TAGS:
            raise _Refusal(event.start_mark, _refused_tag(tag))
        node = yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark, event.style)
        return self.loader.yaml_constructors[tag](self.loader, node)

    def _sequence(
        self, event: Any, path: Path, marks: dict[Path, tuple[int, int]], depth: int
    ) -> list[Any]:
        self._plain_tag(event, f"{_YAML}seq")
        items: list[Any] = []
        while not self.loader.check_event(events.SequenceEndEvent):
            items.append(self._value((*path, len(items)), marks, depth + 1))
        self.loader.get_event()
        return items

    def _mapping(
        self, event: Any, path: Path, marks: dict[Path, tuple[int, int]], depth: int
    ) -> dict[Any, Any]:
        self._plain_tag(event, f"{_YAML}map")
        mapping: dict[Any, Any] = {}
        key_lines: dict[Any, int] = {}
        while not self.loader.check_event(events.MappingEndEvent):
            key_event = self.loader.peek_event()
            key = self._key()
            if key in mapping:
                first = key_lines[key]
                reason = f"duplicate key {key!r} (first at line {first})"
                raise _Refusal(key_event.start_mark, reason)
            key_lines[key] = key_event.start_mark.line + 1
            if self.keys is not None:
                self.keys[(*path, key)] = (key_lines[key], key_event.start_mark.column + 1)
            mapping[key] = self._value((*path, key), marks, depth + 1)
        self.loader.get_event()
        return mapping

    def _key(self) -> Any:
        event = self.loader.peek_event()
        if isinstance(event, events.CollectionStartEvent):
            raise _Refusal(event.start_mark, "mapping keys must be plain scalars")
        if isinstance(event, events.ScalarEvent) and event.tag is None and event.implicit[0]:
            tag = _implicit_tag(event.value, event.implicit)
            if tag == _MERGE_TAG:
                raise _Refusal(event.start_mark, "merge keys (<<) are refused: write keys out")
        return self._value((), {}, depth=0)

    def _plain_tag(self, event: Any, allowed: str) -> None:
        if event.tag not in (None, "!", allowed):
            raise _Refusal(event.start_mark, _refused_tag(event.tag))

    def _expect(self, kind: type[events.Event]) -> None:
        event = self.loader.get_event()
        if not isinstance(event, kind):  # the parser guarantees the event grammar
            raise AssertionError(f"expected {kind.__name__}, parser gave {event}")

    def _skip_to_document_end(self) -> None:
        while not self.loader.check_event(events.DocumentEndEvent):
            self.loader.get_event()

    def _invalid(self, error: yaml.MarkedYAMLError) -> Problem:
        mark = error.problem_mark or error.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        context = f" ({error.context})" if error.context else ""
        return Problem(self.file, line, column, f"invalid YAML: {error.problem}{context}")

    def _unreadable(self, error: yaml.reader.ReaderError) -> Problem:
        offset = error.position
        line = self.text.count("\n", 0, offset) + 1
        column = offset - (self.text.rfind("\n", 0, offset) + 1) + 1
        return Problem(self.file, line, column, f"invalid YAML: {error.reason}")
