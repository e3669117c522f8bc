"""OCI image-layout tarballs written with the standard library: no engine, no registry.

An image here is one gzipped layer and its config. The tarball holds `oci-layout`,
`index.json` (its manifest annotated with the name containerd imports it under) and the
blobs; `ctr images import FILE` reads it as it is. The same layer and config give the same
bytes: gzip carries no timestamp and every entry of the outer tar has fixed metadata.

This module knows the format only; building a root file system is the callers' business.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import tarfile
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

MANIFEST = "application/vnd.oci.image.manifest.v1+json"
CONFIG = "application/vnd.oci.image.config.v1+json"
LAYER = "application/vnd.oci.image.layer.v1.tar+gzip"
CHUNK = 1 << 20


@dataclass(frozen=True)
class ImageConfig:
    """What a container of the image runs, and as whom (the OCI config's `config`)."""

    entrypoint: list[str]
    cmd: list[str] = field(default_factory=list)
    env: list[str] = field(default_factory=lambda: ["PATH=/usr/local/bin:/usr/bin:/bin"])
    user: str = ""
    workdir: str = "/"
    labels: dict[str, str] = field(default_factory=dict)

    def as_json(self) -> dict[str, object]:
        config: dict[str, object] = {
            "Entrypoint": self.entrypoint,
            "Env": self.env,
            "WorkingDir": self.workdir,
        }
        if self.cmd:
            config["Cmd"] = self.cmd
        if self.user:
            config["User"] = self.user
        if self.labels:
            config["Labels"] = self.labels
        return config


@dataclass(frozen=True)
class Blob:
    """A content-addressed file of the layout."""

    path: Path
    digest: str
    size: int

    def descriptor(self, media_type: str) -> dict[str, object]:
        return {"mediaType": media_type, "digest": self.digest, "size": self.size}


def _chunks(stream: BinaryIO) -> Iterator[bytes]:
    while chunk := stream.read(CHUNK):
        yield chunk


def _gzip_layer(layer_tar: Path, folder: Path) -> tuple[Blob, str]:
    """The gzipped layer as a blob, and the digest of the uncompressed tar (its diff_id)."""
    raw = hashlib.sha256()
    out = folder / "layer.tar.gz"
    with (
        layer_tar.open("rb") as source,
        out.open("wb") as sink,
        gzip.GzipFile(fileobj=sink, mode="wb", compresslevel=6, mtime=0) as packed,
    ):
        for chunk in _chunks(source):
            raw.update(chunk)
            packed.write(chunk)
    return _blob(out), f"sha256:{raw.hexdigest()}"


def _blob(path: Path) -> Blob:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for chunk in _chunks(stream):
            digest.update(chunk)
    return Blob(path, f"sha256:{digest.hexdigest()}", path.stat().st_size)


def _json_blob(folder: Path, stem: str, document: dict[str, object]) -> Blob:
    path = folder / stem
    path.write_bytes(json.dumps(document, sort_keys=True, separators=(",", ":")).encode())
    return _blob(path)


def _entry(name: str, size: int = 0, kind: bytes = tarfile.REGTYPE) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.size, info.mode, info.mtime = kind, size, 0o644, 0
    if kind == tarfile.DIRTYPE:
        info.mode = 0o755
    return info


def _add_bytes(archive: tarfile.TarFile, name: str, data: bytes) -> None:
    archive.addfile(_entry(name, len(data)), io.BytesIO(data))


def write_image(out: Path, name: str, layer_tar: Path, config: ImageConfig) -> Path:
    """Write the image `name` (e.g. `localhost/hello:1`) of one layer as an OCI layout tarball.

    `layer_tar` is an uncompressed tar of the root file system. `out` is replaced
    atomically, so a reader never sees half an image.
    """
    with tempfile.TemporaryDirectory(prefix="oci-") as scratch:
        folder = Path(scratch)
        layer, diff_id = _gzip_layer(layer_tar, folder)
        image_config = _json_blob(
            folder,
            "config.json",
            {
                "architecture": "amd64",
                "os": "linux",
                "config": config.as_json(),
                "rootfs": {"type": "layers", "diff_ids": [diff_id]},
            },
        )
        manifest = _json_blob(
            folder,
            "manifest.json",
            {
                "schemaVersion": 2,
                "mediaType": MANIFEST,
                "config": image_config.descriptor(CONFIG),
                "layers": [layer.descriptor(LAYER)],
            },
        )
        tag = name.rsplit(":", 1)[-1] if ":" in name.rsplit("/", 1)[-1] else "latest"
        index = {
            "schemaVersion": 2,
            "mediaType": "application/vnd.oci.image.index.v1+json",
            "manifests": [
                {
                    **manifest.descriptor(MANIFEST),
                    "annotations": {
                        "io.containerd.image.name": name,
                        "org.opencontainers.image.ref.name": tag,
                    },
                }
            ],
        }
        partial = out.with_name(out.name + ".partial")
        out.parent.mkdir(parents=True, exist_ok=True)
        with tarfile.open(partial, "w", format=tarfile.PAX_FORMAT) as archive:
            _add_bytes(archive, "oci-layout", b'{"imageLayoutVersion":"1.0.0"}')
            _add_bytes(archive, "index.json", json.dumps(index, sort_keys=True).encode())
            for kind in ("blobs", "blobs/sha256"):
                archive.addfile(_entry(kind, kind=tarfile.DIRTYPE))
            for blob in (layer, image_config, manifest):
                with blob.path.open("rb") as stream:
                    archive.addfile(_entry(_blob_path(blob.digest), blob.size), stream)
        partial.replace(out)
    return out


def _member(archive: tarfile.TarFile, name: str) -> bytes:
    stream = archive.extractfile(name)
    if stream is None:
        raise ValueError(f"the image tarball has no file {name}")
    return stream.read()


def read_image(image: Path) -> tuple[dict[str, object], set[str]]:
    """The config of a tarball's image and the paths in its layer (to check what it holds)."""
    with tarfile.open(image) as archive:
        index = json.loads(_member(archive, "index.json"))
        manifest = json.loads(_member(archive, _blob_path(index["manifests"][0]["digest"])))
        config: dict[str, object] = json.loads(
            _member(archive, _blob_path(manifest["config"]["digest"]))
        )
        layer = archive.extractfile(_blob_path(manifest["layers"][0]["digest"]))
        if layer is None:
            raise ValueError(f"{image} has no layer")
        with tarfile.open(fileobj=layer, mode="r|gz") as files:
            names = {member.name.removeprefix("./") for member in files}
    return config, names


def _blob_path(digest: str) -> str:
    return "blobs/sha256/" + digest.removeprefix("sha256:")
