"""Every request driftctl makes to the API server, built as a value.

Pure: paths, query parameters and bodies are decided here, and shell.kube sends them.
Because each operation is one request value, request counts are exact and testable.
Server-side apply never carries a resourceVersion: Git is the source of truth (`force`).
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from driftctl import conventions as c
from driftctl.kube_formats import api_time

APPLY = "application/apply-patch+yaml"
JSON_PATCH = "application/json-patch+json"
JSON = "application/json"
PAGE_SIZE = 500


@dataclass(frozen=True)
class Request:
    """One HTTP request to the API server."""

    method: str
    path: str
    query: tuple[tuple[str, str], ...] = ()
    body: bytes | None = None
    content_type: str | None = None
    what: str = ""  # how errors name the request: "apply WebApp/ns/name"


@dataclass(frozen=True)
class Kind:
    """Where a kind lives in the API: group/version prefix and plural."""

    kind: str
    prefix: str  # "/apis/apps/v1" or "/api/v1"
    plural: str
    namespaced: bool = True

    def collection(self, namespace: str | None = None) -> str:
        if namespace is None or not self.namespaced:
            return f"{self.prefix}/{self.plural}"
        return f"{self.prefix}/namespaces/{quote(namespace, safe='')}/{self.plural}"

    def item(self, namespace: str, name: str) -> str:
        return f"{self.collection(namespace)}/{quote(name, safe='')}"


WEBAPP = Kind(c.KIND, f"/apis/{c.GROUP}/{c.VERSION}", c.PLURAL)
DEPLOYMENT = Kind(c.DEPLOYMENT_KIND, "/apis/apps/v1", "deployments")
LEASE = Kind("Lease", "/apis/coordination.k8s.io/v1", "leases")
EVENT = Kind("Event", "/api/v1", "events")
AUTOSCALER = Kind(c.AUTOSCALER_KIND, "/apis/autoscaling/v2", "horizontalpodautoscalers")
REPLICASET = Kind("ReplicaSet", "/apis/apps/v1", "replicasets")  # a rollout's (shell.rollouts)
POD = Kind("Pod", "/api/v1", "pods")
CONFIGMAP = Kind("ConfigMap", "/api/v1", "configmaps")  # what notifications last told
KINDS = {
    kind.kind: kind for kind in (WEBAPP, DEPLOYMENT, LEASE, EVENT, AUTOSCALER, REPLICASET, POD)
}
CRD = Kind(
    "CustomResourceDefinition",
    "/apis/apiextensions.k8s.io/v1",
    "customresourcedefinitions",
    namespaced=False,
)


def _json(body: Any) -> bytes:
    return json.dumps(body, separators=(",", ":")).encode()


def _ref(manifest: Mapping[str, Any]) -> tuple[Kind, str, str]:
    meta = manifest["metadata"]
    return KINDS[manifest["kind"]], meta["namespace"], meta["name"]


def list_page(
    kind: Kind,
    selector: str,
    continue_token: str | None = None,
    page_size: int = PAGE_SIZE,
    namespace: str | None = None,
    *,
    name: str | None = None,
) -> Request:
    """One page of a LIST, cluster-wide or in one namespace, limited by a label selector
    (none when `selector` is empty), and to one name when `name` is given (answered from
    the API server's cache by that one key, without walking the namespace)."""
    query: list[tuple[str, str]] = [("labelSelector", selector)] if selector else []
    if name is not None:
        query.append(("fieldSelector", f"metadata.name={name}"))
    query.append(("limit", str(page_size)))
    if continue_token:
        query.append(("continue", continue_token))
    what = f"list {kind.plural}" + (f" named {name}" if name else "")
    what += f" in namespace {namespace}" if namespace else ""
    return Request("GET", kind.collection(namespace), tuple(query), what=what)


def watch(
    kind: Kind,
    selector: str,
    resource_version: str,
    namespace: str | None = None,
    timeout_seconds: int = 300,
) -> Request:
    """A WATCH from `resource_version` (a LIST's), with bookmarks, limited by a label
    selector; the server ends it after `timeout_seconds` and the watcher starts another."""
    query: list[tuple[str, str]] = [("labelSelector", selector)] if selector else []
    query += [
        ("watch", "1"),
        ("allowWatchBookmarks", "true"),
        ("resourceVersion", resource_version),
        ("timeoutSeconds", str(timeout_seconds)),
    ]
    what = f"watch {kind.plural}" + (f" in namespace {namespace}" if namespace else "")
    return Request("GET", kind.collection(namespace), tuple(query), what=what)


def streamed_list(
    kind: Kind, selector: str, namespace: str | None = None, timeout_seconds: int = 300
) -> Request:
    """A whole LIST as one WATCH (sendInitialEvents): each object an ADDED event from the API
    server's watch cache, at a revision no older than the newest, then a bookmark that
    marks their end (`end_of_initial_events`). Unlike a paged LIST's continue pages, none of
    it is read from etcd, whenever etcd last compacted. `timeout_seconds` bounds the whole
    answer; the reader stops at that bookmark."""
    query: list[tuple[str, str]] = [("labelSelector", selector)] if selector else []
    query += [
        ("watch", "1"),
        ("sendInitialEvents", "true"),
        ("resourceVersionMatch", "NotOlderThan"),
        ("allowWatchBookmarks", "true"),
        ("timeoutSeconds", str(timeout_seconds)),
    ]
    what = f"list {kind.plural}" + (f" in namespace {namespace}" if namespace else "")
    return Request("GET", kind.collection(namespace), tuple(query), what=what)


def apply(
    manifest: Mapping[str, Any], manager: str, *, dry_run: bool = False, status: bool = False
) -> Request:
    """Server-side apply of a whole manifest (or of its status through the subresource).

    The API server is asked not to look for unknown or duplicate fields (fieldValidation
    Ignore): driftctl builds every manifest it applies from a WebApp it validated, unknown
    fields refused, and reads no Warning header, so the check changed nothing it reports
    and cost the server about a tenth of a cold apply's CPU (docs/development/benchmarks.md).
    A dry-run and its apply carry the same query, so the plan is still what apply does."""
    kind, namespace, name = _ref(manifest)
    query = [("fieldManager", manager), ("force", "true"), ("fieldValidation", "Ignore")]
    if dry_run:
        query.append(("dryRun", "All"))
    path = kind.item(namespace, name) + ("/status" if status else "")
    verb = ("dry-run " if dry_run else "") + ("apply status of" if status else "apply")
    return Request(
        "PATCH",
        path,
        tuple(query),
        _json(manifest),
        APPLY,
        f"{verb} {c.object_ref(kind.kind, namespace, name)}",
    )


def delete(kind: Kind, namespace: str, name: str, options: Mapping[str, Any]) -> Request:
    """A delete with DeleteOptions (core.planning.guards.delete_body: uid/version preconditions)."""
    return Request(
        "DELETE",
        kind.item(namespace, name),
        (),
        _json(options),
        JSON,
        f"delete {c.object_ref(kind.kind, namespace, name)}",
    )


def json_patch(
    kind: Kind,
    namespace: str,
    name: str,
    operations: Sequence[Mapping[str, Any]],
    manager: str,
    *,
    dry_run: bool = False,
) -> Request:
    """An RFC 6902 patch (content type set explicitly: the client's default is merge-patch)."""
    query = [("fieldManager", manager)] + ([("dryRun", "All")] if dry_run else [])
    verb = "dry-run patch" if dry_run else "patch"
    return Request(
        "PATCH",
        kind.item(namespace, name),
        tuple(query),
        _json(list(operations)),
        JSON_PATCH,
        f"{verb} {c.object_ref(kind.kind, namespace, name)}",
    )


def get(kind: Kind, namespace: str, name: str) -> Request:
    return Request(
        "GET", kind.item(namespace, name), what=f"get {c.object_ref(kind.kind, namespace, name)}"
    )


# What `driftctl install` applies besides the kinds above (core.installation), and the
# records of an instance `driftctl uninstall` deletes (its Leases).
INSTALLED_KINDS = {
    kind.kind: kind
    for kind in (
        Kind("Namespace", "/api/v1", "namespaces", namespaced=False),
        Kind("ServiceAccount", "/api/v1", "serviceaccounts"),
        Kind("ConfigMap", "/api/v1", "configmaps"),
        Kind("Role", "/apis/rbac.authorization.k8s.io/v1", "roles"),
        Kind("RoleBinding", "/apis/rbac.authorization.k8s.io/v1", "rolebindings"),
        Kind("ClusterRole", "/apis/rbac.authorization.k8s.io/v1", "clusterroles", False),
        Kind(
            "ClusterRoleBinding", "/apis/rbac.authorization.k8s.io/v1", "clusterrolebindings", False
        ),
        Kind("CronJob", "/apis/batch/v1", "cronjobs"),
        DEPLOYMENT,
        CRD,
        LEASE,
    )
}


def _installed_path(kind: str, namespace: str | None, name: str) -> str:
    where = INSTALLED_KINDS[kind]
    return f"{where.collection(namespace)}/{quote(name, safe='')}"


def _shown(kind: str, namespace: str | None, name: str) -> str:
    return f"{kind}/{namespace}/{name}" if namespace else f"{kind}/{name}"


def apply_object(manifest: Mapping[str, Any], manager: str, *, dry_run: bool = False) -> Request:
    """Server-side apply of one object of driftctl's installation (any of INSTALLED_KINDS)."""
    meta = manifest["metadata"]
    kind, namespace, name = manifest["kind"], meta.get("namespace"), meta["name"]
    query = [("fieldManager", manager), ("force", "true")] + (
        [("dryRun", "All")] if dry_run else []
    )
    verb = "dry-run apply" if dry_run else "apply"
    return Request(
        "PATCH",
        _installed_path(kind, namespace, name),
        tuple(query),
        _json(manifest),
        APPLY,
        f"{verb} {_shown(kind, namespace, name)}",
    )


def get_object(kind: str, namespace: str | None, name: str) -> Request:
    """One object of driftctl's installation (any of INSTALLED_KINDS)."""
    return Request(
        "GET", _installed_path(kind, namespace, name), what=f"get {_shown(kind, namespace, name)}"
    )


def delete_object(
    kind: str, namespace: str | None, name: str, *, propagation: str = "Background"
) -> Request:
    """Delete one object of driftctl's installation; `Foreground`: its dependents first (a
    CronJob's Jobs and Pods)."""
    return Request(
        "DELETE",
        _installed_path(kind, namespace, name),
        (),
        _json({"apiVersion": "v1", "kind": "DeleteOptions", "propagationPolicy": propagation}),
        JSON,
        f"delete {_shown(kind, namespace, name)}",
    )


def server_version() -> Request:
    """The API server's build (`kubectl version`'s Server Version)."""
    return Request("GET", "/version", what="get the API server's version")


def get_crd(name: str = c.CRD_NAME) -> Request:
    """The installed CustomResourceDefinition (cluster-scoped): its schema says what a run
    may write (core.planning.installed_crd)."""
    return Request("GET", f"{CRD.collection()}/{quote(name, safe='')}", what=f"get CRD {name}")


_REVIEWS = "/apis/authorization.k8s.io/v1"


def access_review(body: Mapping[str, Any]) -> Request:
    """A SubjectAccessReview or SelfSubjectAccessReview (authorization.k8s.io/v1): whether
    an account may do one thing; the answer's status.allowed says (`doctor`)."""
    kind = str(body["kind"])
    attributes = body["spec"].get("resourceAttributes") or {}
    what = " ".join(
        str(attributes.get(key, "")) for key in ("verb", "resource") if key in attributes
    )
    return Request(
        "POST", f"{_REVIEWS}/{kind.lower()}s", (), _json(body), JSON, f"ask ({kind}) {what}"
    )


def create(kind: Kind, namespace: str, body: Mapping[str, Any], manager: str) -> Request:
    return Request(
        "POST",
        kind.collection(namespace),
        (("fieldManager", manager),),
        _json(body),
        JSON,
        f"create {kind.kind} in {namespace}",
    )


def event(
    about: Mapping[str, Any], reason: str, message: str, *, warning: bool, now: datetime.datetime
) -> Request:
    """A core/v1 Event about an object (a WebApp, or the run's Lease), as controllers
    record them: reason, message, type."""
    meta = about["metadata"]
    stamp = api_time(now)
    body = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"generateName": f"{meta['name']}.", "namespace": meta["namespace"]},
        "involvedObject": {
            "apiVersion": about.get("apiVersion", c.API_VERSION),
            "kind": about.get("kind", c.KIND),
            "namespace": meta["namespace"],
            "name": meta["name"],
            "uid": meta.get("uid", ""),
        },
        "reason": reason,
        "message": message[:1024],
        "type": "Warning" if warning else "Normal",
        "source": {"component": c.FIELD_MANAGER},
        "reportingComponent": c.FIELD_MANAGER,
        "firstTimestamp": stamp,
        "lastTimestamp": stamp,
        "count": 1,
    }
    return create(EVENT, meta["namespace"], body, c.FIELD_MANAGER)


def replace(
    kind: Kind, namespace: str, name: str, body: Mapping[str, Any], manager: str
) -> Request:
    """A PUT carrying the resourceVersion read before: optimistic concurrency (the lock)."""
    return Request(
        "PUT",
        kind.item(namespace, name),
        (("fieldManager", manager),),
        _json(body),
        JSON,
        f"update {c.object_ref(kind.kind, namespace, name)}",
    )


@dataclass(frozen=True)
class Page:
    """What a LIST page gave: its items and the token of the next page, if any."""

    items: list[dict[str, Any]] = field(default_factory=list)
    continue_token: str | None = None
    resource_version: str = ""  # of the list: a watch from it misses nothing


def read_page(body: Mapping[str, Any], kind: Kind) -> Page:
    """Items of a LIST answer, each with the apiVersion and kind the server leaves out."""
    api_version = kind.prefix.removeprefix("/apis/").removeprefix("/api/")
    items = [
        {"apiVersion": api_version, "kind": kind.kind, **item} for item in body.get("items") or []
    ]
    meta = body.get("metadata") or {}
    return Page(items, meta.get("continue") or None, str(meta.get("resourceVersion") or ""))


INITIAL_EVENTS_END = "k8s.io/initial-events-end"


def end_of_initial_events(event: Mapping[str, Any]) -> str | None:
    """The list's resourceVersion when `event` is the bookmark that ends a streamed list's
    objects (a watch from it misses nothing); None for any other event."""
    if event.get("type") != "BOOKMARK":
        return None
    meta = (event.get("object") or {}).get("metadata") or {}
    if (meta.get("annotations") or {}).get(INITIAL_EVENTS_END) != "true":
        return None
    return str(meta.get("resourceVersion") or "")


def listed_object(event: Mapping[str, Any], kind: Kind) -> dict[str, Any]:
    """The object of a streamed list's ADDED event, with the apiVersion and kind of `kind`
    (as `read_page` gives a page's items)."""
    api_version = kind.prefix.removeprefix("/apis/").removeprefix("/api/")
    return {"apiVersion": api_version, "kind": kind.kind, **(event.get("object") or {})}


def in_list_order(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Objects in the order a paged LIST gives them: by their key, namespace/name, as bytes."""
    return sorted(items, key=_storage_key)


def _storage_key(item: Mapping[str, Any]) -> bytes:
    meta = item.get("metadata") or {}
    return f"{meta.get('namespace') or ''}/{meta.get('name') or ''}".encode()
