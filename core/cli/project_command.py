"""A command that runs on an open project: opened from ``DIR``, closed after, notes shown."""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable

from recrawl.core.project import Project


def project_command(
    run: Callable[[Project, argparse.Namespace], int],
) -> Callable[[argparse.Namespace], int]:
    """``run(project, args)`` as a command: the project of ``args.dir`` is open meanwhile."""

    @functools.wraps(run)
    def on_project(args: argparse.Namespace) -> int:
        project = Project.open(args.dir)
        for note in project.notes:  # what recovery on opening did
            print(f"recrawl: {note}", file=sys.stderr)
        try:
            return run(project, args)
        finally:
            project.close()

    return on_project
