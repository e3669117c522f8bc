"""The parts of the documentation site (docs/) that are made from the code, not typed.

MkDocs runs `docsgen/hooks.py` while it builds: a page asks for a generated part with a
marker line, `<!-- generated: KIND ARGS -->`, and the hook puts the part in its place. The
command reference comes from the click commands themselves (`driftctl.cli.cli`), the
exit codes from `driftctl.errors`, the names on live objects from `driftctl.conventions`,
the CRD from `driftctl crd`, the pushed metrics from the registry a run pushes. The tests
read the same functions, so a page and the code cannot disagree unnoticed.

Nothing here is part of driftctl: it is not installed with it and driftctl never imports it.
"""
