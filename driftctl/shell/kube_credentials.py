"""The way to one API server: the kubeconfig's files read, its exec plugin run, the Pod's
ServiceAccount token read as it rotates, and the TLS-configured HTTP pool.

core.api.kubeconfig decides what a kubeconfig means; this module does what it says: it
reads the files (KUBECONFIG's list, or ~/.kube/config, as kubectl finds them), runs an
exec plugin when its credential is missing or expiring, and gives shell.kube a
`Connection`: the server's URL, its pool, and the headers of each request. A legacy
`auth-provider` (oidc, gcp) is the one thing handed to the Kubernetes client, imported
then and only then (it costs 0.3 s and 20 MiB to import).
"""

from __future__ import annotations

import dataclasses
import datetime
import ipaddress
import json
import os
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

import urllib3
import yaml

from driftctl import __version__
from driftctl.core.api import kubeconfig as k
from driftctl.core.api.kubeconfig import Endpoint, ExecCredential, KubeconfigError
from driftctl.errors import ClusterError

DEFAULT_KUBECONFIG = "~/.kube/config"
TOKEN_FILE_PERIOD = 60.0  # seconds a token file is trusted before it is read again (kubectl's)
EXEC_TIMEOUT = 120.0  # seconds a plugin that cannot ask anybody anything may take
USER_AGENT = f"driftctl/{__version__}"


class Connection:
    """One API server: its URL, its HTTP pool, and the headers that say who is asking.

    Thread-safe: a run's pool of workers sends through one Connection; an exec plugin runs
    once when its credential expires, whichever worker notices first.
    """

    def __init__(
        self,
        endpoint: Endpoint,
        pool_size: int,
        *,
        provider: Callable[[], str] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.host = endpoint.server
        self.endpoint = endpoint
        self._pool_size = max(pool_size, 1)
        self._provider = provider
        self._clock = clock
        self._lock = threading.Lock()
        self._credential: ExecCredential | None = None
        self._token_read: tuple[float, str] | None = None
        self._pool: urllib3.PoolManager | None = None
        if endpoint.exec_plugin is None:
            self._pool = _pool(endpoint, self._pool_size, None)

    @property
    def pool(self) -> urllib3.PoolManager:
        """The pool to send through (an exec plugin's client certificate is in it)."""
        with self._lock:
            if self._pool is None or self._exec_expired():
                self._run_exec()
            assert self._pool is not None
            return self._pool

    def headers(self) -> urllib3.HTTPHeaderDict:
        """Authorization and impersonation headers for the next request."""
        headers = urllib3.HTTPHeaderDict({"User-Agent": USER_AGENT})
        bearer = self._bearer()
        if bearer:
            headers["Authorization"] = f"Bearer {bearer}"
        elif self.endpoint.basic is not None:
            user, password = self.endpoint.basic
            headers.update(urllib3.make_headers(basic_auth=f"{user}:{password}"))
        _impersonate(headers, self.endpoint.impersonation)
        return headers

    def forget(self) -> bool:
        """Drop a credential that can be fetched again (an exec plugin's, a token file's),
        after the server refused it; whether there was one."""
        with self._lock:
            renewable = self._credential is not None or self._token_read is not None
            self._credential = None
            self._token_read = None
            return renewable

    def _bearer(self) -> str | None:
        endpoint = self.endpoint
        if endpoint.token_file:
            return self._file_token(endpoint.token_file)
        if endpoint.token:
            return endpoint.token
        if endpoint.exec_plugin is not None:
            with self._lock:
                if self._credential is None or self._exec_expired():
                    self._run_exec()
                assert self._credential is not None
                return self._credential.token
        if self._provider is not None:
            return self._provider()
        return None

    def _file_token(self, path: str) -> str:
        with self._lock:
            now = self._clock()
            if self._token_read is None or now - self._token_read[0] >= TOKEN_FILE_PERIOD:
                try:
                    token = Path(path).expanduser().read_text(encoding="utf-8").strip()
                except OSError as unreadable:
                    raise ClusterError(
                        f"cannot read the token file {path} ({self.endpoint.source}): "
                        f"{unreadable.strerror or unreadable}"
                    ) from None
                self._token_read = (now, token)
            return self._token_read[1]

    def _exec_expired(self) -> bool:
        credential = self._credential
        return credential is not None and credential.expired(datetime.datetime.now(datetime.UTC))

    def _run_exec(self) -> None:
        """Run the exec plugin (under the lock) and keep what it answered."""
        plugin = self.endpoint.exec_plugin
        assert plugin is not None  # a Connection without a plugin has its pool from the start
        before = self._credential
        self._credential = run_exec_plugin(plugin)
        pair = _pair(self._credential)
        if self._pool is None or before is None or pair != _pair(before):
            self._pool = _pool(self.endpoint, self._pool_size, pair)


def connection(kubeconfig: str | None, context: str | None, pool_size: int) -> Connection:
    """The Connection of the kubeconfig (as kubectl finds it) or of the Pod's ServiceAccount."""
    provider = None
    if in_pod(kubeconfig, context):
        host = os.environ["KUBERNETES_SERVICE_HOST"]
        port = os.environ.get("KUBERNETES_SERVICE_PORT", "443")
        endpoint = k.in_cluster(host, port)
    else:
        where = kubeconfig or os.environ.get("KUBECONFIG") or DEFAULT_KUBECONFIG
        endpoint = k.resolve(read_kubeconfigs(where), context)
        if endpoint.auth_provider is not None:
            provider = _provider(kubeconfig, context)
    if endpoint.proxy_url is None:
        endpoint = dataclasses.replace(endpoint, proxy_url=environment_proxy(endpoint.server))
    return Connection(endpoint, pool_size, provider=provider)


def environment_proxy(server: str) -> str | None:
    """The proxy HTTPS_PROXY (or HTTP_PROXY, for an http server) names for `server`, as
    kubectl takes it: none for a host NO_PROXY names, nor for localhost or a loopback
    address."""
    parts = urllib.parse.urlsplit(server)
    host = parts.hostname or ""
    try:
        loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if loopback or urllib.request.proxy_bypass(parts.netloc):
        return None
    return urllib.request.getproxies().get(parts.scheme)


def read_kubeconfigs(where: str) -> list[tuple[str, Any]]:
    """Each existing file of a KUBECONFIG-style list, parsed (ClusterError when none exists,
    or one is not YAML)."""
    paths = [Path(each).expanduser().absolute() for each in where.split(os.pathsep) if each]
    found = [path for path in paths if path.exists()]
    if not found:
        raise ClusterError(
            f"kubeconfig {where} does not exist",
            hint="pass --kubeconfig with the file of your cluster, or set KUBECONFIG",
        )
    files: list[tuple[str, Any]] = []
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    for path in found:
        try:
            text = path.read_text(encoding="utf-8")
            files.append((str(path), yaml.load(text, Loader=loader)))
        except OSError as unreadable:
            raise KubeconfigError(
                f"cannot read kubeconfig {path}: {unreadable.strerror or unreadable}", hint=None
            ) from None
        except (UnicodeDecodeError, yaml.YAMLError) as broken:
            mark = getattr(broken, "problem_mark", None)
            at = f":{mark.line + 1}:{mark.column + 1}" if mark is not None else ""
            reason = getattr(broken, "problem", None) or "not UTF-8 text"
            raise KubeconfigError(f"kubeconfig {path}{at}: not YAML: {reason}") from None
    return files


def in_pod(kubeconfig: str | None, context: str | None) -> bool:
    """Whether a run uses the Pod's ServiceAccount (no kubeconfig given or found, in a Pod):
    then the account a run uses is the caller's own."""
    no_kubeconfig = "KUBECONFIG" not in os.environ and not os.path.exists(
        os.path.expanduser(DEFAULT_KUBECONFIG)
    )
    given = kubeconfig is not None or context is not None
    return not given and no_kubeconfig and "KUBERNETES_SERVICE_HOST" in os.environ


def run_exec_plugin(plugin: k.ExecPlugin) -> ExecCredential:
    """Run an exec plugin as kubectl does and read its credential."""
    interactive = plugin.interactive_mode != "Never" and sys.stdin.isatty()
    if plugin.interactive_mode == "Always" and not interactive:
        raise KubeconfigError(
            f"the exec plugin {plugin.command!r} must ask on a terminal (interactiveMode "
            "Always), and this run has none",
            hint=None,
        )
    env = {**os.environ, **dict(plugin.env)}
    ca = None
    if plugin.cluster_ca_file is not None:
        try:
            ca = Path(plugin.cluster_ca_file).expanduser().read_bytes()
        except OSError as unreadable:
            raise KubeconfigError(
                f"cannot read the cluster's certificate-authority {plugin.cluster_ca_file}: "
                f"{unreadable.strerror or unreadable}"
            ) from None
    env["KUBERNETES_EXEC_INFO"] = json.dumps(k.exec_info(plugin, interactive, ca))
    try:
        done = subprocess.run(
            [plugin.command, *plugin.args],
            env=env,
            stdin=None if interactive else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=None if interactive else subprocess.PIPE,
            timeout=None if interactive else EXEC_TIMEOUT,
            check=False,
        )
    except FileNotFoundError:
        raise KubeconfigError(
            f"the exec plugin {plugin.command!r} is not installed",
            hint=plugin.install_hint.strip() or None,
        ) from None
    except OSError as failed:
        raise KubeconfigError(
            f"the exec plugin {plugin.command!r} could not run: {failed.strerror}", hint=None
        ) from None
    except subprocess.TimeoutExpired:
        raise KubeconfigError(
            f"the exec plugin {plugin.command!r} did not answer in {EXEC_TIMEOUT:g}s", hint=None
        ) from None
    if done.returncode != 0:
        said = (done.stderr or b"").decode(errors="replace").strip().splitlines()
        last = f": {said[-1]}" if said else ""
        raise KubeconfigError(
            f"the exec plugin {plugin.command!r} exited {done.returncode}{last}", hint=None
        )
    return k.exec_credential(done.stdout, plugin)


def _pair(credential: ExecCredential | None) -> tuple[bytes, bytes] | None:
    if credential is None or credential.certificate is None or credential.key is None:
        return None
    return credential.certificate, credential.key


def _pool(endpoint: Endpoint, size: int, pair: tuple[bytes, bytes] | None) -> urllib3.PoolManager:
    """The HTTP pool to the server: its CA (or none, when told not to verify), the client
    certificate, the TLS server name, the proxy."""
    options: dict[str, Any] = {"maxsize": size, "num_pools": 4}
    if endpoint.server.startswith("https://"):
        options["ssl_context"] = _tls(endpoint, pair)
        if endpoint.tls_server_name:
            options["server_hostname"] = endpoint.tls_server_name
    if endpoint.proxy_url is None:
        return urllib3.PoolManager(**options)
    if endpoint.proxy_url.startswith("socks"):
        try:
            from urllib3.contrib.socks import SOCKSProxyManager
        except ImportError:
            raise KubeconfigError(
                f"kubeconfig {endpoint.source}: proxy-url {endpoint.proxy_url} is a SOCKS proxy, "
                "which needs PySocks (pip install pysocks)",
                hint=None,
            ) from None
        return SOCKSProxyManager(endpoint.proxy_url, **options)
    return urllib3.ProxyManager(endpoint.proxy_url, **options)


def _tls(endpoint: Endpoint, pair: tuple[bytes, bytes] | None) -> ssl.SSLContext:
    ca = endpoint.certificate_authority
    try:
        if ca is None:
            context = ssl.create_default_context()
        elif ca.data is not None:
            context = ssl.create_default_context(cadata=ca.data.decode("ascii", "replace"))
        else:
            context = ssl.create_default_context(cafile=os.path.expanduser(str(ca.path)))
        if endpoint.insecure:
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
        _client_certificate(context, endpoint, pair)
    except (OSError, ssl.SSLError, ValueError) as unusable:
        raise KubeconfigError(
            f"kubeconfig {endpoint.source}: its certificates cannot be used: {_said(unusable)}"
        ) from None
    return context


def _client_certificate(
    context: ssl.SSLContext, endpoint: Endpoint, pair: tuple[bytes, bytes] | None
) -> None:
    certificate, key = endpoint.client_certificate, endpoint.client_key
    if pair is None and certificate is None and key is None:
        return
    if pair is None and (certificate is None or key is None):
        raise KubeconfigError(
            f"kubeconfig {endpoint.source}: a client certificate needs its key, and a key its "
            "certificate"
        )
    if pair is None and certificate is not None and key is not None:
        if certificate.path is not None and key.path is not None:
            context.load_cert_chain(
                os.path.expanduser(certificate.path), os.path.expanduser(key.path)
            )
            return
        pair = (_bytes(certificate), _bytes(key))
    assert pair is not None
    # ssl loads a certificate and key only from files: they live for the call, readable by
    # this user alone, in a folder of their own.
    with tempfile.TemporaryDirectory(prefix="driftctl-tls-") as folder:
        files = []
        for name, content in zip(("client.crt", "client.key"), pair, strict=True):
            path = Path(folder, name)
            path.touch(mode=0o600)
            path.write_bytes(content)
            files.append(str(path))
        context.load_cert_chain(files[0], files[1])


def _bytes(material: k.Material) -> bytes:
    if material.data is not None:
        return material.data
    return Path(os.path.expanduser(str(material.path))).read_bytes()


def _impersonate(headers: urllib3.HTTPHeaderDict, who: k.Impersonation) -> None:
    if not who:
        return
    if who.user:
        headers["Impersonate-User"] = who.user
    if who.uid:
        headers["Impersonate-Uid"] = who.uid
    for group in who.groups:
        headers.add("Impersonate-Group", group)
    for key, values in who.extra:
        for value in values:
            headers.add(f"Impersonate-Extra-{quote(key, safe='')}", value)


def _provider(kubeconfig: str | None, context: str | None) -> Callable[[], str]:
    """The bearer token of a legacy auth-provider, from the Kubernetes client's loader
    (which refreshes oidc tokens and writes them back to the kubeconfig, as kubectl did)."""
    from kubernetes import client, config
    from kubernetes.config.config_exception import ConfigException

    configuration = client.Configuration()
    try:
        config.load_kube_config(  # type: ignore[no-untyped-call]
            config_file=kubeconfig, context=context, client_configuration=configuration
        )
    except (ConfigException, OSError) as unusable:
        raise KubeconfigError(f"cannot use kubeconfig's auth-provider: {unusable}") from None
    lock = threading.Lock()

    def token() -> str:
        with lock:
            hook = configuration.refresh_api_key_hook
            if hook is not None:
                hook(configuration)
            value = str(configuration.api_key.get("BearerToken") or "")
        return value.removeprefix("Bearer ").strip()

    return token


def _said(failure: BaseException) -> str:
    if isinstance(failure, OSError) and failure.strerror:
        return f"{failure.strerror}: {failure.filename}" if failure.filename else failure.strerror
    return str(failure) or type(failure).__name__
