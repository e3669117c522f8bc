"""The pure core: decides, never does. No cluster, git, click, subprocess or environment."""
