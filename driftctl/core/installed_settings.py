"""The settings an installation's Pods run with: one `--config` file in a ConfigMap.

`driftctl install` (core.installation) and the shipped folders (cronjob/, operator/, made
from it) hold an instance's settings as a settings file, `settings.yaml` in the ConfigMap
`driftctl-<...>settings`, mounted read-only at /etc/driftctl, with DRIFTCTL_CONFIG naming
it: keys named as the flags (docs/reference/settings-file.md), each with what it does, and
the settings people add most, left out. The variables keep working: a DRIFTCTL_<FLAG> set
on the container (an overlay's `env`) wins over the file, as a flag would. An installation
older than the file kept the same settings as DRIFTCTL_* keys read with envFrom:
`scope_of` reads either. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import yaml

from driftctl import conventions as c
from driftctl.settings.install import GitAuth

if TYPE_CHECKING:
    from driftctl.core.installation import Installation

SETTINGS_KEY = "settings.yaml"  # the ConfigMap's key, the file's name where it is mounted
SETTINGS_DIR = "/etc/driftctl"
GIT_FILES = "/var/run/secrets/driftctl/git"
KEY_FILES = "/var/run/secrets/driftctl/keys"

HEADER = (
    "driftctl's settings, a --config file (docs/reference/settings-file.md): keys named as",
    "the flags. The Pod reads it at /etc/driftctl/settings.yaml (DRIFTCTL_CONFIG); a",
    "DRIFTCTL_<FLAG> variable set on the container wins over it, as a flag would. Change it",
    "in your overlay (docs/get-started/cluster.md).",
)
ABOUT = {
    "timeout": (
        "The whole run, retries included; with wait-timeout, well under the Job's",
        "activeDeadlineSeconds (600), with room for the Git fetch.",
    ),
    "wait": (
        "true: after applying, follow the rollouts of the WebApps the run changed until each",
        "is Ready or Stalled, for at most wait-timeout; a rollout that stalled or did not",
        "finish fails the Job (exit 7).",
    ),
    "git-token-file": (
        "The Git credentials, files of the Secret driftctl-git mounted at",
        f"{GIT_FILES}. For https://, a token:",
    ),
    "git-ssh-key-file": (
        "The Git credentials, files of the Secret driftctl-git mounted at",
        f"{GIT_FILES}. For ssh://, a key and the host keys to trust:",
    ),
    "target-namespaces": ("The only namespaces read and written, as the Roles grant.",),
}
SSH = (
    "For ssh:// instead, a key and the host keys to trust (and no token file):",
    f"  git-ssh-key-file: {GIT_FILES}/ssh-privatekey",
    f"  git-known-hosts-file: {GIT_FILES}/known_hosts",
    "A public repository needs neither: leave all three out.",
)
MORE = (
    "",
    "Only commits signed by a trusted key (docs/how-to/verify-commits.md), the keys being",
    f"files of the Secret driftctl-keys mounted at {KEY_FILES}:",
    "  verify: head",
    f"  trusted-keys: {KEY_FILES}",
    f"  allowed-signers: {KEY_FILES}/allowed_signers",
    "What a run may do (docs/concepts/controls.md): gentler prunes, change windows, what",
    "happens to Git's changes and to drift. To suspend the instance, annotate its Lease.",
    "  prune-policy: quarantine",
    "  quarantine-grace: 24h",
    '  window: ["deny 0 18 * * 5 for 64h in Europe/Berlin on changes,prunes"]',
    "  drift-policy: warn",
    "Metrics for Prometheus, pushed when each run ends (docs/operations/metrics.md):",
    "  pushgateway: http://pushgateway.monitoring.svc:9091",
    "Notifications (docs/operations/notifications.md), secrets in files of a mounted Secret:",
    "  webhook-url: https://hooks.example.com/driftctl",
    "  webhook-secret-file: /var/run/secrets/driftctl/notify/webhook-secret",
    "  alertmanager-url: http://alertmanager.monitoring.svc:9093",
)


def settings(install: Installation) -> dict[str, Any]:
    """The installation's settings, keyed as a --config file keys them (as the flags)."""
    out: dict[str, Any] = {"repo": install.repo}
    if install.ref is not None:
        out["ref"] = install.ref
    if install.path:
        out["path"] = install.path
    out |= {"timeout": "5m", "log-format": "json", "wait": False, "wait-timeout": "4m"}
    if install.git_auth is GitAuth.TOKEN:
        out["git-token-file"] = f"{GIT_FILES}/token"
    elif install.git_auth is GitAuth.SSH:
        out["git-ssh-key-file"] = f"{GIT_FILES}/ssh-privatekey"
        out["git-known-hosts-file"] = f"{GIT_FILES}/known_hosts"
    if install.instance != c.DEFAULT_INSTANCE:
        out["instance"] = install.instance
    if install.target_namespaces:
        out["target-namespaces"] = list(install.target_namespaces)
    return out


def settings_file(install: Installation) -> str:
    """The settings file: the installation's settings, each with what it does, and the
    settings people add most, left out (commented)."""
    lines = _comment(HEADER)
    for key, value in settings(install).items():
        lines += _comment(ABOUT.get(key, ()))
        lines += yaml.safe_dump({key: value}, sort_keys=False, width=1000).splitlines()
    if install.git_auth is GitAuth.TOKEN:
        lines += _comment(SSH)
    lines += _comment(MORE)
    return "\n".join(lines) + "\n"


def _comment(lines: tuple[str, ...]) -> list[str]:
    return [f"# {line}" if line else "#" for line in lines]


def scope_of(data: Mapping[str, Any]) -> tuple[str, ...]:
    """The target namespaces an installed instance's settings ConfigMap names: its
    settings file's, or (an installation older than the file) its variable's."""
    try:
        found = yaml.safe_load(str(data.get(SETTINGS_KEY) or "")) or {}
    except yaml.YAMLError:
        found = {}
    listed = found.get("target-namespaces") if isinstance(found, dict) else None
    if listed is None:
        listed = data.get("DRIFTCTL_TARGET_NAMESPACES") or ""
    parts = listed.split(",") if isinstance(listed, str) else [str(each) for each in listed]
    return tuple(part.strip() for part in parts if part.strip())
