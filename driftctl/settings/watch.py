"""How `driftctl watch` paces itself, which shard it leads, and where it serves /healthz,
/readyz and /metrics: `Watch`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from driftctl.settings.cluster import Shard
from driftctl.settings.declare import Group, setting
from driftctl.settings.kinds import Parsed, Refusal, Whole
from driftctl.settings.spans import Seconds

MIN_LEASE_SECONDS = 3


@dataclass(frozen=True)
class Address:
    """Where a server listens: a host (all interfaces when none is given) and a port."""

    host: str
    port: int

    @classmethod
    def parse(cls, text: str) -> Address:
        """`HOST:PORT`, `[::1]:PORT` or `:PORT` (every interface)."""
        host, colon, port = text.rpartition(":")
        if not colon or not port.isdigit():
            raise Refusal(
                f"must be HOST:PORT or :PORT, not {text!r}",
                hint="for example --metrics-addr 127.0.0.1:8080 or --metrics-addr :8080",
            )
        if not 0 <= int(port) <= 65535:
            raise Refusal(f"port must be 0 to 65535, got {port}")
        return cls(host.strip("[]") or "0.0.0.0", int(port))

    def __str__(self) -> str:
        host = "" if self.host == "0.0.0.0" else self.host
        return f"[{host}]:{self.port}" if ":" in host else f"{host}:{self.port}"


@dataclass(frozen=True, kw_only=True)
class Watch:
    """How `driftctl watch` paces itself (module docstring)."""

    GROUP: ClassVar = Group("Watch flags", frozenset({"watch"}))

    resync: float = setting(  # the seed operator's requeue
        "resync",
        Seconds(minimum=1),
        300.0,
        help="Time between full plans and applies (fresh LISTs), so that anything a watch "
        "missed converges.",
    )
    git_poll: float = setting(
        "git-poll",
        Seconds(minimum=0.1),
        15.0,
        help="Time between looks at the Git ref; the commit is fetched only when it moved.",
    )
    metrics: Address = setting(
        "metrics-addr",
        Parsed(Address.parse),
        Address("0.0.0.0", 8080),
        metavar="[HOST]:PORT",
        help="Where /healthz, /readyz and /metrics are served (port 0: any free port).",
    )
    lease_duration: float = setting(  # renewed every third, given up after two thirds
        "lease-duration",
        Seconds(minimum=MIN_LEASE_SECONDS, whole=True),
        30.0,
        help="How long a standby waits for a silent leader (whole seconds). The leader renews "
        "every third of it and stops (exit 6) when no renewal succeeded for two thirds of it.",
    )
    shard_count: int = setting(
        "shard-count",
        Whole(minimum=1),
        1,
        help="Split the instance's WebApps into this many shards, each led by one process "
        "(its own Lease, driftctl-<instance>-shard-<i>); as apply's --shard-count.",
    )
    shard_index: int | None = setting(  # None: whichever shard's Lease is free
        "shard-index",
        Whole(minimum=0),
        help="Lead only this shard (default: whichever shard's Lease is free, so that the "
        "replicas of one Deployment share the shards out).",
    )

    def __post_init__(self) -> None:
        Shard(index=self.shard_index or 0, count=self.shard_count)  # the same bounds as apply's

    @property
    def metrics_host(self) -> str:
        """The host /metrics is served on."""
        return self.metrics.host

    @property
    def metrics_port(self) -> int:
        """The port /metrics is served on (0: any free port)."""
        return self.metrics.port

    @property
    def shards(self) -> tuple[Shard, ...]:
        """The shards this process may lead, in the order it tries their Leases."""
        if self.shard_index is not None:
            return (Shard(index=self.shard_index, count=self.shard_count),)
        return tuple(
            Shard(index=index, count=self.shard_count) for index in range(self.shard_count)
        )
