"""The node's configuration, read as data: nothing it sets up can send a packet off the machine.

These check the files the launcher writes (tests/controlplane/node.py) without starting
anything; test_pods_run_on_the_node.py proves the same on a running node.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from tests.controlplane.node import (
    NodeError,
    NodeLayout,
    check_socket_paths,
    dead_proxy_environment,
    kubelet_config,
    write_configuration,
)


@pytest.fixture
def layout(tmp_path: Path) -> NodeLayout:
    written = NodeLayout(tmp_path / "node")
    write_configuration(written, "localhost/pause:1", dead_port=4444)
    return written


def test_the_pod_network_has_no_masquerading_and_no_default_route(layout: NodeLayout) -> None:
    conflists = list(layout.cni_conf_dir.glob("*.conflist"))
    bridge = json.loads(conflists[0].read_text())["plugins"][0]

    assert len(conflists) == 1
    assert (bridge["type"], bridge["ipMasq"], bridge["isDefaultGateway"]) == (
        "bridge",
        False,
        False,
    )
    assert bridge["isGateway"] is True  # the bridge's address: how the host reaches the Pods
    assert bridge["ipam"]["routes"] == []


def test_every_registry_resolves_to_the_dead_loopback_port(layout: NodeLayout) -> None:
    config = tomllib.loads(layout.containerd_config.read_text())
    cri = config["plugins"]["io.containerd.grpc.v1.cri"]
    hosts = tomllib.loads((layout.registry_hosts / "_default" / "hosts.toml").read_text())

    assert cri["registry"] == {"config_path": str(layout.registry_hosts)}
    assert hosts["server"] == "http://127.0.0.1:4444"
    assert list(hosts["host"]) == ["http://127.0.0.1:4444"]
    assert set(dead_proxy_environment(4444).values()) == {"http://127.0.0.1:4444", ""}


def test_containerd_keeps_its_state_in_the_node_folder_and_cannot_adjust_oom_scores(
    layout: NodeLayout,
) -> None:
    config = tomllib.loads(layout.containerd_config.read_text())
    cri = config["plugins"]["io.containerd.grpc.v1.cri"]
    runc = cri["containerd"]["runtimes"]["runc"]

    assert cri["restrict_oom_score_adj"] is True
    assert cri["netns_mounts_under_state_dir"] is True  # the Pods' namespaces too
    assert cri["sandbox_image"] == "localhost/pause:1"
    assert runc["options"] == {"SystemdCgroup": False, "Root": str(layout.containerd / "runc")}
    paths = [config["root"], config["state"], config["grpc"]["address"], runc["options"]["Root"]]
    assert all(path.startswith(f"{layout.root}/") for path in paths)


def test_pods_resolve_names_on_loopback_and_the_kubelet_listens_on_loopback(
    layout: NodeLayout,
) -> None:
    config = kubelet_config(layout, layout.root / "ca.crt", port=10250, healthz_port=10248)

    assert layout.resolv_conf.read_text() == "nameserver 127.0.0.1\n"
    assert config["resolvConf"] == str(layout.resolv_conf)
    assert (config["address"], config["healthzBindAddress"]) == ("127.0.0.1", "127.0.0.1")
    assert config["readOnlyPort"] == 0


def test_a_folder_too_deep_for_unix_sockets_is_refused(tmp_path: Path) -> None:
    deep = NodeLayout(tmp_path / ("d" * 80) / "node")

    with pytest.raises(NodeError, match="too long for a unix socket"):
        check_socket_paths(deep)
