"""Opening a project whose database server asks for a password (docs/design.md §12).

The password the user types is used for this session only: it goes to the store's
connections (core keeps it in memory) and never into the project file, the settings or
anywhere on disk. libpq's own sources (``~/.pgpass``, ``PGPASSWORD``) come first: the
prompt appears only when the server still asks.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QInputDialog, QLineEdit, QWidget
from recrawl.core.errors import PasswordNeeded
from recrawl.core.project import Project

#: Asks for a password with a reason shown; None: the user cancelled.
AskPassword = Callable[[str], str | None]


def password_dialog(parent: QWidget | None) -> AskPassword:
    def ask(reason: str) -> str | None:
        text, ok = QInputDialog.getText(
            parent,
            "Recrawl: database password",
            f"{reason}.\n\nOr type it here, for this session only (it is not stored):",
            QLineEdit.EchoMode.Password,
        )
        return text if ok else None

    return ask


def open_asking_password(
    open_project: Callable[[str | None], Project], ask: AskPassword
) -> Project:
    """``open_project(password)``, first without one, then with what ``ask`` returns for
    as long as the server refuses; a cancelled prompt raises the server's refusal."""
    password: str | None = None
    while True:
        try:
            return open_project(password)
        except PasswordNeeded as exc:
            typed = ask(str(exc))
            if typed is None:
                raise
            password = typed
