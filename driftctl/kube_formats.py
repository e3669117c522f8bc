"""The formats of the Kubernetes API: names (RFC 1123 labels and subdomains, label keys and
values) and times (Time and MicroTime).

The one place these rules are written. Validation of WebApps in Git (core.source.validate)
and of flags (settings) both ask here, so a name the API server would refuse is refused
before any request, with the same words; status, Events and the Lease write times here.
Pure: the name checks return why a value is invalid, or None.
"""

from __future__ import annotations

import datetime
import functools
import re

_DNS_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
_DNS_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_QUALIFIED_NAME = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")
_LABEL_VALUE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")
MAX_LABEL = 63
MAX_SUBDOMAIN = 253


def label_problem(value: str) -> str | None:
    """Why `value` is not an RFC 1123 label (a namespace name), or None."""
    return _rfc1123(value, _DNS_LABEL, MAX_LABEL, "label")


def subdomain_problem(value: str) -> str | None:
    """Why `value` is not an RFC 1123 subdomain (most object names), or None."""
    return _rfc1123(value, _DNS_SUBDOMAIN, MAX_SUBDOMAIN, "subdomain")


def _rfc1123(value: str, pattern: re.Pattern[str], limit: int, kind: str) -> str | None:
    if len(value) > limit:
        return f"must be at most {limit} characters, got {len(value)}"
    if pattern.fullmatch(value) is None:
        allowed = "a-z, 0-9, '-' and '.'" if kind == "subdomain" else "a-z, 0-9 and '-'"
        return (
            f"must be a lowercase RFC 1123 {kind} ({allowed}, starting and ending with a "
            f"letter or digit), got {value!r}"
        )
    return None


def label_key_problem(key: str) -> str | None:
    """Why `key` is not a label or annotation key (`[prefix/]name`), or None."""
    prefix, _slash, name = key.partition("/") if "/" in key else ("", "", key)
    if prefix and subdomain_problem(prefix) is not None:
        return f"has an invalid key: the prefix {prefix!r} must be a lowercase DNS subdomain"
    if len(name) > MAX_LABEL or _QUALIFIED_NAME.fullmatch(name) is None:
        return (
            f"has an invalid key: the name {name!r} must be 1 to 63 letters, digits, '-', '_' "
            "or '.', starting and ending with a letter or digit"
        )
    return None


def label_value_problem(value: str) -> str | None:
    """Why `value` cannot be a label value, or None."""
    if len(value) > MAX_LABEL or _LABEL_VALUE.fullmatch(value) is None:
        return (
            "must be at most 63 letters, digits, '-', '_' or '.', starting and ending with "
            f"a letter or digit, got {value!r}"
        )
    return None


@functools.lru_cache(maxsize=64)  # a run's `now`, spelled in each of 10,000 statuses
def api_time(moment: datetime.datetime) -> str:
    """A `Time` as the API server writes it: RFC 3339 in UTC, whole seconds."""
    return moment.astimezone(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def api_micro_time(moment: datetime.datetime) -> str:
    """A `MicroTime` (Leases): RFC 3339 in UTC with microseconds."""
    return moment.astimezone(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_api_time(text: str | None) -> datetime.datetime | None:
    """A Time or MicroTime read back; None when absent."""
    if not text:
        return None
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
