"""Where things are in this checkout, for tests: its root and the WebApp CRD it ships."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CRD_FILE = ROOT / "specs" / "webapp-crd.yaml"
