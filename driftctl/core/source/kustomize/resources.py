"""One object while a kustomization renders it: its body, where each value came from, and
the names it has had (kustomize matches a patch against any of them). Pure.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

from driftctl.core.source.documents import Document
from driftctl.core.source.schema import Path

Where = tuple[str, int, int]


@dataclass(slots=True)
class Resource:
    """A document being transformed: its body changes in place, its origins grow.

    Both are the document's own: a document a rendering loaded is seen by nobody else until
    the rendering hands it on, so it is changed where it lies rather than copied (a second
    Document for each of 10,000 WebApps cost a tenth of a second).
    """

    document: Document
    body: dict[Any, Any]
    origins: dict[Path, Where]
    ids: list[tuple[str, str]] = field(default_factory=list)  # (name, namespace), oldest first

    @classmethod
    def of(cls, document: Document) -> Resource:
        """The resource of a document just loaded (load_file made its body and origins)."""
        body = cast("dict[Any, Any]", document.body)
        resource = cls(document, body, cast("dict[Path, Where]", document.origins))
        resource.ids.append((resource.name, resource.namespace))
        return resource

    @property
    def metadata(self) -> dict[Any, Any]:
        """The metadata mapping, made when missing or not a mapping (validate says so)."""
        metadata = self.body.get("metadata")
        if not isinstance(metadata, dict):
            metadata = self.body["metadata"] = {}
        return metadata

    @property
    def name(self) -> str:
        metadata = self.body.get("metadata")
        name = metadata.get("name") if isinstance(metadata, dict) else None
        return name if isinstance(name, str) else ""

    @property
    def namespace(self) -> str:
        metadata = self.body.get("metadata")
        namespace = metadata.get("namespace") if isinstance(metadata, dict) else None
        return namespace if isinstance(namespace, str) else ""

    @property
    def kind(self) -> str:
        return str(self.body.get("kind", ""))

    def shown(self) -> str:
        """The object as messages name it: Kind/namespace/name (Kind/name without one)."""
        return "/".join(part for part in (self.kind, self.namespace, self.name) if part)

    def renamed(self) -> None:
        """Remember the name and namespace it has now (after a transformer set them)."""
        current = (self.name, self.namespace)
        if current != self.ids[-1]:
            self.ids.append(current)

    def set(self, path: Path, value: Any, where: Where) -> None:
        """Set the value at `path` (its parents made), written at `where`."""
        holder = self.body
        for key in path[:-1]:
            child = holder.get(key)
            if not isinstance(child, dict):
                child = holder[key] = {}
            holder = child
        holder[path[-1]] = value
        self.origins[path] = where

    def rendered(self) -> Document:
        """The document as rendered: the base's marks, the overlays' origins over them."""
        return self.document
