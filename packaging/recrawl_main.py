"""The bundle's entry point: the same ``recrawl`` command as an installed package."""

import sys

from recrawl.main import main

if __name__ == "__main__":
    sys.exit(main())
