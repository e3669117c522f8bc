"""Sequencing of `driftctl install` and `driftctl uninstall`.

`install` applies core.installation's objects with server-side apply (field manager
`driftctl-install`), in order, and waits for the CRD to be established before the rest.
First it says which cluster-scoped objects it found (applied again: the namespace and the
ClusterRoles are shared with the other instances, which it names), and a shared ClusterRole
grants what the other instances' forms need too.
`uninstall` takes one instance down as docs/how-to/upgrade-and-uninstall.md does: its runs
stopped first (its CronJob or operator Deployment deleted, its Pods with it), then the
finalizers of its WebApps released (each JSON Patch `test`s that the entry is still
driftctl's), then, if asked, its WebApps deleted (their Deployments go with them; when the
CRD goes too, in the foreground, waited for), then what it alone uses (its settings,
account, bindings, Leases and notification records), then what the instances share (the
ClusterRoles, the namespace) only when no other instance's Lease or workload is left (else
it says who keeps them), then, if asked and if no WebApp of any instance is left, the CRD.
`everything`: every instance found is taken down so, then what they share; a person at a
terminal is asked first (`confirm`). With `dry_run`, nothing is written: each line says what
would be done. Decides nothing about WebApps; says each step through `say`.
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
    NAME,
    NAMESPACE,
    SHARED,
    Installation,
    Names,
    is_workload,
    manifests,
    object_name,
)
from driftctl.core.installed_settings import scope_of
from driftctl.core.planning.finalizers import remove_patch
from driftctl.core.planning.guards import delete_body
from driftctl.core.planning.objects import ObjectKey, key_of
from driftctl.core.source.crd import webapp_crd
from driftctl.errors import ClusterError, Declined, UsageError
from driftctl.pipeline.runs import Notice, open_cluster
from driftctl.settings import Cluster, Removal
from driftctl.settings.install import Form
from driftctl.shell.kube import Kube

MANAGER = "driftctl-install"
POLL_SECONDS = 0.5
Say = Callable[[str], None]


def rendered(installation: Installation) -> list[dict[str, Any]]:
    """What `install` applies, in order (its --dry-run prints this)."""
    return manifests(installation, webapp_crd())


def install(installation: Installation, cluster: Cluster, *, notice: Notice, say: Say) -> None:
    """The `install` command: say which cluster-scoped objects are there already, apply the
    CRD, wait until it is established, apply the rest."""
    kube = open_cluster(cluster, notice)
    beside = _instances_beside(kube, installation.names)
    forms = frozenset(form for each in beside.values() for form in each.forms)
    objects = manifests(installation, webapp_crd(), forms)
    found = [
        object_name(obj)
        for obj in objects
        if "namespace" not in obj["metadata"]
        and kube.send_unless_missing(
            r.get_object(obj["kind"], None, obj["metadata"]["name"])
            if obj["kind"] != "CustomResourceDefinition"
            else r.get_crd(obj["metadata"]["name"])
        )
        is not None
    ]
    if found:
        shared = f"; shared with {_who(beside)}" if beside else ""
        say(f"found {', '.join(found)}: applied again{shared}")
    for obj in objects:
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


@dataclass
class _Instance:
    """Another instance installed or run here, as found: its forms, and what shows it."""

    forms: set[Form]
    shown_by: list[str]


def _instances_beside(kube: Kube, names: Names) -> dict[str, _Instance]:
    """The other instances of the lock namespace: those whose CronJob or Deployment is
    there (its Pods labelled app.kubernetes.io/name=driftctl: the operator's Deployment
    has no label of its own), or whose Lease (a run took its lock there)."""
    found: dict[str, _Instance] = {}
    for kind, form in (("CronJob", Form.CRONJOB), ("Deployment", Form.OPERATOR)):
        for obj in kube.list_all(r.INSTALLED_KINDS[kind], "", namespace=NAMESPACE):
            name = obj["metadata"]["name"]
            instance = c.DEFAULT_INSTANCE if name == NAME else name.removeprefix(f"{NAME}-")
            if name != names.workload and is_workload(obj):
                each = found.setdefault(instance, _Instance(set(), []))
                each.forms.add(form)
                each.shown_by.append(f"{kind}/{NAMESPACE}/{name}")
    selector = f"{c.MANAGED_BY_LABEL}={c.MANAGED_BY_VALUE},{c.INSTANCE_LABEL}!={names.instance}"
    for lease in kube.list_all(r.LEASE, selector, namespace=NAMESPACE):
        meta = lease["metadata"]
        instance = (meta.get("labels") or {}).get(c.INSTANCE_LABEL)
        if instance:
            each = found.setdefault(instance, _Instance(set(), []))
            each.shown_by.append(f"Lease/{NAMESPACE}/{meta['name']}")
    return dict(sorted(found.items()))


def _who(beside: dict[str, _Instance]) -> str:
    """`instance b (CronJob/driftctl-system/driftctl-b, Lease/...)`, for each."""
    named = [f"{name} ({', '.join(each.shown_by)})" for name, each in beside.items()]
    return ("instance " if len(named) == 1 else "instances ") + "; ".join(named)


def uninstall(
    cluster: Cluster,
    removal: Removal,
    *,
    dry_run: bool,
    notice: Notice,
    say: Say,
    everything: bool = False,
    confirm: Callable[[str], bool] | None = None,
) -> None:
    """The `uninstall` command (module docstring)."""
    kube = open_cluster(cluster, notice)
    step = _Steps(kube, dry_run, say)
    instances = [cluster.instance]
    if everything:
        instances += list(_instances_beside(kube, Names(cluster.instance)))
        question = (
            f"Take away every driftctl instance here ({', '.join(sorted(instances))}), and "
            f"what they share ({', '.join(_shown(*each) for each in SHARED)})?"
        )
        if confirm is not None and not dry_run and not confirm(question):
            raise Declined("nothing was taken away: the answer was no")
    for instance in instances:
        _take_down(kube, step, cluster, Names(instance), removal)
    beside = {} if everything else _instances_beside(kube, Names(cluster.instance))
    for kind, namespace, name in SHARED:
        if not beside:
            step.delete(kind, namespace, name, wait=kind == "Namespace")
        elif step.exists(kind, namespace, name):
            step.said(f"kept {_shown(kind, namespace, name)}: shared with {_who(beside)}")
    if removal.crd:
        step.delete_crd()


def _take_down(kube: Kube, step: _Steps, cluster: Cluster, names: Names, removal: Removal) -> None:
    """One instance: its runs stopped, its WebApps released (deleted if asked), then what it
    alone uses: its objects, its Leases and notification records."""
    settings = kube.send_unless_missing(r.get_object("ConfigMap", NAMESPACE, names.settings))
    scope = scope_of((settings or {}).get("data") or {})
    for kind in ("CronJob", "Deployment"):
        step.delete(kind, NAMESPACE, names.workload, wait=True)
    webapps = _webapps(kube, names.instance, scope or cluster.namespaces)
    for webapp in webapps:
        step.release(webapp)
    step.said(f"{len(webapps)} WebApps of instance {names.instance} released")
    if removal.webapps:
        # The CRD deleted next, the garbage collector could no longer look their owners up:
        # their Deployments would stay. So, then, they go first, the WebApps waiting for them.
        propagation = "Foreground" if removal.crd else "Background"
        for webapp in webapps:
            step.delete_webapp(webapp, propagation)
        if removal.crd:
            step.until_gone(webapps)
    for kind, namespace, name in names.own(scope):
        step.delete(kind, namespace, name, wait=False)
    records = f"{c.MANAGED_BY_LABEL}={c.MANAGED_BY_VALUE},{c.instance_selector(names.instance)}"
    for kind in ("Lease", "ConfigMap"):
        listed = kube.list_all(r.INSTALLED_KINDS[kind], records, namespace=NAMESPACE)
        for obj in sorted(listed, key=lambda each: str(each["metadata"]["name"])):
            step.delete(kind, NAMESPACE, obj["metadata"]["name"], wait=False)


def _shown(kind: str, namespace: str | None, name: str) -> str:
    return f"{kind}/{namespace}/{name}" if namespace else f"{kind}/{name}"


def _webapps(kube: Kube, instance: str, scope: Sequence[str]) -> list[dict[str, Any]]:
    selector = c.instance_selector(instance)
    return [
        item
        for namespace in (tuple(scope) or (None,))
        for item in kube.list_all(r.WEBAPP, selector, namespace=namespace)
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

    def exists(self, kind: str, namespace: str | None, name: str) -> bool:
        return self.kube.send_unless_missing(r.get_object(kind, namespace, name)) is not None

    def delete(self, kind: str, namespace: str | None, name: str, *, wait: bool) -> None:
        if not self.exists(kind, namespace, name):
            return
        shown = _shown(kind, namespace, name)
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
