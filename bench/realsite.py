"""A real site on 127.0.0.1: a Debian package's HTML documentation, served by nginx.

    with real_site() as site:          # copies /usr/share/doc/python3.11/html, serves it
        print(site.base, len(site.pages))

The default tree is Python 3.11's documentation (Debian's ``python3-doc``: 530 pages of
Sphinx output with their stylesheets, scripts, images and a search page), written by
nobody here, so what a crawl of it finds is what real pages embed. The tree is copied
with ``cp -rL`` (Debian links a few of its files, ``jquery.js`` and ``underscore.js``,
to other packages) into a temporary folder, unless a copy is given, and served by nginx
with a configuration generated in a temporary folder: no daemon, its pid, error log and
temporary files there, no access log, the system's MIME types, keep-alive on.

:func:`serve` serves any folder and yields its base URL; :func:`real_site` copies the
tree if need be, serves it and yields a :class:`Site`. Either stops nginx on leaving.
A missing package or nginx raises :class:`SiteUnavailable`, whose message is one line
with the command that installs it.
"""

from __future__ import annotations

import contextlib
import grp
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

#: The tree served when none is given, and the Debian package that installs it.
DEFAULT_SOURCE = Path("/usr/share/doc/python3.11/html")
DEFAULT_PACKAGE = "python3-doc"
MIME_TYPES = Path("/etc/nginx/mime.types")
NO_NGINX = "nginx is not installed: apt-get install nginx"

NGINX_CONF = """\
daemon off;
{user}worker_processes 1;
pid {tmp}/nginx.pid;
error_log {tmp}/error.log warn;
events {{ worker_connections 1024; }}
http {{
    {types}
    default_type application/octet-stream;
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_timeout 65s;
    keepalive_requests 100000;
    client_body_temp_path {tmp}/client_body;
    proxy_temp_path {tmp}/proxy;
    fastcgi_temp_path {tmp}/fastcgi;
    uwsgi_temp_path {tmp}/uwsgi;
    scgi_temp_path {tmp}/scgi;
    server {{
        listen 127.0.0.1:{port};
        root {root};
    }}
}}
"""
#: Without /etc/nginx/mime.types: the types a documentation tree holds.
FALLBACK_TYPES = (
    "types { text/html html htm; text/css css; application/javascript js; "
    "application/json json; text/plain txt; image/png png; image/svg+xml svg; "
    "image/jpeg jpg jpeg; image/gif gif; font/woff2 woff2; font/woff woff; "
    "application/xml xml; }"
)


class SiteUnavailable(RuntimeError):
    """The tree or nginx is missing, or nginx would not serve; the message is one line."""


@dataclass(frozen=True)
class Site:
    base: str  # http://127.0.0.1:PORT, no trailing slash
    root: Path  # the folder served
    pages: tuple[str, ...]  # every HTML file's path under root (library/json.html), sorted

    def url(self, path: str) -> str:
        return f"{self.base}/{path.lstrip('/')}"


def find_nginx() -> str | None:
    # /usr/sbin is not on every user's PATH
    return shutil.which("nginx") or next(
        (p for p in ("/usr/sbin/nginx", "/usr/local/sbin/nginx") if os.access(p, os.X_OK)), None
    )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def copy_tree(source: Path, dest: Path, package: str = DEFAULT_PACKAGE) -> Path:
    """``cp -rL source dest`` (links followed: the copy holds every file itself)."""
    if not (source / "index.html").is_file():
        raise SiteUnavailable(f"no documentation at {source}: apt-get install {package}")
    subprocess.run(["cp", "-rL", str(source), str(dest)], check=True)
    return dest


def html_pages(root: Path) -> tuple[str, ...]:
    return tuple(sorted(p.relative_to(root).as_posix() for p in root.rglob("*.html")))


@contextlib.contextmanager
def serve(root: Path, port: int = 0) -> Iterator[str]:
    """nginx serving ``root`` on 127.0.0.1:``port`` (0: a free one); yields the base URL
    once it answers, and stops nginx on leaving."""
    nginx = find_nginx()
    if nginx is None:
        raise SiteUnavailable(NO_NGINX)
    port = port or free_port()
    with tempfile.TemporaryDirectory(prefix="realsite-nginx-") as tmp:
        user = ""
        if os.geteuid() == 0:  # workers would drop to "nobody", who cannot read a 0700 tmp
            user = f"user {pwd.getpwuid(0).pw_name} {grp.getgrgid(os.getgid()).gr_name};\n"
        types = f"include {MIME_TYPES};" if MIME_TYPES.is_file() else FALLBACK_TYPES
        conf = Path(tmp) / "nginx.conf"
        conf.write_text(
            NGINX_CONF.format(user=user, tmp=tmp, port=port, root=root.resolve(), types=types)
        )
        log = Path(tmp) / "error.log"
        proc = subprocess.Popen(
            [nginx, "-p", tmp, "-c", str(conf), "-e", str(log)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,  # a Ctrl-C of ours reaches it only through our finally
        )
        base = f"http://127.0.0.1:{port}"
        try:
            _wait_ready(proc, base, log)
            yield base
        finally:
            if proc.poll() is None:
                proc.terminate()  # nginx's fast shutdown
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
            if proc.stderr is not None:
                proc.stderr.close()


def _wait_ready(proc: subprocess.Popen[bytes], base: str, log: Path, timeout: float = 15) -> None:
    deadline = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            said = (proc.stderr.read().decode(errors="replace") if proc.stderr else "") + (
                log.read_text(errors="replace") if log.exists() else ""
            )
            last = said.strip().splitlines()[-1] if said.strip() else ""
            raise SiteUnavailable(f"nginx exited with status {proc.returncode}: {last}")
        try:
            with urllib.request.urlopen(base + "/", timeout=2) as answer:
                answer.read()
                return
        except urllib.error.HTTPError:
            return  # it answers (a tree without index.html)
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise SiteUnavailable(f"nginx did not answer at {base} within {timeout:g} s")
        time.sleep(0.05)


@contextlib.contextmanager
def real_site(
    root: Path | None = None, source: Path = DEFAULT_SOURCE, package: str = DEFAULT_PACKAGE
) -> Iterator[Site]:
    """The tree at ``root`` (or a copy of ``source`` made in a temporary folder, removed
    on leaving), served by nginx until the block ends."""
    if find_nginx() is None:  # said before a copy is made for nothing
        raise SiteUnavailable(NO_NGINX)
    with contextlib.ExitStack() as stack:
        if root is None:
            scratch = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="realsite-")))
            root = copy_tree(source, scratch / "site", package)
        elif not root.is_dir():
            raise SiteUnavailable(f"no folder {root} to serve")
        base = stack.enter_context(serve(root))
        yield Site(base, root, html_pages(root))


if __name__ == "__main__":  # serve the tree until Ctrl-C, for a look in a browser
    import sys

    try:
        with real_site(Path(sys.argv[1]) if len(sys.argv) > 1 else None) as site:
            print(f"serving {len(site.pages)} pages of {site.root} at {site.base}/", flush=True)
            with contextlib.suppress(KeyboardInterrupt):
                while True:
                    time.sleep(3600)
    except SiteUnavailable as exc:
        raise SystemExit(f"realsite: {exc}") from None
