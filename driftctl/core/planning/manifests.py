"""The manifests driftctl applies: the WebApp and its Deployment, built from the model.

Pure functions of a validated WebApp and the run's stamp. What they return is exactly the
set of fields driftctl owns through server-side apply; a field left out here is a field
driftctl gives up.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

from driftctl import conventions as c
from driftctl.core.planning.objects import Obj
from driftctl.core.source.desired_state import DesiredState
from driftctl.core.source.model import WebApp


@dataclass(frozen=True)
class Stamp:
    """What a run writes on every object it applies: its instance and where Git was read."""

    instance: str
    revision: str  # the commit SHA
    source: str  # "<url without credentials>#<path>"

    @classmethod
    def of(cls, desired: DesiredState, instance: str) -> Stamp:
        """What a run writes on every object it applies from `desired`."""
        return cls(instance, desired.revision.label, desired.revision.source)


def selector_labels(app: WebApp) -> dict[str, str]:
    """The labels a Deployment selects its pods by; immutable once the Deployment exists."""
    return {c.NAME_LABEL: app.name, c.SELECTOR_INSTANCE_LABEL: app.name}


def object_labels(app: WebApp, instance: str) -> dict[str, str]:
    """The labels on every object driftctl manages for this WebApp."""
    return {
        **app.labels,
        c.NAME_LABEL: app.name,
        c.MANAGED_BY_LABEL: c.MANAGED_BY_VALUE,
        c.INSTANCE_LABEL: instance,
    }


def webapp_manifest(app: WebApp, stamp: Stamp) -> Obj:
    """The WebApp as driftctl applies it: spec, labels, annotations and the cleanup finalizer."""
    return {
        "apiVersion": c.API_VERSION,
        "kind": c.KIND,
        "metadata": {
            "name": app.name,
            "namespace": app.namespace,
            "labels": object_labels(app, stamp.instance),
            "annotations": {
                **app.annotations,
                c.REVISION_ANNOTATION: stamp.revision,
                c.SOURCE_ANNOTATION: stamp.source,
            },
            "finalizers": [c.FINALIZER],
        },
        "spec": {"image": app.spec.image, "replicas": app.spec.replicas},
    }


def build_deployment(app: WebApp, instance: str, owner_uid: str) -> Obj:
    """The Deployment owned by a WebApp: same name, one container `app`, its replicas."""
    selector = selector_labels(app)
    return {
        "apiVersion": c.DEPLOYMENT_API_VERSION,
        "kind": c.DEPLOYMENT_KIND,
        "metadata": {
            "name": app.name,
            "namespace": app.namespace,
            "labels": {**object_labels(app, instance), **selector},
            "ownerReferences": [
                {
                    "apiVersion": c.API_VERSION,
                    "kind": c.KIND,
                    "name": app.name,
                    "uid": owner_uid,
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
        },
        "spec": {
            "replicas": app.spec.replicas,
            "selector": {"matchLabels": selector},
            "template": {
                "metadata": {"labels": dict(selector)},
                "spec": {"containers": [{"name": c.CONTAINER_NAME, "image": app.spec.image}]},
            },
        },
    }


def keeping_selector(manifest: Obj, live: Obj) -> Obj:
    """A Deployment manifest that keeps the live Deployment's selector (immutable), its Pod
    template labelled as the live template is for that selector and nothing more.

    The template is otherwise driftctl's: when Git's image and the live one agree, nothing in
    the template changes, so the Deployment keeps its ReplicaSet and no Pod restarts. How a
    Deployment made by another manager (the seed operator's `app=<name>`) is adopted.
    """
    selector = copy.deepcopy((live.get("spec") or {}).get("selector") or {})
    template = ((live.get("spec") or {}).get("template") or {}).get("metadata") or {}
    live_labels = template.get("labels") or {}
    keys = set(selector.get("matchLabels") or {}) | {
        str(term.get("key")) for term in selector.get("matchExpressions") or []
    }
    out = copy.deepcopy(manifest)
    out["spec"]["selector"] = selector
    out["spec"]["template"]["metadata"]["labels"] = {
        key: value for key, value in live_labels.items() if key in keys
    }
    return out


def selector_text(selector: Obj) -> str:
    """A label selector as kubectl writes one: `app=shop,tier in (web)`."""
    terms = [f"{key}={value}" for key, value in sorted((selector.get("matchLabels") or {}).items())]
    for term in selector.get("matchExpressions") or []:
        key, operator = term.get("key"), str(term.get("operator", ""))
        values = ",".join(str(value) for value in term.get("values") or [])
        if operator == "Exists":
            terms.append(str(key))
        elif operator == "DoesNotExist":
            terms.append(f"!{key}")
        else:
            terms.append(f"{key} {operator.lower()} ({values})")
    return ",".join(terms) or "(empty)"
