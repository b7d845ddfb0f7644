"""Every error the engine raises on purpose, in one hierarchy.

    RecrawlError
    ├── ProjectError          the project folder is missing, unreadable or not a project
    │   └── ProjectLocked     another process holds the project
    ├── StoreError            the database cannot be opened or migrated
    │   ├── NoActiveStore     a query ran where no project is active (a bug, not the user's)
    │   ├── PasswordNeeded    the database server asks for a password libpq was not given
    │   ├── StoreBusy         another process migrates or compacts the store (PostgreSQL)
    │   ├── WorkerNameTaken   a live crawl worker has that name already
    │   ├── LeaseLost         a worker no longer holds a host it fetched (its batch is refused)
    │   └── StoreLost         the database server was lost and not found again in time
    ├── DiskFull              the disk the project is on is full (or the user's quota spent)
    ├── InvalidUrl            a URL the user gave is malformed or not http(s)
    ├── InvalidArgument       a bad value for a command option (a time, a number)
    │   └── QueryError        a search query with nothing to search for
    ├── NotFound              a URL or capture the user asked for is not in the project
    ├── WarcError             a WARC file is corrupt or missing
    │   └── MissingFile       a WARC file the store or an index names is not there
    └── PayloadError          an archived payload cannot be decoded (its Content-Encoding)
        └── NotText           a payload is no text to read or compare (an image, a PDF)

The command line prints ``str(error)`` on one line; the GUI shows it in a dialog.
Failures while fetching one page are never raised: they are recorded on the page.
"""

from pathlib import Path


class RecrawlError(Exception):
    """Base class: a problem explained to the user in one line."""


class ProjectError(RecrawlError):
    pass


class ProjectLocked(ProjectError):
    pass


class StoreError(RecrawlError):
    pass


class NoActiveStore(StoreError):
    """A store query ran in a thread or context where no project is active: each thread
    enters its project's context (``with project.active():``) before it queries."""


class PasswordNeeded(StoreError):
    """The database server wants a password (none given, or the one given is wrong):
    ``~/.pgpass`` or ``PGPASSWORD`` supply it; the app asks for one for its session."""


class StoreBusy(StoreError):
    pass


class WorkerNameTaken(StoreError):
    pass


class LeaseLost(StoreError):
    """A worker's batch names a page of a host whose lease it no longer holds (docs/design.md
    §12): the batch is not committed; another worker has the host, or may take it."""


class StoreLost(StoreError):
    """The database server stopped answering (restarted, the network to it cut) and did
    not answer again within ``database.give_up_after``: nothing committed is lost."""


class DiskFull(RecrawlError):
    """No space left where the project writes (recrawl.core.disk makes it from the
    OSError or SQLite error that said so): ``free`` bytes (None: unknown) on the
    filesystem mounted at ``where``."""

    def __init__(self, message: str, free: int | None = None, where: Path | None = None) -> None:
        super().__init__(message)
        self.free = free
        self.where = where


class InvalidUrl(RecrawlError):
    """``reason``: what is wrong, without the URL (for a record that shows the URL beside
    it, and a URL may be 10 kB long)."""

    def __init__(self, message: str, reason: str | None = None) -> None:
        super().__init__(message)
        self.reason = reason or message


class InvalidArgument(RecrawlError):
    pass


class QueryError(InvalidArgument):
    pass


class NotFound(RecrawlError):
    pass


class WarcError(RecrawlError):
    pass


class MissingFile(WarcError):
    pass


class PayloadError(RecrawlError):
    pass


class NotText(PayloadError):
    pass


class ReplayError(RecrawlError):
    """The replay server (``recrawl replay``) could not start or answer."""


class ReplayUnavailable(ReplayError):
    """pywb, which replay needs, is not installed (an optional extra)."""


class BrowserError(RecrawlError):
    """The browser that captures pages in ``browser`` mode could not start or answer."""


class BrowserMissing(BrowserError):
    """No Chromium to capture with (Debian's ``chromium`` package, or ``capture.chromium``)."""
