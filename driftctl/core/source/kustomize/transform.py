"""The transformers of one kustomization, in kustomize's own order: (patches,) namespace,
name prefix, name suffix, labels, annotations, replicas, images.

A WebApp is a kind kustomize does not know, so its label, annotation, prefix and namespace
transformers touch only metadata there; `replicas` and `images` only reach it through a
transformer configuration (configuration.py). Pure: resources are changed in place, and a
problem (a `replicas` entry nothing matches, as kustomize refuses it) is returned.
"""

from __future__ import annotations

from collections.abc import Sequence

from driftctl.core.source.kustomize.configuration import BUILT_IN_REPLICA_KINDS, Configuration
from driftctl.core.source.kustomize.fields import Image, Kustomization, Pairs, Replica
from driftctl.core.source.kustomize.resources import Resource
from driftctl.errors import Problem


def transform(
    kustomization: Kustomization, resources: Sequence[Resource], configuration: Configuration
) -> list[Problem]:
    """Apply the kustomization's transformers (after its patches) to `resources`."""
    # kustomize remembers each name and namespace a resource had, one per transformer: a
    # patch or replicas entry further up matches any of them.
    if kustomization.namespace is not None and kustomization.namespace.value:
        namespace = kustomization.namespace
        for resource in resources:
            resource.set(("metadata", "namespace"), namespace.value, namespace.at)
            resource.renamed()
    for affix in (kustomization.prefix, kustomization.suffix):
        if affix is not None and affix.value:
            before = affix is kustomization.prefix
            for resource in resources:
                name = affix.value + resource.name if before else resource.name + affix.value
                resource.set(("metadata", "name"), name, affix.at)
                resource.renamed()
    _pairs(resources, "labels", kustomization.labels)
    _pairs(resources, "annotations", kustomization.annotations)
    problems = [
        problem
        for replica in kustomization.replicas
        if (problem := _replicas(replica, resources, configuration)) is not None
    ]
    for image in kustomization.images:
        _images(image, resources, configuration)
    return problems


def _pairs(resources: Sequence[Resource], field: str, sets: Sequence[Pairs]) -> None:
    for pairs in sets:
        for resource in resources:
            held = resource.metadata.get(field)
            if not isinstance(held, dict):
                held = resource.metadata[field] = {}
            for key, text in pairs.items:
                held[key] = text.value
                resource.origins["metadata", field, key] = text.at


def _replicas(
    replica: Replica, resources: Sequence[Resource], configuration: Configuration
) -> Problem | None:
    found = False
    for resource in resources:
        if all(name != replica.name for name, _ns in resource.ids):
            continue
        for spec in configuration.replicas:
            if spec.matches(resource.body):
                resource.set(spec.path, replica.count, replica.at)
                found = True
    if found:
        return None
    kinds = BUILT_IN_REPLICA_KINDS + "".join(
        f" {spec.kind}.[noVer].[noGrp]" for spec in configuration.replicas
    )
    reason = (
        f"replicas: resource with name {replica.name} does not match a config with the "
        f"following GVK [{kinds}] (list driftctl's WebApp configuration under configurations)"
    )
    return Problem(*replica.at, reason)


def _images(image: Image, resources: Sequence[Resource], configuration: Configuration) -> None:
    written = [text.at for text in (image.digest, image.new_tag, image.new_name) if text]
    if not written:
        return  # a name alone changes nothing
    for resource in resources:
        for spec in configuration.images:
            if not spec.matches(resource.body):
                continue
            value = _at(resource, spec.path)
            if isinstance(value, str) and (changed := retagged(value, image)) is not None:
                resource.set(spec.path, changed, written[0])


def _at(resource: Resource, path: tuple[str, ...]) -> object:
    value: object = resource.body
    for key in path:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def split_image(image: str) -> tuple[str, str, str]:
    """An image reference as kustomize splits it: name, `:tag` and `@digest` (each may be '')."""
    name, at, digest = image.partition("@")
    slash = name.rfind("/")
    colon = name.rfind(":")
    tag = ""
    if colon > slash:
        name, tag = name[:colon], name[colon:]
    return name, tag, at + digest


def retagged(value: str, image: Image) -> str | None:
    """`value` with the `images` entry applied, or None when it names another image."""
    name, tag, digest = split_image(value)
    if name != image.name:
        return None
    if image.new_name is not None:
        name = image.new_name.value
    if image.new_tag is not None:
        tag = f":{image.new_tag.value}"
        digest = "" if image.digest is None else digest
    if image.digest is not None:
        digest = f"@{image.digest.value}"
        tag = tag if image.new_tag is not None else ""
    return name + tag + digest
