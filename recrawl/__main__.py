"""``python -m recrawl``: the same as the ``recrawl`` command."""

import sys

from recrawl.main import main

sys.exit(main())
