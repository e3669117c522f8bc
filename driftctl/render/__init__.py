"""Rendering: results turned into text, JSON or Markdown. Pure: returns strings, prints nothing."""
