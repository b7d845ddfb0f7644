"""StopSignals in this process: a stop signal asks to stop and says so, the handlers
that were there come back after, and an ignored signal stays ignored.

``signal.raise_signal`` delivers to this thread and runs the handler before it returns.
The second signal's kill ends a process: tests/core/cli/test_cli_signals.py runs it.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator

import pytest
from recrawl.core.interrupts import StopSignals


@pytest.fixture
def asked() -> list[str]:
    return []


@pytest.fixture
def handlers() -> Iterator[None]:
    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    yield
    for signum, handler in saved.items():
        signal.signal(signum, handler)


def test_a_stop_signal_asks_once_and_the_old_handlers_come_back(asked, handlers, capsys):
    before = signal.getsignal(signal.SIGTERM)
    with StopSignals(lambda: asked.append("stop"), "stopping the test") as signals:
        assert signal.getsignal(signal.SIGTERM) != before
        signal.raise_signal(signal.SIGTERM)
        assert asked == ["stop"] and signals.received == signal.SIGTERM
        signal.raise_signal(signal.SIGHUP)  # a closing terminal's second word: no kill
        assert asked == ["stop"]
    assert signals.exit_status == 128 + signal.SIGTERM
    assert signal.getsignal(signal.SIGTERM) == before
    err = capsys.readouterr().err
    assert err == "recrawl: SIGTERM: stopping the test (Ctrl-C again to kill at once)\n"


def test_an_ignored_signal_stays_ignored(asked, handlers):
    signal.signal(signal.SIGHUP, signal.SIG_IGN)  # as under nohup
    before = signal.getsignal(signal.SIGINT)
    with StopSignals(lambda: asked.append("stop"), "stopping the test") as signals:
        assert signal.getsignal(signal.SIGHUP) == signal.SIG_IGN
        signal.raise_signal(signal.SIGHUP)
        assert asked == [] and signals.received is None
        signal.raise_signal(signal.SIGINT)
        assert asked == ["stop"]
    assert signal.getsignal(signal.SIGHUP) == signal.SIG_IGN
    assert signal.getsignal(signal.SIGINT) == before
