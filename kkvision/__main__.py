"""`python -m kkvision ...` is the same as the `kkvision` command."""

import sys

from .cli import main

sys.exit(main())
