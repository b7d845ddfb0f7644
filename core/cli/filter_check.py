"""``recrawl filter check``: verdicts for URLs, one line each (docs/design.md §6, §8).

The bulk path (plain lines and ``--json``) runs the compiled chain, which gives the
reference evaluation's verdicts and provenance only faster; ``--explain`` needs every
filter's outcome, so it runs the reference :meth:`Chain.explain`. Input is read and
output written a line at a time: a list of 200,000 URLs never sits whole in memory.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Callable, Iterable, Iterator
from json.encoder import encode_basestring_ascii
from pathlib import Path
from typing import BinaryIO, TextIO

from recrawl.core.errors import InvalidArgument, RecrawlError
from recrawl.core.filters import Chain, Verdict, parse_chain
from recrawl.core.filters.compiled import compile_chain
from recrawl.core.policy.filter_input import judged_url
from recrawl.core.project import Project
from recrawl.core.textfile import read_text

STDIN = "-"


def run_check(args: argparse.Namespace) -> int:
    """Verdicts for URLs, from a project's chain or a chain file."""
    positional = list(args.args)
    if args.chain is not None:
        return _check_all(parse_chain(read_text(args.chain, "chain file")), positional, args)
    if not positional:
        raise InvalidArgument("filter check needs a project folder or --chain FILE")
    project = Project.open(positional.pop(0))
    try:
        from recrawl.core.policy import choices  # the policy stack: only a project needs it

        return _check_all(choices.project_chain(), positional, args)
    finally:
        project.close()


def _check_all(chain: Chain, urls: list[str], args: argparse.Namespace) -> int:
    if args.embeds:
        chain = chain.embed_rules  # checked and explained as a chain of its own
    inputs = _inputs(urls, args.file)  # opens the file now: a missing one prints nothing
    out = sys.stdout
    if args.json:
        checked, failed = _check_json(compile_chain(chain).check, inputs, out)
    else:
        checked = failed = 0
        check = compile_chain(chain).check if not args.explain else None
        for text, problem in inputs:
            checked += 1
            url = None
            if problem is None:
                try:
                    url = judged_url(text)
                except RecrawlError as exc:
                    problem = str(exc)
            if url is None:
                failed += 1
                print(f"recrawl: error: {problem}", file=sys.stderr)
            elif check is None:
                _explain(out, chain, url)
            else:
                verdict = check(url)
                out.write(f"{verdict.word:<6}  {url}  {verdict.describe()}\n")
    if not checked:
        raise InvalidArgument("no URLs given (pass URLs, --file F, or --file - for standard input)")
    if failed and args.json:
        print(
            f"recrawl: error: {failed} of {checked} inputs are not URLs "
            'that can be checked (their lines have "error")',
            file=sys.stderr,
        )
    return 1 if failed else 0


#: Lines written at once to a file or a pipe (a terminal gets each as it is judged).
BATCH_LINES = 512


def _check_json(
    check: Callable[[str], Verdict], inputs: Iterable[tuple[str, str | None]], out: TextIO
) -> tuple[int, int]:
    """The ``--json`` lines (checked, failed): json.dumps's text of :func:`verdict_line`,
    put together from json's own string escaping and each verdict's tail, made once.

    A bulk check is a few µs a URL; json.dumps of each line's dict was as much again.
    """
    quote = encode_basestring_ascii  # what json.dumps quotes each string with
    tails: dict[int, tuple[Verdict, str]] = {}  # the verdict too: its id stays its own
    batch: list[str] = []
    size = 1 if out.isatty() else BATCH_LINES
    checked = failed = 0
    try:
        for text, problem in inputs:
            checked += 1
            if problem is None:
                try:
                    url = judged_url(text)
                except RecrawlError as exc:
                    problem = str(exc)
            if problem is not None:
                failed += 1
                batch.append(json.dumps({"input": text, "error": problem}) + "\n")
            else:
                verdict = check(url)
                known = tails.get(id(verdict))
                if known is None:
                    known = tails[id(verdict)] = (verdict, json_tail(verdict))
                batch.append(f'{{"input": {quote(text)}, "url": {quote(url)}{known[1]}')
            if len(batch) >= size:
                out.write("".join(batch))
                batch.clear()
    finally:  # what was judged is written, even when the input broke off
        out.write("".join(batch))
    return checked, failed


def json_tail(verdict: Verdict) -> str:
    """A ``--json`` line after its ``url`` (its end of line too), as json.dumps writes it."""
    whole = json.dumps(verdict.to_json(""))
    return whole[whole.index(", ") :] + "\n"  # what follows '{"url": ""'


def _explain(out: TextIO, chain: Chain, url: str) -> None:
    verdict, steps = chain.explain(url)
    out.write(f"{url}: {verdict.describe()}\n")
    for step in steps:
        text = f"  filter {step.index} ({step.name}, {step.kind}): {step.status}"
        if step.status == "ran":
            text += f", {step.outcome}"
            if step.line is not None:
                text += f" by line {step.line}: {step.rule}"
                text += _block_note(chain, step.index, step.line)
            else:
                text += " (no rule matched)"
        elif step.status == "skipped":
            text += " (the chain had decided)"
        out.write(text + "\n")


def _block_note(chain: Chain, index: int, line: int) -> str:
    rule = next((r for r in chain.filters[index].rules if r.line == line), None)
    return f" (in the host block > {rule.host})" if rule is not None and rule.host else ""


def _inputs(urls: list[str], file: str | None) -> Iterator[tuple[str, str | None]]:
    """(text, problem) for each URL given: the arguments, then the file's lines.

    The file (``-``: standard input) is opened before anything is read from it. Blank
    lines and ``#`` comments are skipped; a line that is not UTF-8 is a problem of its own.
    """
    stream: contextlib.AbstractContextManager[BinaryIO] | None = None
    name = "standard input" if file == STDIN else f"URL file {file}"
    if file == STDIN:
        stream = contextlib.nullcontext(sys.stdin.buffer)
    elif file is not None:
        try:
            stream = open(Path(file), "rb")  # noqa: SIM115 - closed by the generator below
        except OSError as exc:
            raise InvalidArgument(f"cannot read URL file {file}: {exc.strerror}") from None
    return _lines(urls, stream, name)


def _lines(
    urls: Iterable[str], stream: contextlib.AbstractContextManager[BinaryIO] | None, name: str
) -> Iterator[tuple[str, str | None]]:
    for url in urls:
        yield url.strip(), None
    if stream is None:
        return
    with stream as lines:
        for number, raw in enumerate(lines, start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                text = raw.decode("utf-8", "replace").strip()
                yield text, f"line {number} of {name} is not UTF-8 text"
                continue
            text = line.strip().removeprefix("\ufeff") if number == 1 else line.strip()
            if text and not text.startswith("#"):
                yield text, None


def verdict_line(text: str, url: str, verdict: Verdict) -> dict[str, object]:
    """One ``--json`` line: ``input`` as given beside the canonical ``url`` (docs/design.md §8)."""
    return {"input": text, **verdict.to_json(url)}
