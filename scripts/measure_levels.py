"""Measure the named levels and write ``checkpoints/levels.json`` (what ``bgrl levels`` shows).

    python scripts/measure_levels.py [--jobs 2] [--scale 0.2] ...

The same as ``python scripts/ladder.py`` (the options are ladder.py's): the ladder of
matches (each level against random or the level below, against pubeval, the top level
against gnubg 0-ply when available) and each level's error rate on the gnubg-scored
benchmark when it is available.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from ladder import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
