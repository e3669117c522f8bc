"""Writes cronjob/ and operator/ from the code `driftctl install` applies: `make manifests`.

Each file driftctl.render.shipped makes is written where it says; nothing else is touched
(cronjob/sharded/ and cronjob/git-secret.example.yaml are written by hand). Run it after a
change of core.installation; the unit test of the shipped manifests fails until it is.
"""

from __future__ import annotations

from pathlib import Path

from driftctl.render.shipped import files

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    for path, text in files().items():
        target = ROOT / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.exists() or target.read_text() != text:
            target.write_text(text)
            print(f"wrote {path}")


if __name__ == "__main__":
    main()
