"""`python -m tracker` is the same as `tablesight`."""

import sys

from tracker.cli import main

sys.exit(main())
