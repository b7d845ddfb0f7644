"""Recrawl's bundled files: the default filter chain, the stylesheet, icons (no code).

Installed as ``recrawl.resources`` and read with :mod:`importlib.resources`
(:mod:`recrawl.core.resources`).
"""
