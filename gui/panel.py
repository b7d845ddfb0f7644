"""The base of every panel: a widget shown in the main window's stack.

A panel that lists what the store holds refreshes lazily. It calls :meth:`Panel.changed`
whenever the store may have changed under it (a crawl round, an edit elsewhere). Shown,
and not in the middle of being read, it refreshes once for the changes that come in one
turn of the event loop (a round says "pages" and "segments", an edit "policy" and
"pages"); hidden, or read, it only notes that it is stale and refreshes when it is shown
next (:meth:`Panel.activate`) or when the user asks (:meth:`Panel.refresh`). A panel that
has never queried the store ignores changes: it does when it is first shown.
"""

from __future__ import annotations

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QWidget
from recrawl.gui.context import AppContext


class Panel(QWidget):
    #: The name in the navigation, and the key preferences remember.
    title = ""
    key = ""
    #: The View menu's shortcut of a panel that has its own (Search: Ctrl+F); the others
    #: get Ctrl+1…9 in their order.
    shortcut: str | None = None

    #: The panel's entry in the window's list reads this now (e.g. with a count).
    sig_title = Signal(str)

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.setObjectName(f"{self.key}-panel")
        #: Whether the panel has queried the store once, and whether the store changed since.
        self.queried = False
        self.stale = False
        self._due = QTimer(self)
        self._due.setSingleShot(True)
        self._due.setInterval(0)  # the changes of one turn of the event loop, once
        self._due.timeout.connect(self._refresh_if_shown)

    def activate(self) -> None:
        """Called each time the panel is shown: load or refresh what it displays."""
        if not self.queried or self.stale:
            self.refresh()

    def shutdown(self) -> None:
        """Called before the window closes or the project changes."""
        self._due.stop()

    # -- lazy refresh ---------------------------------------------------------------------

    def refresh(self) -> None:
        """Load what the panel shows now (its Refresh button, or shown while stale)."""
        self._due.stop()
        self.queried = True
        if self.stale:
            self.stale = False
            self.show_stale(False)
        self.query()

    def changed(self) -> None:
        """The store may have changed under the panel: refresh soon, or when shown."""
        if not self.queried:
            return
        if self.isVisible() and not self.reading():
            self._due.start()
        else:
            self._hold()

    def _refresh_if_shown(self) -> None:
        if self.isVisible() and not self.reading():
            self.refresh()
        else:  # hidden, or a reader began, since the change came
            self._hold()

    def _hold(self) -> None:
        if not self.stale:
            self.stale = True
            self.show_stale(True)

    # -- what each lazy panel says ----------------------------------------------------------

    def query(self) -> None:
        """Query the store for what the panel shows (a lazy panel's own)."""

    def reading(self) -> bool:
        """Whether a refresh now would disturb a reader (one scrolled down the listing
        would be taken back to its top): the panel then waits to be asked."""
        return False

    def show_stale(self, stale: bool) -> None:
        """Say (on the Refresh button) that the store holds more than is shown."""
