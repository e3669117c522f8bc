"""What tests share: builders of WebApps and Deployments, the harness that runs driftctl
against the control plane, access to that control plane, real Git repositories and
servers, the fault proxy, the Pushgateway, models and golden cases for the pure core.

Test modules import from here and never from each other (an import-linter contract in
pyproject.toml holds it); fixtures stay in the conftest.py of their folder.
"""
