"""cronjob/ and operator/ are made from the code `driftctl install` applies: one copy.

driftctl.render.shipped makes every file of the four variants from core.installation;
each committed file must be exactly what it makes (`make manifests` writes them), and no
other manifest may lie beside them but the two written by hand. Each variant's settings
file (the ConfigMap's settings.yaml, the --config file the Pod reads) is one apply and
watch read as they read any --config file, and the settings it shows left out are keys
they know. No kustomize here: the kustomizations list plain files and patch nothing.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from driftctl.cli.config_file import load_config
from driftctl.core.installed_settings import SETTINGS_KEY, settings
from driftctl.render.shipped import VARIANTS, files
from tests.support.paths import ROOT

MADE = files()
BY_HAND = {"cronjob/sharded/kustomization.yaml", "cronjob/sharded/job.yaml"}
BY_HAND |= {"cronjob/git-secret.example.yaml"}


@pytest.mark.parametrize("path", sorted(MADE))
def test_each_shipped_file_is_what_the_code_makes(path: str) -> None:
    committed = (ROOT / path).read_text() if (ROOT / path).exists() else None

    assert committed == MADE[path], f"{path} is stale: run `make manifests`"


def test_nothing_else_lies_in_the_shipped_folders() -> None:
    found = {
        str(path.relative_to(ROOT))
        for folder in ("cronjob", "operator")
        for path in (ROOT / folder).rglob("*.yaml")
    }

    assert found - BY_HAND == set(MADE)


@pytest.mark.parametrize("folder", sorted(VARIANTS))
def test_a_kustomization_lists_files_of_its_own_and_patches_nothing(folder: str) -> None:
    kustomization = yaml.safe_load(MADE[f"{folder}/kustomization.yaml"])

    assert set(kustomization) == {"apiVersion", "kind", "resources"}
    for resource in kustomization["resources"]:
        assert (ROOT / folder / resource).exists(), resource


def settings_file(folder: str) -> str:
    configmap = yaml.safe_load(MADE[f"{folder}/settings.yaml"])
    text: str = configmap["data"][SETTINGS_KEY]
    return text


@pytest.mark.parametrize("command", ["apply", "watch"])
@pytest.mark.parametrize("folder", sorted(VARIANTS))
def test_each_settings_file_is_read_by_the_commands_it_serves(
    folder: str, command: str, tmp_path: Path
) -> None:
    path = tmp_path / SETTINGS_KEY
    path.write_text(settings_file(folder))

    read = load_config(path, command)

    by_key = {entry.setting.name: entry for entry in read.taken.values()}
    assert {key for key, *_ in read.unused} <= {"wait", "wait-timeout"}
    assert set(by_key) | {key for key, *_ in read.unused} == set(settings(VARIANTS[folder]))
    assert by_key["repo"].value == VARIANTS[folder].repo
    assert by_key["timeout"].value == 300


def test_the_settings_a_file_shows_left_out_are_ones_the_commands_take(tmp_path: Path) -> None:
    path = tmp_path / SETTINGS_KEY
    path.write_text(re.sub(r"^#   (?=[a-z-]+: )", "", settings_file("cronjob"), flags=re.M))

    read = load_config(path, "apply")

    assert {"verify", "window", "prune_policy", "pushgateway", "webhook_url"} <= set(read.taken)
    assert {"git_ssh_key_file", "git_known_hosts_file"} <= set(read.taken)
