"""Sequencing of each command: `offline` for the Git-only commands, `cluster` for the rest."""
