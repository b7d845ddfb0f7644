"""What a setting says of itself: one field's metadata, read back typed.

Every field of the settings dataclasses in :mod:`recrawl.core.config` is made by
:func:`setting`, which keeps its facts once: its help for people, its unit, its bounds,
whether a project keeps it (``recrawl settings``, the app's Settings dialog) and its
``recrawl crawl`` flag. :class:`SettingSpec` is that field read back with its dotted
name and type; the command line's flags, ``recrawl settings``, the dialog, the checks
and ``docs/settings.md`` are all made from these, so a setting added to a dataclass
shows up everywhere with no other line.

A value comes in two ways, and both end in :meth:`SettingSpec.check` (type, then bounds,
then a setting's own rule): text as typed (:meth:`SettingSpec.parse`: durations ``0.5s``,
``30s``, ``2m``, a plain number is seconds; sizes ``10M``, ``512k``, a plain number is
bytes; whole numbers; ``true``/``false``; text; lists of text apart by spaces, ``none``
is empty) and values as JSON or the store keep them (seconds, bytes). A bad value is one
line naming the setting.
"""

from __future__ import annotations

import math
import re
import types
import typing
from collections.abc import Callable, Iterator
from dataclasses import MISSING, Field, dataclass, field, fields, is_dataclass
from typing import Any

from recrawl.core.clock import duration_text, parse_duration
from recrawl.core.errors import InvalidArgument

#: The key of a field's metadata that holds its :class:`Meta`.
KEY = "recrawl.setting"
#: The key of a field's metadata that says it is no setting of its own (:func:`carried`).
CARRIED = "recrawl.carried"
#: Units with their own way of being typed and shown; any other unit names what a whole
#: number counts (``pages``, ``hops``).
SECONDS = "s"
BYTES = "bytes"
#: How an empty list prints (and reads back).
NO_ITEMS = "none"
_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0")


@dataclass(frozen=True, kw_only=True)
class Meta:
    """What :func:`setting` keeps in a field's metadata."""

    help: str
    unit: str | None = None
    min: float | None = None
    max: float | None = None
    #: ``min`` itself is refused (a timeout of 0 s would fail every fetch at once).
    above_min: bool = False
    stored: bool = False
    flag: str | None = None
    #: A flag's own help where the setting's would mislead (a flag that turns it off).
    flag_help: str | None = None
    #: The command that keeps it, for a setting a project keeps apart from the others.
    command: str | None = None
    #: A setting's own rule past type and bounds: the problem with a value, or None.
    rule: Callable[[Any], str | None] | None = None


def setting(
    default: Any = MISSING,
    *,
    help: str,
    default_factory: Callable[[], Any] | None = None,
    unit: str | None = None,
    min: float | None = None,
    max: float | None = None,
    above_min: bool = False,
    stored: bool = False,
    flag: str | None = None,
    flag_help: str | None = None,
    command: str | None = None,
    rule: Callable[[Any], str | None] | None = None,
) -> Any:
    """A settings field: its default and everything else people and code need to know.

    ``unit``: ``"s"`` (a duration: float seconds), ``"bytes"`` (a size) or what a whole
    number counts; ``min``/``max``: the bounds, inclusive (``above_min``: ``min`` is
    not); ``stored``: a project keeps it (``recrawl settings``, the app); ``flag``: the
    ``recrawl crawl`` option that overrides it for one crawl (a flag named by several
    settings sets them all).
    """
    meta = Meta(
        help=help,
        unit=unit,
        min=min,
        max=max,
        above_min=above_min,
        stored=stored,
        flag=flag,
        flag_help=flag_help,
        command=command,
        rule=rule,
    )
    if default_factory is not None:
        return field(default_factory=default_factory, metadata={KEY: meta})
    return field(default=default, metadata={KEY: meta})


def carried(default: Any, *, why: str) -> Any:
    """A field the settings carry that is no setting of its own: what the project keeps
    in another form and the crawl reads with the settings (a host's own capture mode,
    kept as ``capture.mode@HOST``). It is in no listing, dialog or flag; ``why`` says
    where it comes from, for the reader of the dataclass."""
    return field(default=default, metadata={CARRIED: why})


def specs(cls: type, prefix: str = "") -> Iterator[SettingSpec]:
    """The settings of dataclass ``cls``, named ``prefix`` + field (``politeness.delay``);
    a field that is a settings dataclass itself is a group of them."""
    hints = typing.get_type_hints(cls)
    for item in fields(cls):
        if CARRIED in item.metadata:
            continue
        hint = hints[item.name]
        name = prefix + item.name
        if isinstance(hint, type) and is_dataclass(hint):  # a group: politeness, fetch...
            yield from specs(hint, name + ".")
        else:
            yield SettingSpec.of(name, item, hint)


class Refused(ValueError):
    """A value a setting does not take: what is wrong, ready to follow a name."""


@dataclass(frozen=True)
class SettingSpec:
    """One setting: its dotted name (``politeness.delay``), Python type, default and the
    facts of its :class:`Meta`."""

    name: str
    #: ``bool``, ``int``, ``float``, ``str`` or ``tuple`` (of text).
    type: type
    #: None is a value: the setting is not set (the default of some).
    optional: bool
    default: object
    meta: Meta

    @classmethod
    def of(cls, name: str, item: Field[Any], hint: Any) -> SettingSpec:
        """The spec of dataclass field ``item`` (its resolved type ``hint``)."""
        meta = item.metadata.get(KEY)
        if not isinstance(meta, Meta):
            raise TypeError(f"setting {name} has no help: make it with setting()")
        optional = False
        if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
            args = [arg for arg in typing.get_args(hint) if arg is not type(None)]
            optional, hint = True, args[0]
        kind = typing.get_origin(hint) or hint
        if kind not in (bool, int, float, str, tuple):
            raise TypeError(f"setting {name} has a type settings do not take: {hint}")
        default: object = item.default
        if default is MISSING and callable(item.default_factory):
            default = item.default_factory()
        return cls(name, kind, optional, default, meta)

    # -- what people read --------------------------------------------------------------

    @property
    def help(self) -> str:
        return self.meta.help

    @property
    def unit(self) -> str | None:
        return self.meta.unit

    @property
    def stored(self) -> bool:
        return self.meta.stored

    @property
    def flag(self) -> str | None:
        return self.meta.flag

    @property
    def group(self) -> str:
        """The part of the settings it belongs to (``politeness``), empty for none."""
        return self.name.rpartition(".")[0]

    @property
    def kind(self) -> str:
        """How it is typed: ``duration`` (seconds), ``size`` (bytes), ``whole`` (int),
        ``number`` (float), ``bool``, ``text`` or ``list`` (of text)."""
        if self.unit == SECONDS and self.type is float:
            return "duration"
        if self.unit == BYTES and self.type is int:
            return "size"
        return _KINDS[self.type]

    def text(self, value: object) -> str:
        """A value as it is typed: ``0.5s``, ``10M``, ``4``, ``true``, text (``not set``:
        None, a default that only ``--unset`` gives back)."""
        if value is None:
            return "not set"
        if isinstance(value, bool):
            return "true" if value else "false"
        kind = self.kind
        if kind == "duration" and isinstance(value, int | float):
            return duration_text(float(value))
        if kind == "size" and isinstance(value, int):
            return size_text(value)
        if isinstance(value, float):
            return f"{value:g}"
        if isinstance(value, tuple | list):
            return " ".join(value) or NO_ITEMS
        return str(value)

    def bounds_text(self) -> str:
        """The bounds as people read them (``≥ 1``, ``> 0s``, ``0 to 100``; empty: none)."""
        low, high = self.meta.min, self.meta.max
        if low is not None and high is not None:
            return f"{self._number_text(low)} to {self._number_text(high)}"
        if low is not None:
            return f"{'>' if self.meta.above_min else '≥'} {self._number_text(low)}"
        return f"≤ {self._number_text(high)}" if high is not None else ""

    def _number_text(self, value: float) -> str:
        if self.kind in ("duration", "size"):
            return self.text(float(value) if self.kind == "duration" else int(value))
        return f"{value:g}"

    # -- checking ----------------------------------------------------------------------

    def parse(self, text: str) -> object:
        """``text`` as typed (:meth:`read`), checked; InvalidArgument naming the setting."""
        try:
            return self.read(text)
        except Refused as exc:
            raise InvalidArgument(f"{self.name}: {exc}") from None

    def read(self, text: str) -> object:
        """``text`` as typed, checked; :class:`Refused` saying why (for a flag, whose name
        argparse gives)."""
        word = text.strip()
        value: object
        try:
            value = _READERS[self.kind](word) if self.kind in _READERS else text
        except (ValueError, InvalidArgument):
            raise Refused(f"{_UNREADABLE[self.kind]}: {text!r}") from None
        if self.type is tuple:  # a list: items apart by spaces (URL patterns have none)
            items = tuple(word.split())
            value = () if items == (NO_ITEMS,) else items
        problem = self._problem(value)
        if problem:
            raise Refused(f"{problem}: {text!r}")
        return value

    def check(self, value: object) -> object:
        """``value`` (as JSON, the store or a caller hold it) as the setting holds it: a
        whole number of seconds as a float, a list as a tuple; InvalidArgument naming
        the setting if it is not of its type or out of its bounds."""
        value = self._typed(value)
        problem = None if value is None else self._problem(value)
        if problem:
            raise InvalidArgument(f"{self.name}: {problem}, not {value!r}")
        return value

    def _typed(self, value: object) -> object:
        kind = self.type
        if value is None and self.optional:
            return None
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if kind is tuple:
            if isinstance(value, str):
                value = tuple(value.split())
            elif isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
                value = tuple(value)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise InvalidArgument(f"{self.name}: takes {_KIND_WORDS[self.kind]}, not {value!r}")
        return value

    def _problem(self, value: object) -> str | None:
        """What is wrong with a value of the right type (None: nothing)."""
        if isinstance(value, float) and not math.isfinite(value):
            return _UNREADABLE[self.kind]
        if isinstance(value, int | float) and not isinstance(value, bool):
            low, high = self.meta.min, self.meta.max
            if low is not None and (value <= low if self.meta.above_min else value < low):
                return self._low_problem(low)
            if high is not None and value > high:
                return f"must be at most {self._number_text(high)}"
        rule = self.meta.rule
        return rule(value) if rule else None

    def _low_problem(self, low: float) -> str:
        if self.meta.above_min:
            return f"must be more than {low:g}"
        if low == 0:
            return "must not be negative"
        if self.kind == "size":
            return f"must be at least {low:g} byte{'' if low == 1 else 's'}"
        return f"must be at least {low:g}"


def _whole(word: str) -> int:
    return int(word)


def _number(word: str) -> float:
    value = float(word)
    if not math.isfinite(value):
        raise ValueError(word)
    return value


def _seconds(word: str) -> float:
    """A number of seconds (``0.5``), or a duration with its unit (``30s``, ``2m``)."""
    try:
        value = float(word)
    except ValueError:
        return parse_duration(word)
    if not math.isfinite(value):
        raise ValueError(word)
    return value


def _bool(word: str) -> bool:
    if word.lower() in _TRUE + _FALSE:
        return word.lower() in _TRUE
    raise ValueError(word)


_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmg]?)(?:i?b)?\s*$", re.IGNORECASE)
_SIZE_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}


def parse_size(text: str) -> int:
    """``50M``, ``1G``, ``512k``, ``1048576`` (bytes) → bytes; K, M, G are powers of 1024."""
    match = _SIZE.match(text)
    if not match:
        raise ValueError(text)
    return int(float(match.group(1)) * _SIZE_UNITS[match.group(2).lower()])


_SHOWN_SIZES = (("G", 1 << 30), ("M", 1 << 20), ("k", 1 << 10))


def size_text(count: int) -> str:
    """A size as it is typed: the shortest exact ``10M``, ``512k`` or ``1000`` (bytes),
    which :func:`parse_size` reads back."""
    for unit, bytes_ in _SHOWN_SIZES:
        if count >= bytes_ and count % bytes_ == 0:
            return f"{count // bytes_}{unit}"
    return str(count)


_KINDS = {bool: "bool", int: "whole", float: "number", str: "text", tuple: "list"}
_READERS: dict[str, Callable[[str], object]] = {
    "duration": _seconds,
    "size": parse_size,
    "whole": _whole,
    "number": _number,
    "bool": _bool,
}
_UNREADABLE = {
    "duration": "not a number of seconds",
    "size": "not a size like 50M, 1G or 4096",
    "whole": "not a whole number",
    "number": "not a number",
    "bool": "not true or false",
    "text": "not text",
    "list": "not a list of text",
}
_KIND_WORDS = {
    "duration": "a number of seconds",
    "size": "a number of bytes",
    "whole": "a whole number",
    "number": "a number",
    "bool": "true or false",
    "text": "text",
    "list": "a list of text",
}
