"""The URLs of a ``srcset`` (``imagesrcset``) attribute, by the HTML standard's algorithm.

https://html.spec.whatwg.org/multipage/images.html#parse-a-srcset-attribute: a URL runs
to the next whitespace, commas included (``a,b.jpg 1x`` is one URL), a comma right after
it ends the candidate, and its descriptors (``1.5x``, ``640w``, ``480h``) run to the next
comma outside parentheses. A candidate whose descriptors are invalid (two densities, a
width of 0, ``2y``) is dropped, as a browser drops it. Each step is a regular expression
match that consumes at least one character, so any value is read in linear time.
"""

from __future__ import annotations

import re

#: The splitting loop's separators: ASCII whitespace and commas.
_SEPARATORS = re.compile(r"[\t\n\f\r ,]*")
_URL = re.compile(r"[^\t\n\f\r ]+")
_SPACE = re.compile(r"[\t\n\f\r ]*")
#: A descriptor's characters up to whitespace, a comma or an opening parenthesis.
_DESCRIPTOR = re.compile(r"[^\t\n\f\r ,(]*")
#: Inside parentheses: up to the closing one (commas and whitespace included).
_PARENTHESES = re.compile(r"[^)]*\)?")
_INTEGER = re.compile(r"[0-9]+")
_FLOAT = re.compile(r"-?(?:[0-9]+(?:\.[0-9]+)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")


def parse_srcset(value: str) -> list[str]:
    """The URLs of ``value``'s image candidates, in order, as written; never raises."""
    urls: list[str] = []
    end = len(value)
    position = 0
    while True:
        position = _past(_SEPARATORS, value, position)
        if position >= end:
            return urls
        match = _URL.match(value, position)
        if match is None:  # cannot be: a character that is no separator starts a URL
            return urls
        url, position = match.group(), match.end()
        if url.endswith(","):
            urls.append(url.rstrip(","))  # no descriptors: a comma ended the candidate
            continue
        descriptors, position = _descriptors(value, position)
        if _valid(descriptors):
            urls.append(url)


def _descriptors(value: str, position: int) -> tuple[list[str], int]:
    """The standard's descriptor tokenizer: the descriptors from ``position`` to the
    comma ending the candidate (outside parentheses), and where the next one starts."""
    descriptors: list[str] = []
    current = ""
    end = len(value)
    position = _past(_SPACE, value, position)
    while position < end:
        after = _past(_DESCRIPTOR, value, position)
        current += value[position:after]
        position = after
        if position >= end:
            break
        char = value[position]
        if char == ",":
            position += 1
            break
        if char == "(":
            after = _past(_PARENTHESES, value, position)
            current += value[position:after]
            position = after
            if not current.endswith(")"):  # the end of the value inside parentheses
                break
            continue
        # whitespace: a descriptor ends; the next character (a comma too) starts again
        if current:
            descriptors.append(current)
            current = ""
        position = _past(_SPACE, value, position)
    if current:
        descriptors.append(current)
    return descriptors, position


def _past(run: re.Pattern[str], value: str, position: int) -> int:
    """Where ``run`` (a pattern that matches the empty string too) ends from ``position``."""
    match = run.match(value, position)
    return position if match is None else match.end()


def _valid(descriptors: list[str]) -> bool:
    """The standard's descriptor parser: at most one width or density, a height only
    with a width; each a valid number of its kind."""
    width = density = height = False
    for descriptor in descriptors:
        number, kind = descriptor[:-1], descriptor[-1:]
        # zero is told by its digits: int() refuses a number of over 4,300 digits
        if kind == "w" and _INTEGER.fullmatch(number):
            if width or density or not number.strip("0"):
                return False
            width = True
        elif kind == "x" and _FLOAT.fullmatch(number):
            if width or density or height or float(number) < 0:
                return False
            density = True
        elif kind == "h" and _INTEGER.fullmatch(number):
            if height or density or not number.strip("0"):
                return False
            height = True
        else:
            return False
    return not height or width
