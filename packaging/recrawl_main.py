"""The bundle's entry point: the same ``recrawl`` command as an installed package."""

import multiprocessing
import sys

from recrawl.main import main

if __name__ == "__main__":
    # a crawl's analysis processes are this executable, started again: they must run
    # the worker, not the command (core/engine/pool.py)
    multiprocessing.freeze_support()
    sys.exit(main())
