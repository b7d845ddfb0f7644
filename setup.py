"""Installs the repository's top-level folders under one import name, ``recrawl``.

The repository keeps ``core/``, ``gui/`` and ``resources/`` at its top (that layout is the
architecture); installed, they are ``recrawl.core``, ``recrawl.gui`` and
``recrawl.resources`` beside ``recrawl/`` itself (version and entry point), so nothing
but ``recrawl`` lands in site-packages. Everything else is in pyproject.toml.
"""

from setuptools import find_packages, setup

ROOTS = {"recrawl": "recrawl", "recrawl.core": "core", "recrawl.gui": "gui"}

# resources/icons holds only SVGs: a data package (setuptools would warn that a folder of
# package data is not listed as a package); pyproject.toml's package-data names its files
packages = ["recrawl.resources", "recrawl.resources.icons"]
for name, folder in ROOTS.items():
    packages += [name, *(f"{name}.{sub}" for sub in find_packages(where=folder))]

setup(packages=packages, package_dir={**ROOTS, "recrawl.resources": "resources"})
