"""Every flag is checked once, when the settings are built: a bad one exits 2 with its reason
before Git or the cluster is touched, whether it came from the command line or from its
DRIFTCTL_* environment variable."""

from __future__ import annotations

from pathlib import Path

import pytest

from driftctl.errors import UsageError
from driftctl.settings import Cluster, Lock, MaxPrune, Policy, Source, namespace_list
from driftctl.settings.declare import from_written
from tests.support.clirun import run_driftctl

# Neither exists: reading either would fail with exit 4, so exit 2 proves nothing was read.
NOWHERE = ["--repo", "/nonexistent/repo", "--kubeconfig", "/nonexistent/kubeconfig"]


@pytest.mark.parametrize(
    ("flags", "reason"),
    [
        pytest.param(["--instance", "Blue_Team"], "--instance must be", id="instance-not-a-name"),
        pytest.param(["--instance", ""], "--instance must not be empty", id="instance-empty"),
        pytest.param(["--instance", "a" * 64], "--instance must be", id="instance-too-long"),
        pytest.param(["--namespace", "Web"], "--namespace must be", id="namespace-uppercase"),
        pytest.param(["--field-manager", "m" * 129], "--field-manager must be", id="manager"),
        pytest.param(["--max-prune", "many"], "--max-prune must be a count", id="max-prune"),
        pytest.param(["--max-prune", "101%"], "at most 100%", id="max-prune-percent"),
        pytest.param(["--lock-namespace", "a.b"], "--lock-namespace must be", id="lock-ns"),
        pytest.param(
            ["--shard-count", "3", "--shard-index", "3"],
            "--shard-index must be 0 to 2 for --shard-count 3, got 3",
            id="shard-index",
        ),
        pytest.param(["--shard-count", "0"], "0 is not in the range x>=1", id="count"),
        pytest.param(["--pushgateway", "gw:9091"], "must start with http://", id="push-scheme"),
        pytest.param(
            ["--pushgateway", "https://bot:hunter2@gw:9091"],
            "--pushgateway must not carry credentials",
            id="push-credentials",
        ),
        pytest.param(["--log-format", "xml"], "error: --log-format: 'xml' is not one of", id="log"),
        pytest.param(["--ignore", "Pod:/spec"], "--ignore 'Pod:/spec' names kind", id="ignore"),
        pytest.param(
            ["--ignore", "Deployment:/spec/selector"], "is immutable", id="ignore-selector"
        ),
        pytest.param(["--ignore-manager", ""], "--ignore-manager must be", id="ignore-manager"),
        pytest.param(["--override-manager", " "], "--override-manager must", id="override"),
        pytest.param(
            ["--target-namespaces", "shop,Blog"],
            "--target-namespaces 'Blog' must be",
            id="target-namespace-uppercase",
        ),
        pytest.param(
            ["--target-namespaces", "shop,,blog"],
            "--target-namespaces '' must",
            id="target-namespace-empty",
        ),
        pytest.param(
            ["--target-namespaces", "shop,shop"],
            "--target-namespaces names a namespace twice",
            id="target-namespace-twice",
        ),
        pytest.param(
            ["--window", "deny 0 18 * * 5 for 64h in Europe/Berln"],
            "--window: time zone 'Europe/Berln' is not known",
            id="window-zone",
        ),
        pytest.param(
            ["--quarantine-grace", "soon"],
            "'soon' is not a duration: write 500ms, 30s, 5m, 1h30m, 2d or",
            id="quarantine-grace",
        ),
        pytest.param(
            ["--prune-policy", "keep"], "error: --prune-policy: 'keep' is not one of", id="prune"
        ),
        pytest.param(
            ["--drift-policy", "ignore"],
            "error: --drift-policy: 'ignore' is not one of",
            id="drift",
        ),
        pytest.param(
            ["--git-ssh-key-file", "/k"],
            "--git-ssh-key-file needs --git-known-hosts-file",
            id="ssh-key-without-known-hosts",
        ),
        pytest.param(
            ["--git-token-file", "/t", "--git-ssh-key-file", "/k", "--git-known-hosts-file", "/h"],
            "--git-token-file and --git-ssh-key-file cannot be used together",
            id="token-and-ssh-key",
        ),
        pytest.param(
            ["--verify", "tail"], "error: --verify: 'tail' is not one of", id="verify-mode"
        ),
        pytest.param(["--verify", "head"], "--verify head needs the keys to trust", id="no-keys"),
        pytest.param(
            ["--trusted-keys", "/keys", "--allow-rewind"],
            "--trusted-keys, --allow-rewind only work with --verify head or --verify all",
            id="keys-without-verify",
        ),
    ],
)
def test_a_bad_flag_exits_2_naming_it_before_git_or_the_cluster(
    flags: list[str],
    reason: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ran = run_driftctl(["apply", *NOWHERE, *flags], capsys, monkeypatch)

    assert ran.code == 2
    assert reason in ran.err
    assert "Traceback" not in ran.err


def test_a_bad_instance_is_named_as_it_was_typed(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    ran = run_driftctl(["plan", *NOWHERE, "--instance", "Foo_Bar"], capsys, monkeypatch)

    assert ran.code == 2
    assert ran.err.splitlines() == [
        "error: --instance must be a lowercase RFC 1123 subdomain (a-z, 0-9, '-' and '.', "
        "starting and ending with a letter or digit), got 'Foo_Bar'",
        "hint: the instance is a label value and names the run lock's Lease, driftctl-<instance>",
    ]


def test_an_indexed_jobs_completion_index_is_the_shard_index(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JOB_COMPLETION_INDEX", "4")
    monkeypatch.setenv("DRIFTCTL_SHARD_COUNT", "3")

    ran = run_driftctl(["apply", *NOWHERE], capsys, monkeypatch)

    assert ran.code == 2
    assert "--shard-index must be 0 to 2 for --shard-count 3, got 4" in ran.err
    assert "JOB_COMPLETION_INDEX" in ran.err  # the hint says where the index came from


def test_flags_are_read_from_their_environment_variables(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DRIFTCTL_MAX_PRUNE", "lots")

    ran = run_driftctl(["plan", *NOWHERE], capsys, monkeypatch)

    assert ran.code == 2
    assert ran.err.startswith(
        "error: --max-prune (from DRIFTCTL_MAX_PRUNE): must be a count N or a percentage P%, "
        "not 'lots'"
    )


def test_repeatable_flags_are_read_from_their_variable_split_on_spaces(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DRIFTCTL_IGNORE", "Deployment:/spec/replicas WebApp:/spec/image")

    ran = run_driftctl(["plan", *NOWHERE], capsys, monkeypatch)

    assert ran.code == 2
    assert "--ignore (from DRIFTCTL_IGNORE): 'WebApp:/spec/image' is the WebApp's" in ran.err


def test_windows_are_read_from_their_variable_split_on_semicolons(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DRIFTCTL_WINDOW", "deny 0 18 * * 5 for 64h; allow @daily for 2h at noon")

    ran = run_driftctl(["plan", *NOWHERE], capsys, monkeypatch)

    assert ran.code == 2
    assert (
        "--window (from DRIFTCTL_WINDOW): window 'allow @daily for 2h at noon': after the "
        "duration come only" in ran.err
    )


def test_the_command_line_wins_over_the_environment(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DRIFTCTL_INSTANCE", "Not_Valid")

    ran = run_driftctl(["plan", *NOWHERE, "--instance", "blue"], capsys, monkeypatch)

    assert ran.code == 4, "a valid --instance on the command line gets past the settings"
    assert "/nonexistent/repo" in ran.err


def test_help_names_the_environment_variable_of_each_flag(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    ran = run_driftctl(["apply", "--help"], capsys, monkeypatch)

    for variable in ("DRIFTCTL_REPO", "DRIFTCTL_MAX_PRUNE", "DRIFTCTL_PRUNE", "KUBECONFIG"):
        assert variable in ran.out


def test_settings_hold_typed_values() -> None:
    policy = from_written(Policy, prune=True, allow_empty=False, max_prune="25%", recreate=True)

    assert policy.max_prune == MaxPrune(25, percent=True)
    assert Source(repo=str(Path("x")), namespace="web").at("main").ref == "main"
    assert Cluster(instance="shard-1.eu").instance == "shard-1.eu"
    assert Lock().namespace == "driftctl-system"
    assert namespace_list(" shop, blog ") == ("shop", "blog")
    assert namespace_list("") == namespace_list(None) == ()
    with pytest.raises(UsageError, match="--instance"):
        from_written(Cluster, instance="-leading-dash")
