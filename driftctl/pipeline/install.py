"""Sequencing of `driftctl install` and `driftctl uninstall`.

`install` applies core.installation's objects with server-side apply (field manager
`driftctl-install`), in order, and waits for the CRD to be established before the rest.
`uninstall` takes an installation down as docs/how-to/upgrade-and-uninstall.md does: the
runs stopped first (the CronJob or the operator's Deployment deleted, its Pods with it),
then the finalizers of the instance's WebApps released (each JSON Patch `test`s that the
entry is still driftctl's), then, if asked, the instance's WebApps deleted (their
Deployments go with them; when the CRD goes too, in the foreground, waited for), then
driftctl's own objects, then, if asked and if no WebApp of any instance is left, the CRD.
With `dry_run`, nothing is written: each line says what would be done. Decides nothing
about WebApps; says each step through `say`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from driftctl import conventions as c
from driftctl.core.api import requests as r
from driftctl.core.installation import (
    CRD_READER,
    NAME,
    NAMESPACE,
    SETTINGS,
    Installation,
    manifests,
    object_name,
)
from driftctl.core.planning.finalizers import remove_patch
from driftctl.core.planning.guards import delete_body
from driftctl.core.planning.objects import ObjectKey, key_of
from driftctl.core.source.crd import webapp_crd
from driftctl.errors import ClusterError, UsageError
from driftctl.pipeline.runs import Notice, open_cluster
from driftctl.settings import Cluster, Removal, namespace_list
from driftctl.shell.kube import Kube

MANAGER = "driftctl-install"
POLL_SECONDS = 0.5
Say = Callable[[str], None]


def rendered(installation: Installation) -> list[dict[str, Any]]:
    """What `install` applies, in order (its --dry-run prints this)."""
    return manifests(installation, webapp_crd())


def install(installation: Installation, cluster: Cluster, *, notice: Notice, say: Say) -> None:
    """The `install` command: apply the CRD, wait until it is established, apply the rest."""
    kube = open_cluster(cluster, notice)
    for obj in rendered(installation):
        kube.send(r.apply_object(obj, MANAGER))
        say(f"applied {object_name(obj)}")
        if obj["kind"] == "CustomResourceDefinition":
            _until(kube, lambda: _established(kube), "the CRD to be established")


def _established(kube: Kube) -> bool:
    crd = kube.send_unless_missing(r.get_crd()) or {}
    conditions = (crd.get("status") or {}).get("conditions") or []
    return any(
        each.get("type") == "Established" and each.get("status") == "True" for each in conditions
    )


def _until(kube: Kube, done: Callable[[], bool], what: str) -> None:
    while not done():
        if kube.deadline.remaining() <= 0:
            raise ClusterError(
                f"gave up waiting for {what} after --timeout ({kube.deadline.seconds:g}s)"
            )
        time.sleep(POLL_SECONDS)


def uninstall(
    cluster: Cluster, removal: Removal, *, dry_run: bool, notice: Notice, say: Say
) -> None:
    """The `uninstall` command (module docstring)."""
    kube = open_cluster(cluster, notice)
    step = _Steps(kube, dry_run, say)
    settings = kube.send_unless_missing(r.get_object("ConfigMap", NAMESPACE, SETTINGS)) or {}
    scope = namespace_list((settings.get("data") or {}).get("DRIFTCTL_TARGET_NAMESPACES"))
    for kind in ("CronJob", "Deployment"):
        step.delete(kind, NAMESPACE, NAME, wait=True)
    webapps = _webapps(kube, cluster.instance, scope or cluster.namespaces)
    for webapp in webapps:
        step.release(webapp)
    step.said(f"{len(webapps)} WebApps of instance {cluster.instance} released")
    if removal.webapps:
        # The CRD deleted next, the garbage collector could no longer look their owners up:
        # their Deployments would stay. So, then, they go first, the WebApps waiting for them.
        propagation = "Foreground" if removal.crd else "Background"
        for webapp in webapps:
            step.delete_webapp(webapp, propagation)
        if removal.crd:
            step.until_gone(webapps)
    for kind, namespace, name in _installed(scope):
        step.delete(kind, namespace, name, wait=kind == "Namespace")
    if removal.crd:
        step.delete_crd()


def _webapps(kube: Kube, instance: str, scope: Sequence[str]) -> list[dict[str, Any]]:
    selector = c.instance_selector(instance)
    return [
        item
        for namespace in (tuple(scope) or (None,))
        for item in kube.list_all(r.WEBAPP, selector, namespace=namespace)
    ]


def _installed(scope: Sequence[str]) -> list[tuple[str, str | None, str]]:
    """driftctl's own objects, those that run first gone already, the namespace last."""
    roles = [(kind, ns, NAME) for ns in scope for kind in ("RoleBinding", "Role")]
    return [
        ("ConfigMap", NAMESPACE, SETTINGS),
        ("RoleBinding", NAMESPACE, "driftctl-lock"),
        ("Role", NAMESPACE, "driftctl-lock"),
        ("ClusterRoleBinding", None, NAME),
        ("ClusterRole", None, NAME),
        ("ClusterRoleBinding", None, CRD_READER),
        ("ClusterRole", None, CRD_READER),
        *roles,
        ("ServiceAccount", NAMESPACE, NAME),
        ("Namespace", None, NAMESPACE),
    ]


@dataclass
class _Steps:
    """Each write of an uninstall, said as it happens (or, in a dry run, instead)."""

    kube: Kube
    dry_run: bool
    say: Say

    def said(self, line: str) -> None:
        """`line`, marked when nothing was done."""
        self.say(f"{line} (dry run)" if self.dry_run else line)

    _done = said

    def delete(self, kind: str, namespace: str | None, name: str, *, wait: bool) -> None:
        found = self.kube.send_unless_missing(r.get_object(kind, namespace, name))
        if found is None:
            return
        shown = f"{kind}/{namespace}/{name}" if namespace else f"{kind}/{name}"
        if not self.dry_run:
            propagation = "Foreground" if wait else "Background"
            self.kube.send_unless_missing(
                r.delete_object(kind, namespace, name, propagation=propagation)
            )
            if wait:
                _until(self.kube, lambda: self._gone(kind, namespace, name), f"{shown} to go")
        self._done(f"deleted {shown}")

    def _gone(self, kind: str, namespace: str | None, name: str) -> bool:
        return self.kube.send_unless_missing(r.get_object(kind, namespace, name)) is None

    def release(self, webapp: dict[str, Any]) -> None:
        patch = remove_patch(webapp)
        key = key_of(webapp)
        if patch is None:
            return
        if not self.dry_run:
            request = r.json_patch(r.WEBAPP, key.namespace, key.name, patch, MANAGER)
            self.kube.send_unless_missing(request)
        self._done(f"released {key.display}")

    def delete_webapp(self, webapp: dict[str, Any], propagation: str) -> None:
        key = key_of(webapp)
        if not self.dry_run:
            body = delete_body(webapp, with_resource_version=False, propagation=propagation)
            self.kube.send_unless_missing(r.delete(r.WEBAPP, key.namespace, key.name, body))
        self._done(f"deleted {key.display}")

    def until_gone(self, webapps: Sequence[dict[str, Any]]) -> None:
        """Until the WebApps deleted are gone (in the foreground: their Deployments first)."""
        if self.dry_run:
            return
        for key in map(key_of, webapps):
            _until(self.kube, partial(self._webapp_gone, key), f"{key.display} to go")

    def _webapp_gone(self, key: ObjectKey) -> bool:
        return self.kube.send_unless_missing(r.get(r.WEBAPP, key.namespace, key.name)) is None

    def delete_crd(self) -> None:
        """The CRD, only once no WebApp of any instance is left: its deletion deletes them."""
        left = self.kube.send(r.list_page(r.WEBAPP, "", page_size=1)).get("items") or []
        if left and not self.dry_run:
            key = key_of({"kind": c.KIND, **left[0]})
            raise UsageError(
                f"the CRD is kept: WebApps of other instances are left ({key.display}...)",
                hint="deleting the CRD would delete them and their Deployments; delete them "
                "first, or keep the CRD",
            )
        self.delete("CustomResourceDefinition", None, c.CRD_NAME, wait=True)
