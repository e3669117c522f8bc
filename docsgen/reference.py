"""The reference tables that are not about one command: exit codes, the names driftctl puts
on live objects, the CRD, the metrics a run pushes.

Each is read from the module that owns it. Where the code holds a name but not what it
means (an exit code's meaning, a label's purpose), the words are kept here, keyed by the
code's own value, and a name without words (or words for a name that is gone) stops the
build instead of leaving the page behind.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Final

import yaml
from click.testing import CliRunner

from docsgen import commands
from docsgen.markdown import code, fenced, plain, table
from driftctl import conventions as c
from driftctl.errors import ExitCode
from driftctl.render.metrics import RunResult, run_registry
from driftctl.settings import Shard


class Undocumented(Exception):
    """The code has something the reference has no words for (or the other way round)."""


def _complete(kind: str, names: set[str], documented: set[str]) -> None:
    missing, gone = sorted(names - documented), sorted(documented - names)
    if missing or gone:
        raise Undocumented(
            f"{kind}: undocumented {missing or 'none'}; documented but gone {gone or 'none'} "
            "(docsgen/reference.py keeps their words)"
        )


EXIT_MEANINGS: Final[Mapping[ExitCode, str]] = {
    ExitCode.OK: "success; `plan`/`diff`: nothing to change; `validate`: the input is valid; "
    "`check`: nothing that `--fail-on` names was found",
    ExitCode.CHANGES: "`plan`/`diff`: changes found (the kubectl/Flux/Argo CD convention); "
    "`check`: found a prune, replace, drift or change, or an unsigned or untrusted commit, "
    "that `--fail-on` names",
    ExitCode.USAGE: "usage error: bad flags; `plan --out` of a dirty working tree; drift or "
    "policy flags given to `apply --plan`; `--verify` of a working tree with changes",
    ExitCode.INVALID_INPUT: "invalid input, nothing written: invalid desired state (a WebApp "
    "outside `--target-namespaces` too); a commit `--verify` refuses (unsigned, signed by a "
    "key not trusted, expired or revoked, or not descending from the last revision verified "
    "without `--allow-rewind`); `check`: an invalid head with `--fail-on invalid`, "
    "or an invalid base; `apply --plan`: a saved plan for another instance, source or CRD, "
    "or malformed",
    ExitCode.ENVIRONMENT: "environment error: Git or the cluster unreachable, authentication "
    "or permission refused; a transient failure the retries gave up on",
    ExitCode.PARTIAL_FAILURE: "`apply` finished with some objects failed, or a prune guard "
    "refused (the others were applied)",
    ExitCode.LOCKED: "another run holds the lock; `watch` lost its Lease or passed its renew "
    "deadline",
    ExitCode.INTERRUPTED: "interrupted (Ctrl-C, SIGINT)",
}


def exit_codes_table() -> str:
    """Every exit code of driftctl.errors.ExitCode, with its meaning."""
    _complete("exit codes", {each.name for each in ExitCode}, {e.name for e in EXIT_MEANINGS})
    return table(
        ("code", "name in driftctl.errors", "meaning"),
        [[str(int(each)), code(each.name), EXIT_MEANINGS[each]] for each in ExitCode],
    )


# The names of driftctl.conventions on a page, grouped as the page shows them. Each row:
# the constant's name, what it is, and how its value is shown ("{} = `{}`": with its
# companion value, e.g. the label's only value).
_LABELS: Final = (
    ("MANAGED_BY_LABEL", "on every WebApp and Deployment driftctl applies", "{} = `{}`"),
    ("INSTANCE_LABEL", "the instance that owns the object; every read selects on it", "{}"),
    ("NAME_LABEL", "the WebApp's name, on the Deployment, its selector and its Pods", "{}"),
    (
        "SELECTOR_INSTANCE_LABEL",
        "the WebApp's name too: with the name label, the Deployment's immutable selector",
        "{}",
    ),
)
_ANNOTATIONS: Final = (
    ("REVISION_ANNOTATION", "the Git commit last applied to the object", "{}"),
    ("SOURCE_ANNOTATION", "where it is declared: `<url without credentials>#<path>`", "{}"),
    (
        "PRUNE_ANNOTATION",
        "set on a live object by a person: driftctl never prunes it",
        "{} = `{}`",
    ),
    ("IGNORE_ANNOTATION", "in Git: ignore rules of one WebApp (`Kind:/pointer`, by commas)", "{}"),
    (
        "VERIFIED_REVISION_ANNOTATION",
        "on the run lock's Lease (`--verify`): the last commit verified and applied; the next "
        "run refuses a commit that does not descend from it",
        "{}",
    ),
    (
        "VERIFIED_KEY_ANNOTATION",
        "on the run lock's Lease: the fingerprint of the key that signed that commit",
        "{}",
    ),
)
_OTHERS: Final = (
    ("FINALIZER", "on every WebApp driftctl applied: its cleanup runs before it goes", "{}"),
    ("FIELD_MANAGER", "the server-side apply field manager (`--field-manager`)", "{}"),
    ("CONTAINER_NAME", "the one container of a Deployment driftctl builds", "{}"),
    ("METRICS_JOB", "the `job` of the Pushgateway group a run pushes to", "{}"),
    ("GIT_TOKEN_ENV", "the variable a token for an `https://` repository is read from", "{}"),
    ("DEFAULT_INSTANCE", "the instance when `--instance` is not given", "{}"),
    ("DEFAULT_NAMESPACE", "the namespace of a WebApp that names none (`--namespace`)", "{}"),
)
# Companions shown in another name's row, and the resource's own names (the CRD page).
_SHOWN_ELSEWHERE: Final = frozenset(
    {"MANAGED_BY_VALUE", "PRUNE_DISABLED", "GROUP", "VERSION", "API_VERSION", "KIND", "PLURAL"}
    | {"SINGULAR", "SHORT_NAME", "CRD_NAME", "DEPLOYMENT_API_VERSION", "DEPLOYMENT_KIND"}
    | {"AUTOSCALER_KIND"}
)
_SOURCE: Final = "in driftctl.conventions"
_COMPANIONS: Final = {"MANAGED_BY_LABEL": "MANAGED_BY_VALUE", "PRUNE_ANNOTATION": "PRUNE_DISABLED"}


def _constants() -> dict[str, str]:
    return {
        name: value for name, value in vars(c).items() if name.isupper() and isinstance(value, str)
    }


def _rows(entries: tuple[tuple[str, str, str], ...]) -> list[list[str]]:
    values = _constants()
    rows = []
    for name, meaning, shape in entries:
        shown = [code(values[name])]
        if name in _COMPANIONS:
            shown.append(values[_COMPANIONS[name]])
        rows.append([shape.format(*shown), meaning, code(name)])
    return rows


def conventions_tables() -> str:
    """Labels, annotations, the finalizer and the other names of driftctl.conventions."""
    documented = {name for group in (_LABELS, _ANNOTATIONS, _OTHERS) for name, _, _ in group}
    _complete(
        "driftctl.conventions",
        set(_constants()) - _SHOWN_ELSEWHERE,
        documented,
    )
    lease = code(c.lease_name("<instance>"))
    shard = code(c.lease_name("<instance>", 0).removesuffix("0") + "<index>")
    leases = [
        [lease, "the run lock of an instance (a `coordination.k8s.io/v1` Lease), and the "
         "leader election of `watch`", code("lease_name(instance)")],
        [shard, "the run lock of one shard (`--shard-count`, `--shard-index`)",
         code("lease_name(instance, shard)")],
    ]  # fmt: skip
    return "\n\n".join(
        [
            "### Labels",
            table(("label", "meaning", _SOURCE), _rows(_LABELS)),
            "### Annotations",
            table(("annotation", "meaning", _SOURCE), _rows(_ANNOTATIONS)),
            "### Leases",
            table(("Lease", "meaning", _SOURCE), leases),
            "### Other names",
            table(("name", "meaning", _SOURCE), _rows(_OTHERS)),
        ]
    )


def crd_yaml() -> str:
    """What `driftctl crd` prints."""
    result = CliRunner().invoke(commands.group(), ["crd"], prog_name=commands.PROGRAM)
    if result.exit_code != 0:
        raise RuntimeError(f"driftctl crd exited {result.exit_code}: {result.output}")
    return result.output


def _crd() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(crd_yaml())
    return loaded


def crd_names_table() -> str:
    crd = _crd()
    names = crd["spec"]["names"]
    version = crd["spec"]["versions"][0]
    rows = [
        ["name", code(crd["metadata"]["name"])],
        ["group, version", code(f"{crd['spec']['group']}/{version['name']}")],
        ["kind, list kind", f"{code(names['kind'])}, {code(names['listKind'])}"],
        ["plural, singular, short names", ", ".join(code(n) for n in _names(names))],
        ["scope", crd["spec"]["scope"]],
        ["subresources", ", ".join(code(each) for each in version.get("subresources", {}))],
    ]
    return table(("what", "value"), rows)


def _names(names: Mapping[str, Any]) -> list[str]:
    return [names["plural"], names["singular"], *names.get("shortNames", [])]


def crd_fields_table() -> str:
    """Every field of the WebApp schema: type, rules and description."""
    schema = _crd()["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    rows = [
        [code(path), code(_type(node)), _rules(node, required), plain(node.get("description", ""))]
        for path, node, required in _fields(schema["properties"], schema.get("required", []), "")
        if path.split(".")[0] in ("spec", "status")
    ]
    return table(("field", "type", "rules", "description"), rows)


def _fields(
    properties: Mapping[str, Any], required: list[str], prefix: str
) -> Iterator[tuple[str, Mapping[str, Any], bool]]:
    for name, node in properties.items():
        path = f"{prefix}{name}"
        yield path, node, name in required
        item = node.get("items", {})
        if "properties" in node:
            yield from _fields(node["properties"], node.get("required", []), f"{path}.")
        elif "properties" in item:
            yield from _fields(item["properties"], item.get("required", []), f"{path}[].")


def _type(node: Mapping[str, Any]) -> str:
    shown = node.get("type", "")
    return f"{shown} ({node['format']})" if "format" in node else shown


def _rules(node: Mapping[str, Any], required: bool) -> str:
    rules = ["required"] if required else []
    for key, word in (("minimum", "≥"), ("maximum", "≤"), ("minLength", "length ≥")):
        if key in node:
            rules.append(f"{word} {node[key]}")
    if "maxLength" in node:
        rules.append(f"length ≤ {node['maxLength']}")
    if "maxItems" in node:
        rules.append(f"at most {node['maxItems']} items")
    if "enum" in node:
        rules.append("one of " + ", ".join(code(str(each)) for each in node["enum"]))
    if "x-kubernetes-list-map-keys" in node:
        rules.append("a map keyed by " + ", ".join(node["x-kubernetes-list-map-keys"]))
    return "; ".join(rules)


def printer_columns_table() -> str:
    columns = _crd()["spec"]["versions"][0].get("additionalPrinterColumns", [])
    return table(
        ("column", "type", "from"),
        [[each["name"], each["type"], code(each["jsonPath"])] for each in columns],
    )


def crd_page_yaml() -> str:
    return fenced(crd_yaml(), "yaml")


def pushed_metrics_table() -> str:
    """The metrics one `apply --pushgateway` run pushes, from the registry it pushes."""
    # A successful run with --verify: every metric a run can push.
    every = RunResult(0, 0.0, 0.0, Shard(), verified=("<commit>", "<fingerprint>"))
    registry = run_registry(every)
    rows = []
    for family in registry.collect():
        labels = sorted({key for sample in family.samples for key in sample.labels})
        name = family.name + ("{" + ",".join(labels) + "}" if labels else "")
        rows.append([code(name), family.type, plain(family.documentation)])
    return table(("metric", "type", "meaning"), rows)
