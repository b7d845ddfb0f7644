"""Recrawl's PySide6 desktop app: a thin skin over :mod:`core`."""
