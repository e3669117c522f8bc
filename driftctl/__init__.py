"""driftctl: keeps WebApp resources and their Deployments equal to a Git repository."""

__version__ = "0.1.0"
