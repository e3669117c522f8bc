"""The driftctl image's Debian mirror is read from apt's sources, never written anywhere.

Table-driven over deb822 and one-line sources: the first enabled `deb` source of a main
suite wins; security and updates suites, disabled files and other types are skipped.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from image.build import BuildError, debian_mirror

DEB822 = """\
Types: deb
URIs: http://mirror.example.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://mirror.example.org/debian-security
Suites: bookworm-security
Components: main
"""


@pytest.mark.parametrize(
    ("files", "mirror"),
    [
        pytest.param({"debian.sources": DEB822}, "http://mirror.example.org/debian", id="deb822"),
        pytest.param(
            {"other.list": "deb [arch=amd64] http://lists.example.org/debian trixie main\n"},
            "http://lists.example.org/debian",
            id="one-line-with-options",
        ),
        pytest.param(
            {
                "a.sources": "Types: deb-src\nURIs: http://src.example.org/d\nSuites: trixie\n"
                "Components: main\n",
                "b.sources": "Types: deb\nURIs: http://off.example.org/d\nSuites: trixie\n"
                "Components: main\nEnabled: no\n",
                "c.sources": DEB822,
            },
            "http://mirror.example.org/debian",
            id="source-packages-and-disabled-stanzas-skipped",
        ),
        pytest.param(
            {
                "x.sources.disabled-by-hand": DEB822,
                "y.list": "deb http://y.example.org/d trixie main\n",
            },
            "http://y.example.org/d",
            id="files-of-other-names-ignored",
        ),
    ],
)
def test_the_mirror_is_the_first_enabled_main_suite(
    tmp_path: Path, files: dict[str, str], mirror: str
) -> None:
    for name, text in files.items():
        (tmp_path / name).write_text(text)

    assert debian_mirror(tmp_path) == mirror


def test_no_main_suite_is_an_error_that_names_the_folder(tmp_path: Path) -> None:
    (tmp_path / "security.list").write_text("deb http://s.example.org/d trixie-security main\n")

    with pytest.raises(BuildError, match=str(tmp_path)):
        debian_mirror(tmp_path)
