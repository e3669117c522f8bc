"""Sequencing of each command: `offline` for the Git-only commands; `batch` (plan, apply,
unlock), `check`, `saved_plan` and `watch` for the rest, each composing `engine`, where the
plan sequence is written once."""
