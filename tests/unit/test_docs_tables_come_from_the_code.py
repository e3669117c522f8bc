"""The reference tables of the documentation site are made from the modules that own the
facts, and a fact without words (a new exit code, a new label) stops the build."""

from __future__ import annotations

import pytest

from docsgen import reference
from driftctl import conventions as c
from driftctl.errors import ExitCode
from tests.support.paths import ROOT


def rows(table: str) -> list[list[str]]:
    lines = [line for line in table.splitlines() if line.startswith("| ")][1:]
    return [[cell.strip() for cell in line.strip("|").split(" | ")] for line in lines]


def test_the_exit_code_table_has_every_code_of_driftctl_errors_in_order() -> None:
    codes = [row[0] for row in rows(reference.exit_codes_table())]

    assert codes == [str(int(each)) for each in ExitCode]


def test_an_exit_code_without_words_stops_the_build(monkeypatch: pytest.MonkeyPatch) -> None:
    meanings = dict(reference.EXIT_MEANINGS)
    del meanings[ExitCode.LOCKED]
    monkeypatch.setattr(reference, "EXIT_MEANINGS", meanings)

    with pytest.raises(reference.Undocumented, match=r"undocumented \['LOCKED'\]"):
        reference.exit_codes_table()


def test_every_label_annotation_and_the_finalizer_are_on_the_conventions_page() -> None:
    page = reference.conventions_tables()

    for value in (c.INSTANCE_LABEL, c.MANAGED_BY_LABEL, c.NAME_LABEL, c.FINALIZER):
        assert f"`{value}`" in page
    for value in (c.REVISION_ANNOTATION, c.SOURCE_ANNOTATION, c.PRUNE_ANNOTATION):
        assert f"`{value}`" in page
    assert f"`{c.lease_name('<instance>')}`" in page


def test_the_crd_page_shows_what_driftctl_crd_prints() -> None:
    assert reference.crd_yaml() == (ROOT / "specs" / "webapp-crd.yaml").read_text()
    fields = [row[0] for row in rows(reference.crd_fields_table())]
    assert {"`spec.image`", "`spec.replicas`", "`status.observedGeneration`"} <= set(fields)


def test_the_pushed_metrics_are_those_a_run_pushes() -> None:
    names = [row[0] for row in rows(reference.pushed_metrics_table())]

    assert "`driftctl_last_run_objects{outcome}`" in names
    assert "`driftctl_last_success_timestamp_seconds`" in names
