"""WebApps and Deployments as tests build them, in each form driftctl meets them.

- `webapp`, `webapps_yaml`: documents as Git holds them (YAML text);
- `app`: a WebApp as the core models it (what validation makes of a document);
- `captured_webapp`, `captured_deployment`: web/shop as a real API server returned it
  (tests/unit/golden/objects/), with the part a test varies replaced;
- `live_webapp`, `live_deployment`: the same captures with readable uids (`uid-<name>`),
  so that a test can say which WebApp controls a Deployment;
- `status_webapp`, `status_deployment`: only what a WebApp's status is made from;
- `other_selector_deployment`: a Deployment driftctl would never build (its selector).

A builder takes what its callers vary and nothing more; an object built for one module's
subject alone (a finalizer table, a watch event, a prune guard) stays in that module.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from driftctl import conventions as c
from driftctl.core.source.model import WebApp, WebAppSpec
from tests.support.goldens import load_object

if TYPE_CHECKING:
    from tests.support.harness import Harness

Obj = dict[str, Any]
REVISION = "1" * 40  # the commit status_webapp was applied at


def webapp(
    name: str,
    image: str = "nginx:1.27",
    replicas: int = 2,
    *,
    namespace: str | None = None,
    annotations: Mapping[str, str] | None = None,
) -> str:
    """A valid WebApp document; its namespace is left to --namespace unless given."""
    lines = ["apiVersion: example.com/v1", "kind: WebApp", "metadata:", f"  name: {name}"]
    if namespace is not None:
        lines.append(f"  namespace: {namespace}")
    if annotations:
        lines.append("  annotations:")
        lines += [f"    {key}: {json.dumps(value)}" for key, value in annotations.items()]
    lines += ["spec:", f"  image: {image}", f"  replicas: {replicas}"]
    return "\n".join(lines) + "\n"


def webapps_yaml(apps: Mapping[str, tuple[str, int]]) -> str:
    """A multi-document file of WebApps: name -> (image, replicas)."""
    return "---\n".join(webapp(name, image, replicas) for name, (image, replicas) in apps.items())


def app(
    name: str,
    image: str = "nginx:1.27",
    replicas: int = 1,
    *,
    namespace: str = "web",
    labels: Mapping[str, str] | None = None,
    annotations: Mapping[str, str] | None = None,
) -> WebApp:
    """A desired WebApp, as validation makes it of a document."""
    spec = WebAppSpec(image, replicas)
    return WebApp(name, namespace, spec, labels=labels or {}, annotations=annotations or {})


def captured_webapp(*, labels: Mapping[str, str] | None = None) -> Obj:
    """WebApp web/shop as captured, applied by driftctl; `labels` replace its labels."""
    obj = load_object({"$ref": "webapp-shop.json"})
    if labels is not None:
        obj["metadata"]["labels"] = dict(labels)
    return obj


def captured_deployment(
    *,
    replicas: int | None = None,
    labels: Mapping[str, str] | None = None,
    owners: Sequence[Obj] | None = None,
) -> Obj:
    """Deployment web/shop as captured, controlled by the captured WebApp; `replicas`,
    `labels` and `owners` (its ownerReferences) replace what it has."""
    obj = load_object({"$ref": "deployment-shop.json"})
    if replicas is not None:
        obj["spec"]["replicas"] = replicas
    if labels is not None:
        obj["metadata"]["labels"] = dict(labels)
    if owners is not None:
        obj["metadata"]["ownerReferences"] = list(owners)
    return obj


def live_webapp(name: str = "shop") -> Obj:
    """The captured WebApp under `name`, with the uid `uid-<name>`."""
    obj = captured_webapp()
    obj["metadata"]["name"] = name
    obj["metadata"]["uid"] = f"uid-{name}"
    return obj


def live_deployment() -> Obj:
    """The captured Deployment, controlled by live_webapp("shop") (uid `uid-shop`)."""
    obj = captured_deployment()
    obj["metadata"]["ownerReferences"][0]["uid"] = "uid-shop"
    managed = obj["metadata"]["managedFields"][0]["fieldsV1"]["f:metadata"]
    managed["f:ownerReferences"] = {'k:{"uid":"uid-shop"}': {}}
    return obj


def status_webapp(replicas: int = 3, status: Obj | None = None) -> Obj:
    """WebApp web/shop at generation 4, applied at REVISION, with `status` if given."""
    obj: Obj = {
        "apiVersion": c.API_VERSION,
        "kind": c.KIND,
        "metadata": {
            "name": "shop",
            "namespace": "web",
            "generation": 4,
            "annotations": {c.REVISION_ANNOTATION: REVISION},
        },
        "spec": {"image": "nginx:1.27", "replicas": replicas},
    }
    if status is not None:
        obj["status"] = status
    return obj


def status_deployment(
    available: int | None,
    observed: int = 2,
    conditions: list[Any] | None = None,
    *,
    replicas: int = 3,
    updated: int | None = None,
    total: int | None = None,
) -> Obj:
    """A Deployment of `replicas` at generation 2 as far as a WebApp's status reads it: its
    status, where `updated` (default: all of them) run the latest template and `total`
    (default: the updated ones) are counted, old ones included."""
    updated = replicas if updated is None else updated
    status: Obj = {
        "observedGeneration": observed,
        "conditions": conditions or [],
        "updatedReplicas": updated,
        "replicas": updated if total is None else total,
    }
    if available is not None:
        status["availableReplicas"] = available
    return {
        "kind": "Deployment",
        "metadata": {"generation": 2},
        "spec": {"replicas": replicas},
        "status": status,
    }


def other_selector_deployment(harness: Harness, owner_uid: str) -> Obj:
    """A Deployment with this instance's labels but a selector driftctl would not build."""
    labels = {"app": "shop-legacy"}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": "shop",
            "namespace": harness.namespace,
            "labels": {c.INSTANCE_LABEL: harness.instance, c.MANAGED_BY_LABEL: c.MANAGED_BY_VALUE},
            "ownerReferences": [
                {
                    "apiVersion": c.API_VERSION,
                    "kind": c.KIND,
                    "name": "shop",
                    "uid": owner_uid,
                    "controller": True,
                }
            ],
        },
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}]},
            },
        },
    }
