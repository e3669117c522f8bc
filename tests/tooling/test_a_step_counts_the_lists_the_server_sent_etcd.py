"""bench_cluster counts, per step, the LIST requests the API server sent etcd for WebApps and
Deployments (the pages its watch cache could not answer), and the report shows them; a
record made before they were counted says so instead of showing zeros."""

from __future__ import annotations

import json
from typing import Any

from benchmarks import cluster_report
from tests.support.control_plane import counts_in

ETCD = "etcd_request_duration_seconds"
# /metrics as kube-apiserver v1.37 writes these series (labels: operation, group, resource).
SERIES = [
    (
        f"{ETCD}_bucket",
        'group="example.com",operation="listWithCount",resource="webapps",le="1"',
        3,
    ),
    (f"{ETCD}_count", 'group="example.com",operation="listWithCount",resource="webapps"', 9),
    (f"{ETCD}_count", 'group="apps",operation="listWithCount",resource="deployments"', 4),
    (f"{ETCD}_count", 'group="apps",operation="list",resource="deployments"', 1),
    (f"{ETCD}_count", 'group="example.com",operation="get",resource="webapps"', 50),
    (f"{ETCD}_count", 'group="",operation="listWithCount",resource="pods"', 7),
    (f"{ETCD}_count", 'group="apps",operation="listWithCount",resource="replicasets"', 2),
    (
        "apiserver_request_total",
        'code="200",dry_run="",resource="webapps",scope="cluster",subresource="",verb="LIST"',
        10,
    ),
]
METRICS = "\n".join(
    [f"# TYPE {ETCD} histogram", *(f"{name}{{{labels}}} {n}" for name, labels, n in SERIES)]
)


def test_only_the_lists_of_webapps_and_deployments_sent_to_etcd_count() -> None:
    counted = counts_in(METRICS)

    assert counted.etcd_lists == 9 + 4 + 1
    assert counted.by_series[("webapps", "", "LIST", "cluster", "", "200")] == 10


def sample(tool: str, step: str, etcd_lists: int | None) -> dict[str, Any]:
    counted = {} if etcd_lists is None else {"etcd_lists": etcd_lists}
    return {
        "size": 10000, "step": step, "tool": tool, "repetition": 0, "seconds": 1.0,
        "cpu_seconds": 1.0, "rss_kib": 1024, "requests": 42, "by_verb": {},
        "server_cpu_seconds": 1.0, "load": 0.5, **counted,
    }  # fmt: skip


def test_the_report_shows_each_tools_count_per_step() -> None:
    data = {
        "samples": [
            sample("kubectl", "no-drift plan", 0),
            sample("driftctl", "no-drift plan", 40),
            sample(cluster_report.FLOOR, "no-drift plan", 40),
            sample("driftctl", "drift apply", 0),
        ]
    }

    assert cluster_report.etcd_table(json.loads(json.dumps(data))) == [
        "| N | step | driftctl | kubectl | paged LIST |",
        "|---:|---|---|---|---|",
        "| 10,000 | no-drift plan | 40 | 0 | 40 |",
        "| 10,000 | drift apply | 0 | - | - |",
    ]


def test_a_record_from_before_the_count_says_it_was_not_counted() -> None:
    data = {"samples": [sample("driftctl", "no-drift plan", None)]}

    assert cluster_report.etcd_table(data) == ["Not counted in this record."]
    assert cluster_report.samples(data)[0].etcd_lists is None
