"""`python -m docflow.cli ...`, as the `docflow` script."""

import sys

from docflow.cli import main

sys.exit(main())
