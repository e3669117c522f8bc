"""OCI image tarballs (image/oci.py): blobs named by their digests, the name containerd imports.

Written with the standard library and read back the same way; no engine involved. Their
cache (image/cache.py) keeps what other checkouts of the machine use.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import tarfile
import time
from pathlib import Path

import pytest

from image.cache import UNUSED_SECONDS, cached_image
from image.layer import writing_layer
from image.oci import ImageConfig, read_image, write_image


def small_image(folder: Path, name: str = "localhost/tiny:3") -> Path:
    layer = folder / "layer.tar"
    with writing_layer(layer) as rootfs:
        rootfs.directory("bin")
        rootfs.file("bin/hello", b"#!/bin/sh\necho hi\n", mode=0o755)
        rootfs.symlink("bin/hi", "/bin/hello")
    config = ImageConfig(entrypoint=["/bin/hello"], user="65532:65532")
    return write_image(folder / "image.tar", name, layer, config)


def member(archive: tarfile.TarFile, name: str) -> bytes:
    stream = archive.extractfile(name)
    assert stream is not None, f"no {name} in the tarball"
    return stream.read()


def blob(archive: tarfile.TarFile, digest: str) -> bytes:
    return member(archive, "blobs/sha256/" + digest.removeprefix("sha256:"))


def test_every_blob_is_named_by_the_digest_of_its_bytes(tmp_path: Path) -> None:
    with tarfile.open(small_image(tmp_path)) as archive:
        blobs = {
            entry.name.rsplit("/", 1)[1]: member(archive, entry.name)
            for entry in archive.getmembers()
            if entry.isfile() and entry.name.startswith("blobs/sha256/")
        }

    assert len(blobs) == 3  # the layer, the config, the manifest
    assert all(hashlib.sha256(data).hexdigest() == name for name, data in blobs.items())


def test_the_config_names_the_uncompressed_layer_and_what_runs(tmp_path: Path) -> None:
    image = small_image(tmp_path)

    config, files = read_image(image)
    with tarfile.open(image) as archive:
        index = json.loads(member(archive, "index.json"))
        manifest = json.loads(blob(archive, index["manifests"][0]["digest"]))
        layer = blob(archive, manifest["layers"][0]["digest"])

    diff_id = "sha256:" + hashlib.sha256(gzip.decompress(layer)).hexdigest()
    assert config["rootfs"] == {"type": "layers", "diff_ids": [diff_id]}
    assert config["config"] == {
        "Entrypoint": ["/bin/hello"],
        "Env": ["PATH=/usr/local/bin:/usr/bin:/bin"],
        "User": "65532:65532",
        "WorkingDir": "/",
    }
    assert files == {"bin", "bin/hello", "bin/hi"}
    assert index["manifests"][0]["annotations"]["io.containerd.image.name"] == "localhost/tiny:3"


def test_the_same_layer_and_config_give_the_same_bytes(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()

    first = small_image(tmp_path / "a").read_bytes()
    second = small_image(tmp_path / "b").read_bytes()

    assert first == second


def test_a_new_build_keeps_tarballs_other_checkouts_used_within_a_day(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DRIFTCTL_CACHE", str(tmp_path))
    folder = tmp_path / "images"
    folder.mkdir()
    recent, old = folder / "localhost_x_1-aaaa.tar", folder / "localhost_x_1-bbbb.tar"
    recent.write_bytes(b"another checkout's")
    old.write_bytes(b"nobody's")
    day_ago = time.time() - UNUSED_SECONDS - 60
    os.utime(old, (day_ago, day_ago))

    def build(out: Path) -> None:
        out.write_bytes(b"new")

    built, now = cached_image("localhost/x:1", ["new inputs"], build)

    assert now
    assert sorted(p.name for p in folder.iterdir()) == sorted([built.name, recent.name])
