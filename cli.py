"""Thin entry point: `python cli.py ...` is the same as the `kkvision` command."""

import sys

from kkvision.cli import main

if __name__ == "__main__":
    sys.exit(main())
