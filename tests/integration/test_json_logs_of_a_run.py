"""--log-format json on a real run: a create, a drift correction, a prune, a retry and a
failure, each one JSON line with its fields; secrets appear nowhere.

driftctl runs as the CronJob's ServiceAccount through the fault proxy, which answers the
first LIST of WebApps with 503 (a retry) and the real apply of one WebApp with 422 (a
failure). Git is served over HTTP with a token for the secrets case.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from driftctl import conventions as c
from tests.support.builders import webapps_yaml
from tests.support.faultproxy import Fault, FaultProxy, status_answer
from tests.support.gitrepos import Repo, http_git_server
from tests.support.harness import LOCK_NAMESPACE, Harness, eventually
from tests.support.paths import ROOT
from tests.support.watching import Watching

WEBAPPS = f"/apis/{c.GROUP}/{c.VERSION}/{c.PLURAL}"
EVERY_LINE = {"time", "level", "message", "event", "instance", "shard", "shard_count", "revision"}
TOKEN = "tok-9d2e6b0c4a"


def json_lines(stderr: str) -> list[dict[str, Any]]:
    """Every stderr line, parsed: each must be one JSON object with the common keys."""
    lines = [json.loads(text) for text in stderr.splitlines()]
    for line in lines:
        assert set(line) >= EVERY_LINE, line
        assert line["level"] in ("info", "warning", "error")
        assert line["time"].endswith("Z")
    return lines


def objects(lines: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The object lines by `outcome Kind/name`."""
    return {
        f"{line['outcome']} {line['kind']}/{line['name']}": line
        for line in lines
        if line["event"] == "object"
    }


def test_each_event_of_a_run_is_one_json_line_with_its_fields(
    harness: Harness, fault_proxy: FaultProxy, proxied_kubeconfig: Path
) -> None:
    harness.declare({"shop": ("nginx:1.27", 1), "blog": ("nginx:1.27", 1), "docs": ("n:1", 1)})
    assert harness.driftctl("apply").code == 0
    harness.kubectl("scale", "deployment/blog", "--replicas=4", "-n", harness.namespace)
    commit = harness.declare(
        {"shop": ("nginx:1.28", 1), "blog": ("nginx:1.27", 1), "wiki": ("nginx:1.27", 1)},
        "shop changes, docs goes, wiki comes",
    )
    fault_proxy.inject(
        Fault(status_answer(503, "etcd is unavailable"), method="GET", path=WEBAPPS),
        Fault(
            status_answer(422, "admission webhook said no"),
            method="PATCH",
            path=f"/{c.PLURAL}/shop",
            dry_run=False,
        ),
    )

    ran = harness.driftctl("apply", "--log-format", "json", kubeconfig=proxied_kubeconfig)

    assert ran.code == 5
    assert ran.out == ""  # stdout carries only what -o asks for
    lines = json_lines(ran.err)
    by_object = objects(lines)
    assert set(by_object) >= {
        "created WebApp/wiki",
        "created Deployment/wiki",
        "configured Deployment/blog",
        "deleted WebApp/docs",
        "failed WebApp/shop",
    }
    failed = by_object["failed WebApp/shop"]
    assert failed["level"] == "error"
    assert failed["reason"].startswith("422 Invalid: admission webhook said no")
    for line in by_object.values():
        assert line["namespace"] == harness.namespace
        assert (line["instance"], line["shard"], line["revision"]) == (harness.instance, 0, commit)
    [retry] = [line for line in lines if line["event"] == "retry"]
    assert retry["level"] == "warning"
    assert ": list webapps: 503 " in retry["message"]
    assert retry["revision"] is None  # the retry came before the plan
    summary = lines[-1]
    assert summary["event"] == "summary"
    assert summary["exit_code"] == 5
    assert summary["outcomes"]["failed"] == 1
    assert summary["outcomes"]["deleted"] == 1
    assert summary["duration_seconds"] > 0
    assert [line["event"] for line in lines].count("summary") == 1


def run_from(harness: Harness, url: str, *args: str) -> subprocess.CompletedProcess[str]:
    """driftctl apply reading Git from `url`, with the token in the environment."""
    argv = harness.argv("apply", *args)
    argv[argv.index("--repo") + 1] = url
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "DRIFTCTL_"))}
    env["DRIFTCTL_GIT_TOKEN"] = TOKEN
    return subprocess.run(
        argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False
    )


def test_a_token_never_appears_in_the_json_log(harness: Harness, tmp_path: Path) -> None:
    served = Repo(tmp_path / "served" / "apps.git")
    served.write({"apps/webapps.yaml": webapps_yaml({"shop": ("nginx:1.27", 1)})}).commit()
    cache = str(tmp_path / "cache")

    with http_git_server(served.path.parent, "x-access-token", TOKEN) as (base, seen):
        url = f"{base}/apps.git"
        applied = run_from(harness, url, "--log-format", "json", "--cache-dir", cache)
        missing = run_from(harness, url + "-missing", "--log-format", "json", "--cache-dir", cache)

    assert any(header.startswith("Basic ") for header in seen), "the token was used"
    assert applied.returncode == 0, applied.stderr
    assert missing.returncode == 4
    [error] = [line for line in json_lines(missing.stderr) if line["event"] == "error"]
    assert error["exit_code"] == 4
    for ran in (applied, missing):
        json_lines(ran.stderr)
        assert TOKEN not in ran.stdout + ran.stderr


def test_watch_logs_json_lines_when_its_settings_say_so(harness: Harness, kubeconfig: Path) -> None:
    """operator/'s ConfigMap sets DRIFTCTL_LOG_FORMAT=json: the operator's log is JSON too."""
    harness.declare({"shop": ("nginx:1.27", 1)})
    process = Watching(harness, kubeconfig, env={"DRIFTCTL_LOG_FORMAT": "json"})
    try:
        assert eventually(lambda: process.said("created WebApp/"), 60), process.log()
        assert process.stop() == 0, process.log()
    finally:
        process.kill()

    lines = json_lines("".join(process.err))
    said = [(line["event"], line["message"]) for line in lines]
    lease = f"Lease {LOCK_NAMESPACE}/driftctl-{harness.instance}"
    assert ("watch", f"leading: holds {lease}") in said
    assert ("object", f"created WebApp/{harness.namespace}/shop") in said
    assert ("watch", f"stopped: released {lease}") in said
    assert "".join(process.out) == ""
