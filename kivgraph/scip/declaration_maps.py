"""TypeScript declaration maps: from a declaration in an emitted `.d.ts` to the source it came from.

A `.d.ts.map` is a source map (version 3): for each generated line, segments pointing back to a
(source file, line, column). tsc maps every declared name, so the position of a name in the
`.d.ts` leads to the position of the same name in the `.ts` that was compiled.
"""

import json
import posixpath
from bisect import bisect_right
from dataclasses import dataclass
from typing import cast

BASE64 = {c: i for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")}


class SourceMapError(ValueError):
    """A map that is not a version-3 source map we can read."""


def _vlq(segment: str) -> list[int]:
    values: list[int] = []
    value = shift = 0
    for char in segment:
        digit = BASE64.get(char)
        if digit is None:
            raise SourceMapError(f"invalid base64 character {char!r} in mappings")
        value += (digit & 31) << shift
        if digit & 32:
            shift += 5
            continue
        values.append(-(value >> 1) if value & 1 else value >> 1)
        value = shift = 0
    if shift:
        raise SourceMapError("mappings end inside a number")
    return values


@dataclass(frozen=True, slots=True)
class Origin:
    """A position in a source file (repository-relative path, 0-based line and column)."""

    path: str
    line: int
    column: int


@dataclass(frozen=True, slots=True)
class DeclarationMap:
    """The segments of one `.d.ts.map`, by generated line: (generated column, origin)."""

    lines: tuple[tuple[tuple[int, Origin], ...], ...]

    @classmethod
    def parse(cls, data: bytes, map_path: str) -> "DeclarationMap":
        """Read the map stored at `map_path` (repository-relative); sources resolve beside it."""
        try:
            parsed: object = json.loads(data)
        except (ValueError, UnicodeDecodeError) as err:
            raise SourceMapError(f"not JSON: {err}") from None
        document = cast(dict[str, object], parsed) if isinstance(parsed, dict) else {}
        if document.get("version") != 3:
            raise SourceMapError("not a version 3 source map")
        mappings, sources, root = document.get("mappings", ""), document.get("sources", []), document.get("sourceRoot")
        root = root or ""
        if not isinstance(mappings, str) or not isinstance(sources, list) or not isinstance(root, str):
            raise SourceMapError("mappings, sources or sourceRoot of the wrong type")
        directory = posixpath.dirname(map_path)
        names = [str(s) for s in cast(list[object], sources)]
        paths = [posixpath.normpath(posixpath.join(directory, root, name)) for name in names]
        lines: list[tuple[tuple[int, Origin], ...]] = []
        source = line = column = 0
        for text in mappings.split(";"):
            generated = 0
            segments: list[tuple[int, Origin]] = []
            for segment in text.split(","):
                if not segment:
                    continue
                fields = _vlq(segment)
                generated += fields[0]
                if len(fields) < 4:
                    continue
                source, line, column = source + fields[1], line + fields[2], column + fields[3]
                if 0 <= source < len(paths) and not paths[source].startswith("../"):
                    segments.append((generated, Origin(paths[source], line, column)))
            lines.append(tuple(sorted(segments, key=lambda s: s[0])))
        return cls(tuple(lines))

    def origin(self, line: int, column: int) -> Origin | None:
        """Where the text at (0-based) `line`, `column` of the `.d.ts` was emitted from."""
        if not 0 <= line < len(self.lines):
            return None
        segments = self.lines[line]
        at = bisect_right([s[0] for s in segments], column) - 1
        return segments[at][1] if at >= 0 else None
