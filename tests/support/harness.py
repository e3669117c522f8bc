"""Runs driftctl against the test control plane the way the CronJob does.

driftctl runs as its own process, as the ServiceAccount with cronjob/'s RBAC (not as
admin), reading a real Git repository. Each test gets its own namespace and instance, so
the cluster-wide LISTs of one test never see another test's objects. What "a person" does
goes through the real kubectl as admin.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from tests.support.builders import webapps_yaml
from tests.support.gitrepos import Repo
from tests.support.paths import ROOT

LOCK_NAMESPACE = "driftctl-system"
Obj = dict[str, Any]


@dataclass(frozen=True)
class Ran:
    code: int
    out: str
    err: str


@dataclass
class Harness:
    """One test's repository, namespace, instance, and the tools to look at the cluster."""

    repo: Repo
    namespace: str
    instance: str
    kubeconfig: Path  # the ServiceAccount's
    kubectl_argv: list[str]  # admin

    def declare(self, apps: Mapping[str, tuple[str, int]], message: str = "change") -> str:
        """Make Git declare exactly `apps` (name -> (image, replicas)); return the commit."""
        self.repo.write({"apps/webapps.yaml": webapps_yaml(apps)})
        return self.repo.commit(message)

    def declare_text(self, text: str, message: str = "change") -> str:
        """Make Git declare exactly the WebApp documents in `text`; return the commit."""
        self.repo.write({"apps/webapps.yaml": text})
        return self.repo.commit(message)

    def other_instance(self, instance: str, folder: Path) -> Harness:
        """Another driftctl instance on the same namespace, with its own repository."""
        return replace(self, repo=Repo(folder), instance=instance)

    def argv(self, *args: str, kubeconfig: Path | None = None) -> list[str]:
        """`python -m driftctl ARGS` with this test's repository, instance and kubeconfig."""
        command = args[0]
        argv = [sys.executable, "-m", "driftctl", *args]
        if command in ("show", "completion"):  # neither reads a cluster
            return argv
        argv += ["--kubeconfig", str(kubeconfig or self.kubeconfig), "--instance", self.instance]
        if command in ("plan", "apply", "watch", "status"):
            argv += ["--repo", str(self.repo.path), "--path", "apps"]
            argv += ["--namespace", self.namespace]
            argv += [] if {"--ref", "--plan"} & set(args) else ["--ref", "main"]
        if command == "check":
            argv += ["--repo", str(self.repo.path), "--path", "apps"]
            argv += ["--namespace", self.namespace]
        if command in ("plan", "check", "apply", "unlock", "watch", "status"):
            argv += ["--lock-namespace", LOCK_NAMESPACE]
        return argv

    def driftctl(
        self,
        *args: str,
        kubeconfig: Path | None = None,
        timeout: float = 120,
        env: Mapping[str, str] | None = None,
    ) -> Ran:
        """Run driftctl to the end: exit code, stdout, stderr (`env`: added variables)."""
        done = subprocess.run(
            self.argv(*args, kubeconfig=kubeconfig),
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=timeout,
            env={**driftctl_env(), **(env or {})},
            check=False,
        )
        return Ran(done.returncode, done.stdout, done.stderr)

    def start(self, *args: str) -> subprocess.Popen[str]:
        """driftctl in the background (for concurrent runs)."""
        return subprocess.Popen(
            self.argv(*args),
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=driftctl_env(),
        )

    def kubectl(
        self,
        *args: str,
        check: bool = True,
        stdin: str | None = None,
        environment: Mapping[str, str] | None = None,
    ) -> str:
        """kubectl as admin (a person); AssertionError when it fails and `check` is set."""
        done = subprocess.run(
            [*self.kubectl_argv, *args],
            input=stdin,
            capture_output=True,
            text=True,
            check=False,
            timeout=60,
            env={**os.environ, **environment} if environment else None,
        )
        if check and done.returncode != 0:
            raise AssertionError(f"kubectl {' '.join(args)} failed: {done.stderr}")
        return done.stdout

    def apply_as_admin(self, manifest: Obj) -> None:
        """What a person's `kubectl apply --server-side` does."""
        self.kubectl("apply", "--server-side", "-f", "-", stdin=json.dumps(manifest))

    def get(self, kind: str, name: str, namespace: str | None = None) -> Obj | None:
        out = self.kubectl(
            "get", kind, name, "-n", namespace or self.namespace, "-o", "json", "--ignore-not-found"
        )
        return json.loads(out) if out.strip() else None

    def raw(self, kind: str, name: str) -> Obj | None:
        """The object exactly as stored, managedFields and resourceVersion included."""
        out = self.kubectl(
            "get",
            kind,
            name,
            "-n",
            self.namespace,
            "-o",
            "json",
            "--show-managed-fields",
            "--ignore-not-found",
        )
        return json.loads(out) if out.strip() else None

    def managers(self, kind: str, name: str) -> list[tuple[str, str, str]]:
        """(manager, operation, subresource) of each managedFields entry."""
        obj = self.raw(kind, name) or {}
        return [
            (e["manager"], e["operation"], e.get("subresource", ""))
            for e in obj.get("metadata", {}).get("managedFields", [])
        ]

    def names(self, kind: str) -> list[str]:
        out = json.loads(self.kubectl("get", kind, "-n", self.namespace, "-o", "json"))
        return sorted(item["metadata"]["name"] for item in out["items"])

    def versions(self) -> dict[str, str]:
        """resourceVersion of every WebApp and Deployment in the namespace."""
        out = json.loads(
            self.kubectl("get", "webapps,deployments", "-n", self.namespace, "-o", "json")
        )
        return {
            f"{i['kind']}/{i['metadata']['name']}": i["metadata"]["resourceVersion"]
            for i in out["items"]
        }

    def events(self) -> list[Obj]:
        items: list[Obj] = json.loads(
            self.kubectl("get", "events", "-n", self.namespace, "-o", "json")
        )["items"]
        return items


def driftctl_env() -> dict[str, str]:
    """The environment driftctl runs in: no GIT_*, KUBECONFIG or DRIFTCTL_* of the caller's,
    no colour."""
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "KUBECONFIG", "DRIFTCTL_"))
    }
    env["NO_COLOR"] = "1"
    return env


def eventually(check: Callable[[], bool], timeout: float = 60.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.2)
    return False
