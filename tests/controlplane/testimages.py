"""The node's test images, built from what this machine has and cached (image/cache.py).

- `localhost/pause:1`, the sandbox image: Kubernetes' own pause.c from the Go module
  cache, compiled static.
- `localhost/hello:N`: busybox-static with its applet links, `httpd` on port 8080 serving
  a page that names version N. The WebApps' Pods run these.
- `localhost/crash:1`: the same busybox, whose command exits 1 at once: a Pod of it
  crash-loops (a rollout that can never complete).
- `localhost/up-then-crash:N`: the same busybox, whose command runs N seconds, then exits 1:
  a Pod of it is ready for N seconds each time it starts, then crash-loops (with N a few
  seconds, a rollout that completes for moments; with N longer, one that fails after it
  completed).

Nothing here is pulled: containerd gets each tarball through `ctr images import`.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

from image.cache import Input, cached_image
from image.layer import writing_layer
from image.oci import ImageConfig, write_image

PAUSE_IMAGE = "localhost/pause:1"
HELLO_PORT = 8080
KUBERNETES_MODULE = "k8s.io/kubernetes@v1.37.2"
BUSYBOX = Path("/bin/busybox")
NONROOT = 65532
_IMAGE_CODE = Path(__file__).parents[2] / "image"
_RECIPE = [Path(__file__), _IMAGE_CODE / "oci.py", _IMAGE_CODE / "layer.py"]


def hello_image_name(version: int) -> str:
    return f"localhost/hello:{version}"


def hello_page(version: int) -> str:
    """What `localhost/hello:N` answers on `/`."""
    return f"hello from version {version}\n"


def _pause_source() -> Path:
    modules = subprocess.run(
        ["go", "env", "GOMODCACHE"], capture_output=True, text=True, check=True
    ).stdout.strip()
    source = Path(modules) / KUBERNETES_MODULE / "build" / "pause" / "linux" / "pause.c"
    if not source.exists():
        raise FileNotFoundError(f"{source} is missing: build the control plane first")
    return source


def _compiler_version() -> str:
    return subprocess.run(
        ["gcc", "--version"], capture_output=True, text=True, check=True
    ).stdout.splitlines()[0]


def _build_pause(source: Path, out: Path) -> None:
    with tempfile.TemporaryDirectory(prefix="pause-") as scratch:
        binary = Path(scratch) / "pause"
        subprocess.run(
            ["gcc", "-Os", "-static", "-DVERSION=driftctl-test", "-o", str(binary), str(source)],
            check=True,
        )
        subprocess.run(["strip", str(binary)], check=True)
        layer = Path(scratch) / "layer.tar"
        with writing_layer(layer) as rootfs:
            rootfs.file("pause", binary.read_bytes(), mode=0o755)
        write_image(out, PAUSE_IMAGE, layer, ImageConfig(entrypoint=["/pause"], env=[]))


def pause_image() -> Path:
    """The sandbox image's tarball (built when missing)."""
    source = _pause_source()
    inputs: list[Input] = [source, _compiler_version(), *_RECIPE]
    path, _ = cached_image(PAUSE_IMAGE, inputs, lambda out: _build_pause(source, out))
    return path


def _busybox_links() -> list[str]:
    listed = subprocess.run(
        [str(BUSYBOX), "--list-full"], capture_output=True, text=True, check=True
    ).stdout.split()
    return sorted(set(listed) - {"bin/busybox"})


CRASH_IMAGE = "localhost/crash:1"


def _build_busybox(name: str, entrypoint: list[str], out: Path, page: str = "") -> None:
    with tempfile.TemporaryDirectory(prefix="busybox-") as scratch:
        layer = Path(scratch) / "layer.tar"
        with writing_layer(layer) as rootfs:
            for folder in ("bin", "sbin", "usr", "usr/bin", "usr/sbin", "etc", "www"):
                rootfs.directory(folder)
            rootfs.directory("tmp", mode=0o1777)
            rootfs.file("bin/busybox", BUSYBOX.read_bytes(), mode=0o755)
            for link in _busybox_links():
                rootfs.symlink(link, "/bin/busybox")
            if page:
                rootfs.file("www/index.html", page.encode())
        config = ImageConfig(entrypoint=entrypoint, user=f"{NONROOT}:{NONROOT}")
        write_image(out, name, layer, config)


def _build_hello(version: int, out: Path) -> None:
    httpd = ["/bin/busybox", "httpd", "-f", "-p", str(HELLO_PORT), "-h", "/www"]
    _build_busybox(hello_image_name(version), httpd, out, hello_page(version))


def hello_image(version: int) -> Path:
    """The tarball of `localhost/hello:<version>` (built when missing)."""
    if shutil.which(str(BUSYBOX)) is None:
        raise FileNotFoundError(f"{BUSYBOX} is missing: run tests/controlplane/node-packages.sh")
    inputs: list[Input] = [BUSYBOX, str(version), *_RECIPE]
    path, _ = cached_image(
        hello_image_name(version), inputs, lambda out: _build_hello(version, out)
    )
    return path


def crash_image() -> Path:
    """The tarball of `localhost/crash:1`, whose command exits 1 (built when missing)."""
    if shutil.which(str(BUSYBOX)) is None:
        raise FileNotFoundError(f"{BUSYBOX} is missing: run tests/controlplane/node-packages.sh")
    inputs: list[Input] = [BUSYBOX, "exit 1", *_RECIPE]
    exits = ["/bin/busybox", "sh", "-c", "echo crashing on purpose; exit 1"]
    path, _ = cached_image(CRASH_IMAGE, inputs, lambda out: _build_busybox(CRASH_IMAGE, exits, out))
    return path


def up_then_crash_image_name(seconds: int) -> str:
    return f"localhost/up-then-crash:{seconds}"


def up_then_crash_image(seconds: int) -> Path:
    """The tarball of `localhost/up-then-crash:<seconds>` (built when missing)."""
    if shutil.which(str(BUSYBOX)) is None:
        raise FileNotFoundError(f"{BUSYBOX} is missing: run tests/controlplane/node-packages.sh")
    name = up_then_crash_image_name(seconds)
    command = f"echo up; sleep {seconds}; echo crashing on purpose; exit 1"
    inputs: list[Input] = [BUSYBOX, command, *_RECIPE]
    entrypoint = ["/bin/busybox", "sh", "-c", command]
    path, _ = cached_image(name, inputs, lambda out: _build_busybox(name, entrypoint, out))
    return path
