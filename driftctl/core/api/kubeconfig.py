"""Which API server a run talks to, and as whom: a kubeconfig read as kubectl reads it.

The shell hands in each kubeconfig file's parsed document, in KUBECONFIG's order, and the
context asked for; this module merges them by kubectl's rules (the first file to name a
cluster, user or context wins, and the first current-context; a relative file path is
relative to the file that wrote it) and says what the context means: an `Endpoint`. It
also says what an exec plugin's answer means (`exec_credential`) and where a Pod's
ServiceAccount is (`in_cluster`). Every refusal is a KubeconfigError that names the file
and the field. Nothing here reads a file or runs a plugin: shell.kube_credentials does.
"""

from __future__ import annotations

import base64
import binascii
import datetime
import json
import posixpath
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from driftctl.errors import ClusterError

EXEC_API_VERSIONS = (
    "client.authentication.k8s.io/v1",
    "client.authentication.k8s.io/v1beta1",
)
INTERACTIVE_MODES = ("Never", "IfAvailable", "Always")
SERVICE_ACCOUNT = "/var/run/secrets/kubernetes.io/serviceaccount"
HINT = "fix the kubeconfig, or pass --kubeconfig/--context (kubectl config view shows it)"


class KubeconfigError(ClusterError):
    """A kubeconfig driftctl cannot use, said with its file and field."""

    def __init__(self, message: str, *, hint: str | None = HINT) -> None:
        super().__init__(message, hint=hint)


@dataclass(frozen=True)
class Material:
    """A certificate, key or CA bundle: a file's path, or the bytes themselves."""

    path: str | None = None
    data: bytes | None = None


@dataclass(frozen=True)
class ExecPlugin:
    """A command that prints the credential (client.authentication.k8s.io ExecCredential)."""

    api_version: str
    command: str
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    interactive_mode: str = "IfAvailable"
    install_hint: str = ""
    cluster: Mapping[str, Any] | None = None  # given to it when provideClusterInfo is set
    cluster_ca_file: str | None = None  # the cluster's CA file, given to it as data


@dataclass(frozen=True)
class Impersonation:
    """Who the requests act as (kubectl's --as, --as-group, --as-uid; `as-user-extra`)."""

    user: str | None = None
    uid: str | None = None
    groups: tuple[str, ...] = ()
    extra: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def __bool__(self) -> bool:
        return bool(self.user or self.uid or self.groups or self.extra)


@dataclass(frozen=True)
class Endpoint:
    """One API server and the credential to use there (at most one way to authenticate,
    besides a client certificate)."""

    server: str
    source: str  # the kubeconfig files, or the Pod's ServiceAccount: for messages
    certificate_authority: Material | None = None
    insecure: bool = False
    tls_server_name: str | None = None
    proxy_url: str | None = None
    client_certificate: Material | None = None
    client_key: Material | None = None
    token: str | None = None
    token_file: str | None = None  # read again as it changes (a projected token rotates)
    basic: tuple[str, str] | None = None
    exec_plugin: ExecPlugin | None = None
    auth_provider: Mapping[str, Any] | None = None  # legacy (oidc, gcp): the client's own
    impersonation: Impersonation = field(default_factory=Impersonation)


@dataclass(frozen=True)
class ExecCredential:
    """What an exec plugin answered: a token, or a client certificate and key; until when."""

    token: str | None
    certificate: bytes | None
    key: bytes | None
    expires: datetime.datetime | None

    def expired(self, now: datetime.datetime, margin: float = 10.0) -> bool:
        return self.expires is not None and now + datetime.timedelta(seconds=margin) >= self.expires


@dataclass
class _Merged:
    """The kubeconfig files as one: each name's entry and the file that wrote it."""

    where: str
    current_context: str | None = None
    sections: dict[str, dict[str, tuple[Mapping[str, Any], str]]] = field(default_factory=dict)

    def entry(self, section: str, name: str) -> tuple[Mapping[str, Any], str] | None:
        return self.sections.get(section, {}).get(name)

    def names(self, section: str) -> list[str]:
        return list(self.sections.get(section, {}))


_SECTIONS = {"clusters": "cluster", "users": "user", "contexts": "context"}


def resolve(files: Sequence[tuple[str, Any]], context: str | None) -> Endpoint:
    """The Endpoint of `context` (or the current one) in the files, each (path, document)."""
    merged = _merge(files)
    name = context or merged.current_context
    if not name:
        raise KubeconfigError(
            f"kubeconfig {merged.where} sets no current-context",
            hint="pass --context, or choose one: kubectl config use-context NAME",
        )
    found = merged.entry("contexts", name)
    if found is None:
        names = merged.names("contexts")
        raise KubeconfigError(
            f"kubeconfig {merged.where} has no context {name!r}",
            hint=f"its contexts: {', '.join(names) or 'none'} (kubectl config get-contexts)",
        )
    chosen, chosen_in = found
    cluster_name = _text(chosen, "cluster", chosen_in, f"context {name!r}")
    if not cluster_name:
        raise KubeconfigError(f"kubeconfig {chosen_in}: context {name!r} names no cluster")
    cluster = merged.entry("clusters", cluster_name)
    if cluster is None:
        raise KubeconfigError(
            f"kubeconfig {merged.where}: context {name!r} names cluster {cluster_name!r}, "
            "which no file defines"
        )
    user_name = _text(chosen, "user", chosen_in, f"context {name!r}")
    user: tuple[Mapping[str, Any], str] = ({}, chosen_in)
    if user_name:
        found_user = merged.entry("users", user_name)
        if found_user is None:
            raise KubeconfigError(
                f"kubeconfig {merged.where}: context {name!r} names user {user_name!r}, "
                "which no file defines"
            )
        user = found_user
    return _endpoint(merged.where, cluster, (cluster_name, user_name or ""), user)


def in_cluster(host: str, port: str) -> Endpoint:
    """The API server as a Pod sees it, with its ServiceAccount's token and CA."""
    where = f"[{host}]" if ":" in host else host
    return Endpoint(
        server=f"https://{where}:{port}",
        source="the Pod's ServiceAccount",
        certificate_authority=Material(path=f"{SERVICE_ACCOUNT}/ca.crt"),
        token_file=f"{SERVICE_ACCOUNT}/token",
    )


def exec_credential(output: bytes, plugin: ExecPlugin) -> ExecCredential:
    """The credential an exec plugin printed (KubeconfigError when it is not one)."""
    said = f"the exec plugin {plugin.command!r}"
    try:
        answer = json.loads(output)
    except ValueError:
        raise KubeconfigError(f"{said} printed no ExecCredential JSON", hint=None) from None
    if not isinstance(answer, dict) or answer.get("kind") != "ExecCredential":
        raise KubeconfigError(f"{said} printed no ExecCredential", hint=None)
    if answer.get("apiVersion") != plugin.api_version:
        raise KubeconfigError(
            f"{said} answered {answer.get('apiVersion')!r}, not the {plugin.api_version!r} "
            "the kubeconfig asks for",
            hint=None,
        )
    status = answer.get("status")
    if not isinstance(status, dict):
        raise KubeconfigError(f"{said} answered no status", hint=None)
    token = status.get("token")
    certificate, key = status.get("clientCertificateData"), status.get("clientKeyData")
    if not token and not (certificate and key):
        raise KubeconfigError(
            f"{said} answered neither a token nor a client certificate and key", hint=None
        )
    return ExecCredential(
        token=str(token) if token else None,
        certificate=str(certificate).encode() if certificate else None,
        key=str(key).encode() if key else None,
        expires=_timestamp(status.get("expirationTimestamp"), said),
    )


def exec_info(
    plugin: ExecPlugin, interactive: bool, ca_file_data: bytes | None = None
) -> dict[str, Any]:
    """KUBERNETES_EXEC_INFO: what the plugin is told about its call (`ca_file_data`: the
    content of the cluster's CA file, which the shell reads)."""
    spec: dict[str, Any] = {"interactive": interactive}
    if plugin.cluster is not None:
        spec["cluster"] = dict(plugin.cluster)
        if ca_file_data is not None:
            spec["cluster"]["certificate-authority-data"] = base64.b64encode(ca_file_data).decode()
    return {"apiVersion": plugin.api_version, "kind": "ExecCredential", "spec": spec}


# -- merging ---------------------------------------------------------------------------------


def _merge(files: Sequence[tuple[str, Any]]) -> _Merged:
    merged = _Merged(where=":".join(path for path, _ in files) or "(none)")
    for path, document in files:
        if document is None:
            continue
        if not isinstance(document, dict):
            raise KubeconfigError(f"kubeconfig {path} is not a mapping")
        current = document.get("current-context")
        if merged.current_context is None and isinstance(current, str) and current:
            merged.current_context = current
        for section, inner in _SECTIONS.items():
            _merge_section(merged, path, document, section, inner)
    return merged


def _merge_section(
    merged: _Merged, path: str, document: Mapping[str, Any], section: str, inner: str
) -> None:
    entries = document.get(section)
    if entries is None:
        return
    if not isinstance(entries, list):
        raise KubeconfigError(f"kubeconfig {path}: {section} is not a list")
    held = merged.sections.setdefault(section, {})
    for index, entry in enumerate(entries):
        name = entry.get("name") if isinstance(entry, dict) else None
        if not isinstance(name, str) or not name:
            raise KubeconfigError(f"kubeconfig {path}: {section}[{index}] has no name")
        body = entry.get(inner)
        if body is None:
            body = {}
        if not isinstance(body, dict):
            raise KubeconfigError(f"kubeconfig {path}: {section}[{index}].{inner} is not a mapping")
        held.setdefault(name, (body, path))  # the first file to name it wins


# -- one context ------------------------------------------------------------------------------


def _endpoint(
    where: str,
    cluster: tuple[Mapping[str, Any], str],
    names: tuple[str, str],
    user: tuple[Mapping[str, Any], str],
) -> Endpoint:
    entry, path = cluster
    what = f"cluster {names[0]!r}"
    server = _text(entry, "server", path, what)
    if not server:
        raise KubeconfigError(f"kubeconfig {path}: {what} has no server")
    if "://" not in server:
        server = f"https://{server}"  # kubectl's default scheme
    credentials = _credentials(user, f"user {names[1]!r}", cluster)
    return Endpoint(
        server=server.rstrip("/"),
        source=where,
        certificate_authority=_material(entry, "certificate-authority", path, what),
        insecure=_flag(entry, "insecure-skip-tls-verify", path, what),
        tls_server_name=_text(entry, "tls-server-name", path, what) or None,
        proxy_url=_text(entry, "proxy-url", path, what) or None,
        **credentials,
    )


def _credentials(
    user: tuple[Mapping[str, Any], str], what: str, cluster: tuple[Mapping[str, Any], str]
) -> dict[str, Any]:
    entry, path = user
    token = _text(entry, "token", path, what) or None
    token_file = _path(_text(entry, "tokenFile", path, what), path)
    username = _text(entry, "username", path, what)
    password = _text(entry, "password", path, what)
    plugin = _exec_plugin(entry.get("exec"), path, what, cluster)
    provider = entry.get("auth-provider")
    if provider is not None and not isinstance(provider, dict):
        raise KubeconfigError(f"kubeconfig {path}: {what}'s auth-provider is not a mapping")
    if plugin is not None and provider is not None:
        raise KubeconfigError(
            f"kubeconfig {path}: {what} has both an exec plugin and an auth-provider; "
            "kubectl allows one"
        )
    ways = [
        name
        for name, used in (
            ("token", token or token_file),
            ("username/password", username or password),
            ("auth-provider", provider),
        )
        if used
    ]
    if len(ways) > 1:
        raise KubeconfigError(
            f"kubeconfig {path}: {what} has more than one way to authenticate "
            f"({', '.join(ways)}); kubectl allows one"
        )
    certificate = _material(entry, "client-certificate", path, what)
    key = _material(entry, "client-key", path, what)
    if ways or (certificate is not None and key is not None):
        plugin = None  # kubectl's rule: a token, a password or a certificate given is used
    if bool(username) != bool(password):
        raise KubeconfigError(f"kubeconfig {path}: {what} has a username without a password")
    return {
        "client_certificate": certificate,
        "client_key": key,
        "token": token,
        "token_file": token_file,
        "basic": (username, password) if username else None,
        "exec_plugin": plugin,
        "auth_provider": provider,
        "impersonation": _impersonation(entry, path, what),
    }


def _exec_plugin(
    spec: Any, path: str, what: str, cluster: tuple[Mapping[str, Any], str]
) -> ExecPlugin | None:
    if spec is None:
        return None
    where = f"{what}'s exec"
    if not isinstance(spec, dict):
        raise KubeconfigError(f"kubeconfig {path}: {where} is not a mapping")
    version = _text(spec, "apiVersion", path, where)
    if version not in EXEC_API_VERSIONS:
        raise KubeconfigError(
            f"kubeconfig {path}: {where} has apiVersion {version!r}; driftctl speaks "
            f"{' and '.join(EXEC_API_VERSIONS)}"
        )
    command = _text(spec, "command", path, where)
    if not command:
        raise KubeconfigError(f"kubeconfig {path}: {where} has no command")
    if "/" in command and not command.startswith("/"):
        command = posixpath.normpath(posixpath.join(posixpath.dirname(path), command))
    told = spec.get("provideClusterInfo") is True
    mode = _text(spec, "interactiveMode", path, where) or "IfAvailable"
    if mode not in INTERACTIVE_MODES:
        raise KubeconfigError(
            f"kubeconfig {path}: {where} has interactiveMode {mode!r}; "
            f"one of {', '.join(INTERACTIVE_MODES)}"
        )
    return ExecPlugin(
        api_version=version,
        command=command,
        args=tuple(str(each) for each in _list(spec, "args", path, where)),
        env=tuple(_env_pair(each, path, where) for each in _list(spec, "env", path, where)),
        interactive_mode=mode,
        install_hint=_text(spec, "installHint", path, where),
        cluster=_cluster_info(cluster) if told else None,
        cluster_ca_file=_ca_file(cluster) if told else None,
    )


def _ca_file(cluster: tuple[Mapping[str, Any], str]) -> str | None:
    """The cluster's CA file, when it has no CA data (a plugin is told it as data)."""
    entry, path = cluster
    if entry.get("certificate-authority-data"):
        return None
    return _path(_text(entry, "certificate-authority", path, "the cluster"), path)


def _cluster_info(cluster: tuple[Mapping[str, Any], str]) -> dict[str, Any]:
    """The cluster as ExecCredential's spec.cluster spells it."""
    entry, _ = cluster
    spelled = {
        "server": "server",
        "tls-server-name": "tls-server-name",
        "insecure-skip-tls-verify": "insecure-skip-tls-verify",
        "certificate-authority-data": "certificate-authority-data",
        "proxy-url": "proxy-url",
    }
    info = {ours: entry[theirs] for theirs, ours in spelled.items() if theirs in entry}
    extensions = entry.get("extensions")
    if isinstance(extensions, list):
        for each in extensions:
            if isinstance(each, dict) and each.get("name") == "client.authentication.k8s.io/exec":
                info["config"] = each.get("extension")
    return info


def _env_pair(entry: Any, path: str, where: str) -> tuple[str, str]:
    if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
        raise KubeconfigError(f"kubeconfig {path}: {where}'s env holds an entry without a name")
    return entry["name"], str(entry.get("value") or "")


def _impersonation(entry: Mapping[str, Any], path: str, what: str) -> Impersonation:
    extra = entry.get("as-user-extra") or {}
    if not isinstance(extra, dict):
        raise KubeconfigError(f"kubeconfig {path}: {what}'s as-user-extra is not a mapping")
    return Impersonation(
        user=_text(entry, "as", path, what) or None,
        uid=_text(entry, "as-uid", path, what) or None,
        groups=tuple(str(each) for each in _list(entry, "as-groups", path, what)),
        extra=tuple(
            (str(key), tuple(str(each) for each in values))
            for key, values in extra.items()
            if isinstance(values, list)
        ),
    )


# -- fields -----------------------------------------------------------------------------------


def _material(entry: Mapping[str, Any], key: str, path: str, what: str) -> Material | None:
    """`key-data` (base64) wins over the file `key`, as with kubectl."""
    data = entry.get(f"{key}-data")
    if data:
        decoded = _base64(str(data))
        if decoded is None:
            raise KubeconfigError(f"kubeconfig {path}: {what}'s {key}-data is not base64")
        return Material(data=decoded)
    file = _path(_text(entry, key, path, what), path)
    return Material(path=file) if file else None


def _base64(text: str) -> bytes | None:
    """Standard base64 as Go reads it: line breaks ignored, padded to a multiple of four."""
    text = text.replace("\r", "").replace("\n", "")
    if len(text) % 4 or "=" in text.rstrip("="):
        return None
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None


def _path(value: str, kubeconfig: str) -> str | None:
    """A file a kubeconfig names, relative to the kubeconfig's own folder."""
    if not value:
        return None
    return posixpath.normpath(posixpath.join(posixpath.dirname(kubeconfig), value))


def _text(entry: Mapping[str, Any], key: str, path: str, what: str) -> str:
    value = entry.get(key)
    if value is None:
        return ""
    if not isinstance(value, str | int | float) or isinstance(value, bool):
        raise KubeconfigError(f"kubeconfig {path}: {what}'s {key} is not a string")
    return str(value)


def _flag(entry: Mapping[str, Any], key: str, path: str, what: str) -> bool:
    value = entry.get(key, False)
    if not isinstance(value, bool):
        raise KubeconfigError(f"kubeconfig {path}: {what}'s {key} is not true or false")
    return value


def _list(entry: Mapping[str, Any], key: str, path: str, what: str) -> list[Any]:
    value = entry.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise KubeconfigError(f"kubeconfig {path}: {what}'s {key} is not a list")
    return value


def _timestamp(value: Any, said: str) -> datetime.datetime | None:
    if not value:
        return None
    try:
        moment = datetime.datetime.fromisoformat(str(value))
    except ValueError:
        raise KubeconfigError(
            f"{said} answered an expirationTimestamp that is not RFC 3339: {value!r}", hint=None
        ) from None
    return moment if moment.tzinfo else moment.replace(tzinfo=datetime.UTC)
