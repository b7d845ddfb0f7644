"""Runtime hook (in the bundle only): a stand-in for ``PySide6.QtOpenGL``, which the bundle
leaves out (its binding is 9 MB).

pyqtgraph 0.14.0 imports QtOpenGL whenever it loads but uses it only to draw with OpenGL
(its ``useOpenGL`` option, or an item with OpenGL enabled), which Recrawl never turns on.
The stand-in lets that import succeed; reading anything from it raises AttributeError
saying why. packaging/recrawl.spec adds this hook only while the pyqtgraph it bundles
imports QtOpenGL as it loads (its next release imports it on first use: pyqtgraph PR #3541).
"""

import sys
import types


class _LeftOut(types.ModuleType):
    def __getattr__(self, name: str) -> object:
        raise AttributeError(
            f"PySide6.QtOpenGL.{name}: Qt's OpenGL module is not in this bundle "
            "(Recrawl draws its plots without OpenGL)"
        )


sys.modules.setdefault("PySide6.QtOpenGL", _LeftOut("PySide6.QtOpenGL"))
