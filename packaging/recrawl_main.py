"""The bundle's entry point: the same ``recrawl`` command as an installed package."""

import sys

from recrawl.core.engine.quiet_spawn import freeze_support

from recrawl.main import main

if __name__ == "__main__":
    # a crawl's analysis processes are this executable, started again: they must run
    # the worker, not the command (core/engine/pool.py), and end silently when the
    # crawl died before it had said what to run (core/engine/quiet_spawn.py)
    freeze_support()
    sys.exit(main())
