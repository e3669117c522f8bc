"""Build the driftctl image without an engine: `python -m image.build`.

`localhost/driftctl:<version>` is a minimal Debian root file system (mmdebstrap's
`essential` variant plus python3, git, OpenSSH's client for ssh:// repositories and SSH
signatures, gpg for OpenPGP signatures (--verify) and CA certificates), a virtual
environment at /opt/driftctl holding driftctl's wheel and its dependencies (installed from
the package index by the image's own Python, inside the root file system), the user 65532
and the entrypoint `driftctl`. No compiler, no pip, no package
lists, no docs or man pages.

Debian comes from the mirror this machine's own apt sources name, so nothing here names
a host. The tarball is cached by its inputs (image/cache.py): the package's source files,
this recipe, the mirror and the suite. Dependencies are resolved when the image is built;
a new release of one is picked up by the next change of those inputs.
"""

from __future__ import annotations

import argparse
import os
import re
import ssl
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from image.cache import Input, cached_image
from image.oci import ImageConfig, write_image

ROOT = Path(__file__).resolve().parents[1]
SUITE = "trixie"  # Debian 13: Python 3.13
PACKAGES = ["python3", "python3-venv", "git", "openssh-client", "gpg", "ca-certificates"]
# Only needed to make the virtual environment; purged once it exists.
BUILD_ONLY = ["python3-venv", "python3.13-venv", "python3-pip-whl", "python3-setuptools-whl"]
VENV = "/opt/driftctl"
USER_ID = 65532
HOME = "/home/driftctl"
APT_SOURCES = Path("/etc/apt/sources.list.d")


class BuildError(RuntimeError):
    """The image could not be built; the message says which step failed."""


@dataclass(frozen=True)
class BuiltImage:
    """An image tarball and the name containerd imports it under."""

    name: str
    tarball: Path
    built_now: bool


def version() -> str:
    """driftctl's version, read from its source (where pyproject.toml reads it)."""
    found = re.search(
        r'^__version__ = "([^"]+)"', (ROOT / "driftctl" / "__init__.py").read_text(), re.M
    )
    if found is None:
        raise BuildError("driftctl/__init__.py has no __version__")
    return found.group(1)


def _deb822_stanzas(text: str) -> Iterator[dict[str, str]]:
    for stanza in re.split(r"\n\s*\n", text):
        fields = dict(re.findall(r"^([A-Za-z-]+):\s*(.*)$", stanza, re.M))
        if fields:
            yield fields


def debian_mirror(sources: Path = APT_SOURCES) -> str:
    """The Debian mirror of this machine's apt sources (a main suite, not security)."""
    for path in sorted(sources.glob("*.sources")):
        for fields in _deb822_stanzas(path.read_text()):
            suites = fields.get("Suites", "").split()
            if (
                "deb" in fields.get("Types", "").split()
                and "main" in fields.get("Components", "").split()
                and any("-" not in suite for suite in suites)
                and fields.get("Enabled", "yes") != "no"
            ):
                return fields["URIs"].split()[0]
    for path in sorted(sources.glob("*.list")):
        for line in path.read_text().splitlines():
            words = re.sub(r"\[[^]]*\]", "", line).split()
            if len(words) >= 4 and words[0] == "deb" and "-" not in words[2] and "main" in words:
                return words[1]
    raise BuildError(f"no Debian mirror with a main suite in {sources}")


def source_files() -> list[Path]:
    """What the wheel is built from: the package, its metadata and its readme."""
    package = sorted(
        path
        for path in (ROOT / "driftctl").rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    )
    return [ROOT / "pyproject.toml", ROOT / "README.md", *package]


def build_wheel(folder: Path) -> Path:
    """driftctl's wheel (no dependencies), built from the working tree."""
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "-w",
            str(folder),
            str(ROOT),
        ],
        check=True,
    )
    wheels = sorted(folder.glob("kube_driftctl-*.whl"))
    if not wheels:
        raise BuildError(f"pip wheel left no driftctl wheel in {folder}")
    return wheels[-1]


def host_trust_bundle() -> Path:
    """The CA bundle this machine's pip trusts: the image's pip must reach the same index."""
    configured = os.environ.get("PIP_CERT") or ssl.get_default_verify_paths().cafile
    bundle = Path(configured or ssl.get_default_verify_paths().openssl_cafile).resolve()
    if not bundle.is_file():
        raise BuildError(f"no CA bundle at {bundle} for the image's pip")
    return bundle


def _account_hook() -> str:
    """The non-root user the image runs as, with a home of its own."""
    passwd = f"driftctl:x:{USER_ID}:{USER_ID}:driftctl:{HOME}:/usr/sbin/nologin"
    return (
        f'echo "{passwd}" >> "$1/etc/passwd"; '
        f'echo "driftctl:x:{USER_ID}:" >> "$1/etc/group"; '
        f'mkdir -p "$1{HOME}"; chown {USER_ID}:{USER_ID} "$1{HOME}"'
    )


def mmdebstrap_argv(mirror: str, wheel: Path, bundle: Path, out: Path) -> list[str]:
    chroot = 'chroot "$1"'
    # The image's pip trusts what this machine's does, for the build only.
    # (Debian's pip verifies through truststore, which reads SSL_CERT_FILE, not PIP_CERT.)
    trust = f"env -u PIP_FIND_LINKS -u PIP_CERT SSL_CERT_FILE=/tmp/{bundle.name}"
    pip = f"{chroot} {trust} {VENV}/bin/python -m pip"
    return [
        "mmdebstrap",
        "--quiet",
        "--variant=essential",
        f"--include={','.join(PACKAGES)}",
        '--aptopt=Acquire::Check-Valid-Until "false"',
        *(
            f"--dpkgopt=path-exclude=/usr/share/{part}/*"
            for part in ("doc", "man", "locale", "info")
        ),
        "--dpkgopt=path-include=/usr/share/doc/*/copyright",
        f"--customize-hook=copy-in {wheel} {bundle} /tmp",
        f"--customize-hook={chroot} python3 -m venv {VENV}",
        f"--customize-hook={pip} install --quiet --no-cache-dir /tmp/{wheel.name}",
        f"--customize-hook={pip} uninstall --quiet --yes pip",
        f"--customize-hook={chroot} dpkg --purge {' '.join(BUILD_ONLY)}",
        f"--customize-hook={_account_hook()}",
        # Copied in from this machine for the build: not part of the image.
        f'--customize-hook=rm -f "$1"/tmp/*.whl "$1"/tmp/{bundle.name} '
        '"$1"/etc/resolv.conf "$1"/etc/hostname',
        SUITE,
        str(out),
        f"deb {mirror} {SUITE} main",
    ]


def image_config(release: str) -> ImageConfig:
    return ImageConfig(
        entrypoint=[f"{VENV}/bin/driftctl"],
        env=[
            f"PATH={VENV}/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            f"HOME={HOME}",
        ],
        user=f"{USER_ID}:{USER_ID}",
        workdir=HOME,
        labels={
            "org.opencontainers.image.title": "driftctl",
            "org.opencontainers.image.version": release,
        },
    )


def _build(name: str, release: str, mirror: str, out: Path) -> None:
    with tempfile.TemporaryDirectory(prefix="driftctl-image-") as scratch:
        folder = Path(scratch)
        wheel = build_wheel(folder / "wheel")
        rootfs = folder / "rootfs.tar"
        argv = mmdebstrap_argv(mirror, wheel, host_trust_bundle(), rootfs)
        log = out.with_suffix(".log")
        with log.open("w") as output:
            done = subprocess.run(argv, stdout=output, stderr=subprocess.STDOUT, check=False)
        if done.returncode != 0:
            tail = "\n".join(log.read_text(errors="replace").splitlines()[-20:])
            raise BuildError(f"mmdebstrap failed (exit {done.returncode}), see {log}:\n{tail}")
        log.unlink()
        write_image(out, name, rootfs, image_config(release))


def driftctl_image() -> BuiltImage:
    """The driftctl image's tarball, built when its inputs changed (minutes), else cached."""
    release, mirror = version(), debian_mirror()
    name = f"localhost/driftctl:{release}"
    recipe = Path(__file__).parent
    inputs: list[Input] = [
        mirror,
        SUITE,
        *source_files(),
        recipe / "build.py",
        recipe / "oci.py",
    ]
    tarball, built_now = cached_image(name, inputs, lambda out: _build(name, release, mirror, out))
    return BuiltImage(name, tarball, built_now)


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m image.build", description=__doc__)
    parser.parse_args()
    started = time.monotonic()
    try:
        built = driftctl_image()
    except (BuildError, subprocess.CalledProcessError) as failed:
        print(f"error: {failed}", file=sys.stderr)
        return 1
    how = "built" if built.built_now else "cached"
    size = built.tarball.stat().st_size / 1e6
    print(f"{built.name}: {how}, {size:.1f} MB, {time.monotonic() - started:.1f}s", file=sys.stderr)
    print(built.tarball)
    return 0


if __name__ == "__main__":
    sys.exit(main())
