"""`python -m driftctl` runs the command line."""

from driftctl.cli import main

if __name__ == "__main__":
    main()
