"""``python -m bgrl.cli`` runs the ``bgrl`` command."""

import sys

from bgrl.cli import main

sys.exit(main())
