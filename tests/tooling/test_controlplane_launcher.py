"""`python -m tests.controlplane start|status|stop` work as documented and leave nothing behind."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.controlplane import launcher
from tests.controlplane.processes import alive
from tests.support.paths import ROOT

pytestmark = pytest.mark.integration


def launch(action: str, folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tests.controlplane", action, "--dir", str(folder)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


def test_start_status_stop_leave_no_process_behind(tmp_path: Path) -> None:
    started = launch("start", tmp_path)
    assert started.returncode == 0, started.stderr
    assert (tmp_path / "kubeconfig").exists()
    state = launcher.read_state(tmp_path)
    assert state is not None
    assert set(state.pids) == {"etcd", "kube-apiserver", "kube-controller-manager"}

    up = launch("status", tmp_path)
    stopped = launch("stop", tmp_path)
    down = launch("status", tmp_path)

    assert up.returncode == 0
    assert up.stdout.startswith("up https://127.0.0.1:")
    assert stopped.stdout.strip() == "stopped: kube-controller-manager, kube-apiserver, etcd"
    assert [alive(pid) for pid in state.pids.values()] == [False, False, False]
    assert (down.returncode, down.stdout.strip()) == (1, "down")
    assert {"etcd.log", "kube-apiserver.log", "kube-controller-manager.log"} <= {
        p.name for p in tmp_path.iterdir()
    }
