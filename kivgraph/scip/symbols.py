"""The SCIP symbol-string grammar: `<scheme> <manager> <name> <version> <descriptors…>` → a
ScipSymbol of plain values (None for a local symbol or a string that breaks the grammar).

Apart from the index's protobuf payload (kivgraph/scip/index.py), so that what names symbols
without reading an index (a shard merge binding Go uses: kivgraph/scip/late.py) loads no protobuf.
"""

import re
from dataclasses import dataclass
from enum import IntEnum
from functools import lru_cache


class Suffix(IntEnum):
    """What a descriptor names, from its punctuation in the symbol string."""

    NAMESPACE = 1
    TYPE = 2
    TERM = 3
    METHOD = 4
    TYPE_PARAMETER = 5
    PARAMETER = 6
    META = 7
    MACRO = 9


@dataclass(frozen=True, slots=True)
class Descriptor:
    name: str
    suffix: Suffix
    disambiguator: str = ""


@dataclass(frozen=True, slots=True)
class ScipSymbol:
    """A parsed global symbol string: `<scheme> <manager> <name> <version> <descriptors…>`."""

    scheme: str
    manager: str
    package: str
    version: str
    descriptors: tuple[Descriptor, ...]

    @property
    def name(self) -> str:
        return self.descriptors[-1].name if self.descriptors else ""


def is_local(symbol: str) -> bool:
    return symbol.startswith("local ")


@lru_cache(maxsize=1 << 16)
def parse_symbol(symbol: str) -> ScipSymbol | None:
    """Parse a global symbol; None for a local one or a string that breaks the grammar."""
    if not symbol or is_local(symbol):
        return None
    fields: list[str] = symbol.split(" ", 4)
    if len(fields) == 5 and all(fields[:4]) and not fields[4].startswith(" "):
        rest = fields.pop()  # no doubled space in the four fields: the common case
    else:
        fields, position = [], 0
        for _ in range(4):
            value, position = _space_field(symbol, position)
            if value is None:
                return None
            fields.append(value)
        rest = symbol[position:]
    descriptors = _descriptors(rest)
    if descriptors is None:
        return None
    scheme, manager, package, version = ("" if value == "." else value for value in fields)
    return ScipSymbol(scheme, manager, package, version, descriptors)


def _escaped(text: str, start: int, delimiter: str) -> tuple[str | None, int]:
    """Text up to `delimiter` (a doubled delimiter stands for itself); None when it never closes."""
    pieces: list[str] = []
    while True:
        end = text.find(delimiter, start)
        if end < 0:
            return None, len(text)
        pieces.append(text[start:end])
        if not text.startswith(delimiter, end + 1):
            return "".join(pieces), end + 1
        pieces.append(delimiter)
        start = end + 2


def _space_field(text: str, start: int) -> tuple[str | None, int]:
    """One space-terminated field; a doubled space is an escaped space."""
    return _escaped(text, start, " ")


SIMPLE_IDENTIFIER = re.compile(r"[\w+\-$]+")
"""The characters of an unquoted name: alphanumeric (by `str.isalnum()`, as a regular expression's
word characters are, with `_`) or one of `_+-$`."""


def _identifier(text: str, start: int) -> tuple[str | None, int]:
    if start < len(text) and text[start] == "`":
        return _escaped(text, start + 1, "`")
    match = SIMPLE_IDENTIFIER.match(text, start)
    return (match.group(), match.end()) if match else (None, start)


SUFFIX_MARKS = {"/": Suffix.NAMESPACE, "#": Suffix.TYPE, ".": Suffix.TERM, ":": Suffix.META, "!": Suffix.MACRO}


def _descriptors(text: str) -> tuple[Descriptor, ...] | None:
    found: list[Descriptor] = []
    i = 0
    while i < len(text):
        if text[i] in "[(":
            closing = "]" if text[i] == "[" else ")"
            name, j = _identifier(text, i + 1)
            if name is None or j >= len(text) or text[j] != closing:
                return None
            found.append(Descriptor(name, Suffix.TYPE_PARAMETER if closing == "]" else Suffix.PARAMETER))
            i = j + 1
            continue
        name, j = _identifier(text, i)
        if name is None or j >= len(text):
            return None
        mark = text[j]
        if mark == "(":
            close = text.find(").", j)
            if close < 0:
                return None
            found.append(Descriptor(name, Suffix.METHOD, text[j + 1 : close]))
            i = close + 2
            continue
        suffix = SUFFIX_MARKS.get(mark)
        if suffix is None:
            return None
        found.append(Descriptor(name, suffix))
        i = j + 1
    return tuple(found)
