"""A kubeconfig is read as kubectl reads it (driftctl.core.api.kubeconfig and the
Connection of driftctl.shell.kube_credentials).

Across the files of a KUBECONFIG list, the first file to name a cluster, user or context
wins, and so does the first current-context; a context asked for overrides it; a missing
context, no current-context, or a context naming a cluster or user no file defines is
refused with the files and the contexts there are. A relative file path (a certificate
authority, a client certificate or key, a token file, an exec command with a slash) is
relative to the folder of the file that wrote it; an absolute one is kept, and so is a
bare command name, for PATH. Base64 `*-data` wins over the file and is decoded as Go
decodes it (line breaks skipped); anything else is refused. A server without a scheme is
https, without its trailing slash; a cluster without a server is refused. A user with
both a token and a password, or both an exec plugin and an auth-provider, a username
without a password, or an insecure-skip-tls-verify that is not a boolean is refused; a
token, password or client certificate given beside an exec plugin is used instead of it.
An exec plugin speaks client.authentication.k8s.io v1 or v1beta1, not v1alpha1; its
interactiveMode is IfAvailable unless it says Never or Always; its env and args are
carried; with provideClusterInfo it is told the cluster as kubectl tells it (a CA file
read into certificate-authority-data). Its answer is a token, or a certificate and key,
until an expiry that counts as reached 10 s early; any other answer is refused. A Pod's
API server is its ServiceAccount's, IPv6 in brackets. A Connection's headers carry the
bearer token, basic credentials, a token file read again once a minute, impersonation
and driftctl's User-Agent. And where both support a kubeconfig, driftctl's Endpoint says
what the official Kubernetes client's Configuration says.
"""

from __future__ import annotations

import base64
import dataclasses
import datetime
import json
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from kubernetes import client, config

from driftctl.core.api.kubeconfig import (
    Endpoint,
    ExecPlugin,
    KubeconfigError,
    Material,
    exec_credential,
    exec_info,
    in_cluster,
    resolve,
)
from driftctl.shell import kube_credentials
from driftctl.shell.kube_credentials import Connection, read_kubeconfigs, run_exec_plugin

HOME = "/home/me/.kube/config"
V1 = "client.authentication.k8s.io/v1"
V1BETA1 = "client.authentication.k8s.io/v1beta1"
SA = "/var/run/secrets/kubernetes.io/serviceaccount"
PEM = b"-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n"
KEY = b"-----BEGIN PRIVATE KEY-----\nMIIEfake\n-----END PRIVATE KEY-----\n"


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def document(
    *,
    clusters: dict[str, dict[str, Any]] | None = None,
    users: dict[str, dict[str, Any]] | None = None,
    contexts: dict[str, dict[str, Any]] | None = None,
    current: str | None = None,
) -> dict[str, Any]:
    """A kubeconfig document, as PyYAML parses one."""
    written: dict[str, Any] = {"apiVersion": "v1", "kind": "Config"}
    if current is not None:
        written["current-context"] = current
    for section, inner, entries in (
        ("clusters", "cluster", clusters),
        ("users", "user", users),
        ("contexts", "context", contexts),
    ):
        if entries is not None:
            written[section] = [{"name": name, inner: body} for name, body in entries.items()]
    return written


def one(cluster: dict[str, Any], user: dict[str, Any] | None = None, path: str = HOME) -> Endpoint:
    """The Endpoint of a file with one cluster 'k', one user 'u' and one context 'c'."""
    return resolve([(path, single(cluster, user))], None)


def single(cluster: dict[str, Any], user: dict[str, Any] | None = None) -> dict[str, Any]:
    return document(
        clusters={"k": cluster},
        users={"u": user or {}},
        contexts={"c": {"cluster": "k", "user": "u"}},
        current="c",
    )


def refusal(cluster: dict[str, Any], user: dict[str, Any] | None = None) -> KubeconfigError:
    with pytest.raises(KubeconfigError) as refused:
        one(cluster, user)
    return refused.value


SERVER = {"server": "https://10.0.0.1:6443"}


def plugin_of(spec: dict[str, Any], cluster: dict[str, Any] = SERVER) -> ExecPlugin:
    endpoint = one(cluster, {"exec": spec})
    assert endpoint.exec_plugin is not None
    return endpoint.exec_plugin


# -- merging across files ----------------------------------------------------------------------


def test_the_first_file_to_name_a_cluster_wins() -> None:
    first = document(clusters={"k": {"server": "https://first:6443"}})
    second = document(
        clusters={"k": {"server": "https://second:6443"}},
        users={"u": {"token": "t"}},
        contexts={"c": {"cluster": "k", "user": "u"}},
        current="c",
    )
    assert resolve([("/a/one", first), ("/a/two", second)], None).server == "https://first:6443"


def test_the_first_file_to_name_a_user_wins() -> None:
    first = document(users={"u": {"token": "from-first"}})
    second = document(
        clusters={"k": SERVER},
        users={"u": {"token": "from-second"}},
        contexts={"c": {"cluster": "k", "user": "u"}},
        current="c",
    )
    assert resolve([("/a/one", first), ("/a/two", second)], None).token == "from-first"


def test_the_first_file_to_name_a_context_wins() -> None:
    first = document(contexts={"c": {"cluster": "east"}})
    second = document(
        clusters={"east": {"server": "https://east:6443"}, "west": {"server": "https://west"}},
        contexts={"c": {"cluster": "west"}},
        current="c",
    )
    assert resolve([("/a/one", first), ("/a/two", second)], None).server == "https://east:6443"


def test_the_current_context_is_the_first_file_to_set_one() -> None:
    shared = document(
        clusters={"a": {"server": "https://a"}, "b": {"server": "https://b"}},
        contexts={"a": {"cluster": "a"}, "b": {"cluster": "b"}},
    )
    files = [
        ("/a/none", shared),
        ("/a/empty", None),
        ("/a/b", document(current="b")),
        ("/a/a", document(current="a")),
    ]
    assert resolve(files, None).server == "https://b"


def test_the_context_asked_for_overrides_the_current_one() -> None:
    files = [
        (
            "/a/one",
            document(
                clusters={"a": {"server": "https://a"}, "b": {"server": "https://b"}},
                contexts={"a": {"cluster": "a"}, "b": {"cluster": "b"}},
                current="a",
            ),
        )
    ]
    assert resolve(files, "b").server == "https://b"
    assert resolve(files, None).server == "https://a"


def test_the_contexts_are_named_in_the_order_of_the_files() -> None:
    files = [
        ("/a/one", document(contexts={"b": {"cluster": "k"}, "a": {"cluster": "k"}})),
        ("/a/two", document(contexts={"a": {"cluster": "x"}, "c": {"cluster": "k"}})),
    ]
    with pytest.raises(KubeconfigError) as refused:
        resolve(files, "z")

    assert refused.value.hint == "its contexts: b, a, c (kubectl config get-contexts)"


def test_a_missing_context_is_refused_with_the_files_and_their_contexts() -> None:
    files = [
        ("/a/one", document(clusters={"k": SERVER}, contexts={"a": {"cluster": "k"}})),
        ("/a/two", document(contexts={"b": {"cluster": "k"}}, current="a")),
    ]
    with pytest.raises(KubeconfigError) as refused:
        resolve(files, "x")
    assert refused.value.message == "kubeconfig /a/one:/a/two has no context 'x'"
    assert refused.value.hint == "its contexts: a, b (kubectl config get-contexts)"


def test_a_current_context_no_file_defines_is_refused_alike() -> None:
    files = [("/a/one", document(clusters={"k": SERVER}, contexts={}, current="gone"))]
    with pytest.raises(KubeconfigError) as refused:
        resolve(files, None)
    assert refused.value.message == "kubeconfig /a/one has no context 'gone'"
    assert refused.value.hint == "its contexts: none (kubectl config get-contexts)"


def test_no_current_context_is_refused() -> None:
    files = [
        ("/a/one", document(clusters={"k": SERVER}, contexts={"c": {"cluster": "k"}})),
        ("/a/two", None),
    ]
    with pytest.raises(KubeconfigError) as refused:
        resolve(files, None)
    assert refused.value.message == "kubeconfig /a/one:/a/two sets no current-context"
    assert refused.value.hint == "pass --context, or choose one: kubectl config use-context NAME"


def test_a_context_naming_a_cluster_no_file_defines_is_refused() -> None:
    files = [
        ("/a/one", document(clusters={"k": SERVER})),
        ("/a/two", document(contexts={"c": {"cluster": "gone"}}, current="c")),
    ]
    with pytest.raises(KubeconfigError) as refused:
        resolve(files, None)
    assert refused.value.message == (
        "kubeconfig /a/one:/a/two: context 'c' names cluster 'gone', which no file defines"
    )


def test_a_context_naming_a_user_no_file_defines_is_refused() -> None:
    files = [
        ("/a/one", document(clusters={"k": SERVER}, users={"u": {"token": "t"}})),
        ("/a/two", document(contexts={"c": {"cluster": "k", "user": "nobody"}}, current="c")),
    ]
    with pytest.raises(KubeconfigError) as refused:
        resolve(files, None)
    assert refused.value.message == (
        "kubeconfig /a/one:/a/two: context 'c' names user 'nobody', which no file defines"
    )


# -- file paths and data -----------------------------------------------------------------------


def test_relative_paths_are_relative_to_the_file_that_wrote_them() -> None:
    files = [
        (
            "/etc/kube/clusters",
            document(clusters={"k": {**SERVER, "certificate-authority": "ca.crt"}}),
        ),
        (
            "/home/me/.kube/users",
            document(
                users={
                    "u": {
                        "client-certificate": "certs/me.crt",
                        "client-key": "certs/me.key",
                        "tokenFile": "tokens/me",
                    }
                }
            ),
        ),
        ("/srv/ctx/config", document(contexts={"c": {"cluster": "k", "user": "u"}}, current="c")),
    ]
    endpoint = resolve(files, None)
    assert endpoint.certificate_authority == Material(path="/etc/kube/ca.crt")
    assert endpoint.client_certificate == Material(path="/home/me/.kube/certs/me.crt")
    assert endpoint.client_key == Material(path="/home/me/.kube/certs/me.key")
    assert endpoint.token_file == "/home/me/.kube/tokens/me"


def test_absolute_paths_are_kept() -> None:
    endpoint = one(
        {**SERVER, "certificate-authority": "/pki/ca.crt"},
        {"client-certificate": "/pki/me.crt", "client-key": "/pki/me.key", "tokenFile": "/t/me"},
    )
    assert endpoint.certificate_authority == Material(path="/pki/ca.crt")
    assert endpoint.client_certificate == Material(path="/pki/me.crt")
    assert endpoint.client_key == Material(path="/pki/me.key")
    assert endpoint.token_file == "/t/me"


@pytest.mark.parametrize(
    ("command", "run"),
    [
        pytest.param("bin/kubelogin", "/home/me/.kube/bin/kubelogin", id="relative"),
        pytest.param("/usr/local/bin/kubelogin", "/usr/local/bin/kubelogin", id="absolute"),
        pytest.param("kubelogin", "kubelogin", id="bare-name-left-for-path"),
    ],
)
def test_an_exec_command_with_a_slash_is_relative_to_its_file(command: str, run: str) -> None:
    assert plugin_of({"apiVersion": V1, "command": command}).command == run


def test_data_wins_over_the_file_and_is_decoded() -> None:
    endpoint = one(
        {**SERVER, "certificate-authority": "ca.crt", "certificate-authority-data": b64(PEM)},
        {
            "client-certificate": "me.crt",
            "client-certificate-data": b64(b"cert bytes"),
            "client-key": "me.key",
            "client-key-data": b64(KEY),
        },
    )
    assert endpoint.certificate_authority == Material(data=PEM)
    assert endpoint.client_certificate == Material(data=b"cert bytes")
    assert endpoint.client_key == Material(data=KEY)


def test_data_broken_over_lines_is_decoded_as_kubectl_decodes_it() -> None:
    """Go's base64 skips line breaks: a `|` block scalar of base64 is the same bytes."""
    encoded = b64(PEM * 3)
    folded = "\n".join(encoded[at : at + 64] for at in range(0, len(encoded), 64)) + "\n"
    endpoint = one({**SERVER, "certificate-authority-data": folded})
    assert endpoint.certificate_authority == Material(data=PEM * 3)


@pytest.mark.parametrize(
    ("cluster", "user", "message"),
    [
        pytest.param(
            {"certificate-authority-data": "not base64!"},
            {},
            "kubeconfig /home/me/.kube/config: cluster 'k''s certificate-authority-data "
            "is not base64",
            id="certificate-authority",
        ),
        pytest.param(
            {},
            {"client-key-data": "QUJ"},
            "kubeconfig /home/me/.kube/config: user 'u''s client-key-data is not base64",
            id="client-key-unpadded",
        ),
        pytest.param(
            {},
            {"client-certificate-data": "QUJD="},
            "kubeconfig /home/me/.kube/config: user 'u''s client-certificate-data is not base64",
            id="client-certificate-padded-past-its-length",
        ),
    ],
)
def test_data_that_is_not_base64_is_refused(
    cluster: dict[str, Any], user: dict[str, Any], message: str
) -> None:
    assert refusal({**SERVER, **cluster}, user).message == message


def test_files_of_a_kubeconfig_list_are_read_and_their_paths_resolved(tmp_path: Path) -> None:
    (tmp_path / "team").mkdir()
    (tmp_path / "me").mkdir()
    first, second = tmp_path / "team" / "config", tmp_path / "me" / "config"
    first.write_text(
        yaml.safe_dump(
            document(
                clusters={"k": {**SERVER, "certificate-authority": "pki/ca.crt"}},
                contexts={"c": {"cluster": "k", "user": "u"}},
            )
        )
    )
    second.write_text(
        yaml.safe_dump(
            document(
                users={"u": {"exec": {"apiVersion": V1, "command": "./bin/login"}}},
                current="c",
            )
        )
    )
    missing = tmp_path / "absent" / "config"
    files = read_kubeconfigs(os.pathsep.join([str(first), str(missing), str(second)]))
    assert [path for path, _ in files] == [str(first), str(second)]
    endpoint = resolve(files, None)
    assert endpoint.source == f"{first}:{second}"
    assert endpoint.certificate_authority == Material(path=f"{tmp_path}/team/pki/ca.crt")
    assert endpoint.exec_plugin is not None
    assert os.path.normpath(endpoint.exec_plugin.command) == f"{tmp_path}/me/bin/login"


# -- the server --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("server", "url"),
    [
        pytest.param("10.0.0.1:6443", "https://10.0.0.1:6443", id="no-scheme-is-https"),
        pytest.param("api.example", "https://api.example", id="a-bare-host"),
        pytest.param("https://api.example:6443/", "https://api.example:6443", id="trailing-slash"),
        pytest.param("http://127.0.0.1:8080", "http://127.0.0.1:8080", id="http-kept"),
    ],
)
def test_a_server_is_https_unless_it_says_and_has_no_trailing_slash(server: str, url: str) -> None:
    assert one({"server": server}).server == url


def test_a_cluster_without_a_server_is_refused() -> None:
    assert refusal({"certificate-authority-data": b64(PEM)}).message == (
        "kubeconfig /home/me/.kube/config: cluster 'k' has no server"
    )


def test_insecure_skip_tls_verify_must_be_a_boolean() -> None:
    assert one({**SERVER, "insecure-skip-tls-verify": True}).insecure is True
    assert one(SERVER).insecure is False
    assert refusal({**SERVER, "insecure-skip-tls-verify": "true"}).message == (
        "kubeconfig /home/me/.kube/config: cluster 'k''s insecure-skip-tls-verify "
        "is not true or false"
    )


def test_tls_server_name_and_proxy_url_are_carried() -> None:
    endpoint = one(
        {**SERVER, "tls-server-name": "api.internal", "proxy-url": "socks5://proxy:1080"}
    )
    assert endpoint.tls_server_name == "api.internal"
    assert endpoint.proxy_url == "socks5://proxy:1080"


# -- the ways to authenticate ------------------------------------------------------------------

EXEC = {"apiVersion": V1, "command": "kubelogin"}


@pytest.mark.parametrize(
    ("user", "ways"),
    [
        pytest.param(
            {"token": "t", "username": "me", "password": "pw"},
            "token, username/password",
            id="token-and-basic",
        ),
        pytest.param(
            {"tokenFile": "/t", "username": "me", "password": "pw"},
            "token, username/password",
            id="token-file-and-basic",
        ),
    ],
)
def test_more_than_one_way_to_authenticate_is_refused(user: dict[str, Any], ways: str) -> None:
    assert refusal(SERVER, user).message == (
        f"kubeconfig /home/me/.kube/config: user 'u' has more than one way to authenticate "
        f"({ways}); kubectl allows one"
    )


def test_an_exec_plugin_and_an_auth_provider_are_refused_together() -> None:
    user = {"exec": EXEC, "auth-provider": {"name": "oidc"}}
    assert refusal(SERVER, user).message == (
        "kubeconfig /home/me/.kube/config: user 'u' has both an exec plugin and an "
        "auth-provider; kubectl allows one"
    )


@pytest.mark.parametrize(
    "given",
    [
        pytest.param({"token": "t"}, id="token"),
        pytest.param({"tokenFile": "/t"}, id="token-file"),
        pytest.param({"username": "me", "password": "pw"}, id="basic"),
        pytest.param({"client-certificate": "/c", "client-key": "/k"}, id="certificate"),
    ],
)
def test_a_credential_given_beside_an_exec_plugin_is_used_instead(given: dict[str, Any]) -> None:
    """client-go's exec Authenticator steps aside when a token, a password or a client
    certificate is configured (UpdateTransportConfig)."""
    endpoint = one(SERVER, {**given, "exec": EXEC})
    assert endpoint.exec_plugin is None
    assert (endpoint.token, endpoint.token_file, endpoint.basic) == (
        given.get("token"),
        given.get("tokenFile"),
        ("me", "pw") if "username" in given else None,
    )


def test_a_username_without_a_password_is_refused() -> None:
    assert refusal(SERVER, {"username": "me"}).message == (
        "kubeconfig /home/me/.kube/config: user 'u' has a username without a password"
    )


def test_a_client_certificate_goes_with_a_token() -> None:
    endpoint = one(SERVER, {"token": "t", "client-certificate": "/c", "client-key": "/k"})
    assert (endpoint.token, endpoint.client_certificate, endpoint.client_key) == (
        "t",
        Material(path="/c"),
        Material(path="/k"),
    )


# -- exec plugins ------------------------------------------------------------------------------


@pytest.mark.parametrize("version", [V1, V1BETA1])
def test_an_exec_plugin_speaks_v1_or_v1beta1(version: str) -> None:
    assert plugin_of({"apiVersion": version, "command": "kubelogin"}).api_version == version


def test_an_exec_plugin_speaking_v1alpha1_is_refused() -> None:
    spec = {"apiVersion": "client.authentication.k8s.io/v1alpha1", "command": "kubelogin"}
    assert refusal(SERVER, {"exec": spec}).message == (
        "kubeconfig /home/me/.kube/config: user 'u''s exec has apiVersion "
        "'client.authentication.k8s.io/v1alpha1'; driftctl speaks "
        "client.authentication.k8s.io/v1 and client.authentication.k8s.io/v1beta1"
    )


def test_interactive_mode_is_if_available_unless_it_says_otherwise() -> None:
    assert plugin_of(EXEC).interactive_mode == "IfAvailable"
    assert plugin_of({**EXEC, "interactiveMode": "Never"}).interactive_mode == "Never"
    assert plugin_of({**EXEC, "interactiveMode": "Always"}).interactive_mode == "Always"
    assert refusal(SERVER, {"exec": {**EXEC, "interactiveMode": "Sometimes"}}).message == (
        "kubeconfig /home/me/.kube/config: user 'u''s exec has interactiveMode 'Sometimes'; "
        "one of Never, IfAvailable, Always"
    )


def test_an_exec_plugin_s_env_and_args_are_carried() -> None:
    plugin = plugin_of(
        {
            **EXEC,
            "args": ["get-token", "--cluster", "prod"],
            "env": [{"name": "AWS_PROFILE", "value": "prod"}, {"name": "EMPTY"}],
            "installHint": "brew install kubelogin",
        }
    )
    assert plugin.args == ("get-token", "--cluster", "prod")
    assert plugin.env == (("AWS_PROFILE", "prod"), ("EMPTY", ""))
    assert plugin.install_hint == "brew install kubelogin"
    assert plugin.cluster is None


def test_an_exec_plugin_is_told_its_call_and_with_provide_cluster_info_the_cluster() -> None:
    cluster = {
        "server": "https://10.0.0.1:6443",
        "certificate-authority-data": b64(PEM),
        "tls-server-name": "api.internal",
        "extensions": [
            {"name": "other", "extension": {"ignored": True}},
            {"name": "client.authentication.k8s.io/exec", "extension": {"audience": "prod"}},
        ],
    }
    told = exec_info(plugin_of({**EXEC, "provideClusterInfo": True}, cluster), False)
    assert told == {
        "apiVersion": V1,
        "kind": "ExecCredential",
        "spec": {
            "interactive": False,
            "cluster": {
                "server": "https://10.0.0.1:6443",
                "certificate-authority-data": b64(PEM),
                "tls-server-name": "api.internal",
                "config": {"audience": "prod"},
            },
        },
    }
    assert exec_info(plugin_of(EXEC, cluster), True) == {
        "apiVersion": V1,
        "kind": "ExecCredential",
        "spec": {"interactive": True},
    }


def test_an_exec_plugin_is_told_the_certificate_authority_of_a_file_as_data(
    tmp_path: Path,
) -> None:
    """kubectl reads the CA file into spec.cluster.certificate-authority-data (client-go's
    ConfigToExecCluster), so that a plugin can reach the API server itself."""
    (tmp_path / "ca.crt").write_bytes(PEM)
    told = tmp_path / "told.json"
    plugin = tmp_path / "plugin"
    answer = json.dumps({"apiVersion": V1, "kind": "ExecCredential", "status": {"token": "t"}})
    plugin.write_text(
        f"#!/bin/sh\nprintf '%s' \"$KUBERNETES_EXEC_INFO\" > '{told}'\necho '{answer}'\n"
    )
    plugin.chmod(plugin.stat().st_mode | stat.S_IEXEC)
    endpoint = one(
        {**SERVER, "certificate-authority": "ca.crt"},
        {"exec": {**EXEC, "command": "./plugin", "provideClusterInfo": True}},
        path=str(tmp_path / "config"),
    )
    assert endpoint.exec_plugin is not None
    assert run_exec_plugin(endpoint.exec_plugin).token == "t"
    assert json.loads(told.read_text())["spec"]["cluster"] == {
        "server": "https://10.0.0.1:6443",
        "certificate-authority-data": b64(PEM),
    }


PLUGIN = ExecPlugin(api_version=V1BETA1, command="kubelogin")


def answer(status: Any, *, kind: str = "ExecCredential", version: str = V1BETA1) -> bytes:
    return json.dumps({"apiVersion": version, "kind": kind, "status": status}).encode()


def test_an_exec_credential_may_be_a_token_until_a_moment() -> None:
    credential = exec_credential(
        answer({"token": "t0k", "expirationTimestamp": "2026-12-02T10:00:00Z"}), PLUGIN
    )
    expires = datetime.datetime(2026, 12, 2, 10, 0, 0, tzinfo=datetime.UTC)
    assert (credential.token, credential.certificate, credential.key) == ("t0k", None, None)
    assert credential.expires == expires
    second = datetime.timedelta(seconds=1)
    assert not credential.expired(expires - 11 * second)
    assert credential.expired(expires - 10 * second)
    assert credential.expired(expires)


def test_an_exec_credential_may_be_a_certificate_and_key_without_an_expiry() -> None:
    credential = exec_credential(
        answer({"clientCertificateData": PEM.decode(), "clientKeyData": KEY.decode()}), PLUGIN
    )
    assert (credential.token, credential.certificate, credential.key) == (None, PEM, KEY)
    assert credential.expires is None
    assert not credential.expired(datetime.datetime(2999, 1, 1, tzinfo=datetime.UTC))


@pytest.mark.parametrize(
    ("output", "message"),
    [
        pytest.param(b"token: t\n", "printed no ExecCredential JSON", id="not-json"),
        pytest.param(
            answer({"token": "t"}, kind="Secret"), "printed no ExecCredential", id="wrong-kind"
        ),
        pytest.param(
            answer({"token": "t"}, version=V1),
            "answered 'client.authentication.k8s.io/v1', not the "
            "'client.authentication.k8s.io/v1beta1' the kubeconfig asks for",
            id="another-api-version",
        ),
        pytest.param(
            answer({"clientCertificateData": PEM.decode()}),
            "answered neither a token nor a client certificate and key",
            id="certificate-without-key",
        ),
        pytest.param(
            answer({}), "answered neither a token nor a client certificate and key", id="empty"
        ),
    ],
)
def test_any_other_answer_of_an_exec_plugin_is_refused(output: bytes, message: str) -> None:
    with pytest.raises(KubeconfigError) as refused:
        exec_credential(output, PLUGIN)
    assert refused.value.message == f"the exec plugin 'kubelogin' {message}"


# -- in a Pod ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("host", "server"),
    [
        pytest.param("10.96.0.1", "https://10.96.0.1:443", id="ipv4"),
        pytest.param("fd00:10:96::1", "https://[fd00:10:96::1]:443", id="ipv6"),
    ],
)
def test_in_a_pod_the_server_is_the_service_account_s(host: str, server: str) -> None:
    endpoint = in_cluster(host, "443")
    assert endpoint.server == server
    assert endpoint.certificate_authority == Material(path=f"{SA}/ca.crt")
    assert endpoint.token_file == f"{SA}/token"
    assert endpoint.token is None


# -- the headers of a request ------------------------------------------------------------------


def connection_of(user: dict[str, Any], clock: Callable[[], float] | None = None) -> Connection:
    endpoint = one(SERVER, user)
    return Connection(endpoint, 1) if clock is None else Connection(endpoint, 1, clock=clock)


def test_a_bearer_token_is_sent_as_authorization() -> None:
    headers = connection_of({"token": "t"}).headers()
    assert headers["Authorization"] == "Bearer t"
    assert headers["User-Agent"].startswith("driftctl/")


def test_basic_credentials_are_sent_as_authorization() -> None:
    headers = connection_of({"username": "me", "password": "s3cr:t"}).headers()
    assert headers["Authorization"] == f"Basic {b64(b'me:s3cr:t')}"


def test_no_credential_sends_only_the_user_agent() -> None:
    headers = connection_of({}).headers()
    assert list(headers) == ["User-Agent"]
    assert headers["User-Agent"].startswith("driftctl/")


def test_a_token_file_is_read_again_after_a_minute(tmp_path: Path) -> None:
    token = tmp_path / "token"
    token.write_text("first\n")
    now = [1000.0]
    connection = connection_of({"tokenFile": str(token)}, clock=lambda: now[0])
    assert connection.headers()["Authorization"] == "Bearer first"
    token.write_text("second\n")
    now[0] += 59.9
    assert connection.headers()["Authorization"] == "Bearer first"
    now[0] = 1060.0
    assert connection.headers()["Authorization"] == "Bearer second"
    token.write_text("third")
    now[0] += 30
    assert connection.headers()["Authorization"] == "Bearer second"


def test_impersonation_is_sent_as_impersonate_headers() -> None:
    headers = connection_of(
        {
            "token": "t",
            "as": "jane",
            "as-uid": "42",
            "as-groups": ["dev", "ops"],
            "as-user-extra": {"example.com/team": ["blue"], "scopes": ["read", "write"]},
        }
    ).headers()
    assert headers["Authorization"] == "Bearer t"
    assert headers["Impersonate-User"] == "jane"
    assert headers["Impersonate-Uid"] == "42"
    assert headers.getlist("Impersonate-Group") == ["dev", "ops"]
    assert headers.getlist("Impersonate-Extra-example.com%2Fteam") == ["blue"]
    assert headers.getlist("Impersonate-Extra-scopes") == ["read", "write"]
    assert headers["User-Agent"].startswith("driftctl/")


# -- the official client as an oracle ----------------------------------------------------------


def contents(material: Material | None) -> bytes | None:
    if material is None:
        return None
    if material.data is not None:
        return material.data
    assert material.path is not None
    return Path(material.path).read_bytes()


def read(path: str | None) -> bytes | None:
    return None if path is None else Path(path).read_bytes()


ORACLE_CASES = [
    pytest.param(
        {"server": "https://10.0.0.1:6443", "certificate-authority-data": b64(PEM)},
        {"token": "abc.def"},
        None,
        id="ca-data-and-token",
    ),
    pytest.param(
        {
            "server": "https://api.example:6443/",
            "certificate-authority": "pki/ca.crt",
            "tls-server-name": "kubernetes.default",
        },
        {"client-certificate": "pki/me.crt", "client-key": "pki/me.key"},
        None,
        id="relative-files-and-tls-server-name",
    ),
    pytest.param(
        {
            "server": "https://10.0.0.2",
            "insecure-skip-tls-verify": True,
            "proxy-url": "http://proxy.example:3128",
        },
        {"token": "t"},
        None,
        id="insecure-and-proxy",
    ),
    pytest.param(
        {"server": "https://10.0.0.3:443", "certificate-authority": "ABSOLUTE/pki/ca.crt"},
        {"client-certificate-data": b64(PEM), "client-key-data": b64(KEY)},
        None,
        id="absolute-ca-and-client-data",
    ),
    pytest.param(
        {"server": "https://10.0.0.4"},
        {"username": "me", "password": "pw"},
        None,
        id="basic",
    ),
    pytest.param(
        {"server": "https://10.0.0.5", "certificate-authority": "pki/ca.crt"},
        {"tokenFile": "token"},
        "other",
        id="token-file-in-a-context-asked-for",
    ),
]


@pytest.mark.parametrize(("cluster", "user", "context"), ORACLE_CASES)
def test_the_endpoint_says_what_the_official_client_says(
    tmp_path: Path, cluster: dict[str, Any], user: dict[str, Any], context: str | None
) -> None:
    (tmp_path / "kube" / "pki").mkdir(parents=True)
    (tmp_path / "kube" / "pki" / "ca.crt").write_bytes(PEM)
    (tmp_path / "kube" / "pki" / "me.crt").write_bytes(b"client " + PEM)
    (tmp_path / "kube" / "pki" / "me.key").write_bytes(KEY)
    (tmp_path / "kube" / "token").write_text("from-a-file")  # the client keeps a newline
    cluster = {
        key: value.replace("ABSOLUTE", str(tmp_path / "kube")) if isinstance(value, str) else value
        for key, value in cluster.items()
    }
    written = document(
        clusters={"k": cluster, "decoy": {"server": "https://decoy"}},
        users={"u": user, "nobody": {"token": "decoy"}},
        contexts={
            "current": {"cluster": "k", "user": "u"}
            if context is None
            else {"cluster": "decoy", "user": "nobody"},
            "other": {"cluster": "k", "user": "u"},
        },
        current="current",
    )
    path = tmp_path / "kube" / "config"
    path.write_text(yaml.safe_dump(written))

    ours = resolve(read_kubeconfigs(str(path)), context)
    theirs = client.Configuration()
    config.load_kube_config(  # type: ignore[no-untyped-call]
        config_file=str(path), context=context, client_configuration=theirs
    )

    assert ours.server == theirs.host
    assert (not ours.insecure) == theirs.verify_ssl
    assert contents(ours.certificate_authority) == read(theirs.ssl_ca_cert)
    assert contents(ours.client_certificate) == read(theirs.cert_file)
    assert contents(ours.client_key) == read(theirs.key_file)
    assert ours.tls_server_name == theirs.tls_server_name
    assert ours.proxy_url == theirs.proxy
    authorization = theirs.api_key.get("BearerToken", theirs.api_key.get("authorization"))
    # The headers do not depend on the TLS material, which is not real enough for ssl.
    plain = dataclasses.replace(
        ours, certificate_authority=None, client_certificate=None, client_key=None
    )
    assert Connection(plain, 1).headers().get("Authorization") == authorization


def test_a_legacy_auth_providers_token_comes_from_the_official_clients_loader(
    tmp_path: Path,
) -> None:
    """An oidc id-token that has not expired is sent as it is, as kubectl sends it."""
    claims = json.dumps({"exp": 4102444800, "sub": "someone"}).encode()  # 2100-01-01
    payload = base64.urlsafe_b64encode(claims).decode().rstrip("=")
    id_token = f"eyJhbGciOiJub25lIn0.{payload}.c2lnbmF0dXJl"
    provider = {"name": "oidc", "config": {"id-token": id_token, "idp-issuer-url": "x"}}
    path = tmp_path / "kubeconfig"
    path.write_text(
        json.dumps(single({"server": "http://127.0.0.1:1"}, {"auth-provider": provider}))
    )

    connection = kube_credentials.connection(str(path), None, pool_size=1)

    assert connection.endpoint.auth_provider == provider
    assert connection.headers()["Authorization"] == f"Bearer {id_token}"


@pytest.mark.parametrize(
    ("server", "proxy"),
    [
        ("https://api.example.com:6443", "http://proxy.example.com:3128"),
        ("https://10.0.0.1:443", "http://proxy.example.com:3128"),
        ("https://k8s.internal.example:443", None),  # NO_PROXY names its domain
        ("https://kubernetes.default.svc", None),  # and this suffix
        ("https://127.0.0.1:6443", None),  # loopback is never proxied, as with kubectl
        ("https://localhost:6443", None),
        ("https://[::1]:6443", None),
        ("http://api.example.com", None),  # no HTTP_PROXY is set
    ],
)
def test_the_environments_proxy_is_used_as_kubectl_uses_it(
    monkeypatch: pytest.MonkeyPatch, server: str, proxy: str | None
) -> None:
    for name in ("HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.example.com:3128")
    monkeypatch.setenv("NO_PROXY", "internal.example,.svc")

    assert kube_credentials.environment_proxy(server) == proxy
