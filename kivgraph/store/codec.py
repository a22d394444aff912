"""The generation codec: a `Generation` as columnar CBOR, inside the envelope of store/envelope.py.

Owns the byte format of the payload (docs/storage-format.md) and nothing else: no git, no files.
`encode` and `decode` map a `Generation` to bytes and back; `decode_columns` stops at the columns
(integer arrays + a string table), which is what the query layer loads without a row object per
edge. Every field is validated before anything is built from it: any damage is a
`CorruptGenerationError`, and a kind a newer minor version added is kept (docs/storage-format.md).
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from itertools import repeat
from typing import Any, TypeVar, cast

import cbor2
import numpy as np
import numpy.typing as npt

from kivgraph.errors import CorruptGenerationError, KivgraphError
from kivgraph.model import (
    Confidence,
    Edge,
    EdgeKind,
    ExternalReference,
    FileRecord,
    FileRole,
    FileStatus,
    Generation,
    GenerationHeader,
    InvisibleScope,
    Language,
    Package,
    Provenance,
    Submodule,
    Symbol,
    SymbolKind,
    Unresolved,
)
from kivgraph.model.roles import role_by_convention
from kivgraph.store.envelope import FORMAT_MAJOR, FORMAT_MINOR, cbor_value, read_envelope, seal

KEY_BYTES = 32
NONE = -1
"""Integer columns use -1 for "no value" (no container, no file, no source)."""

IntColumn = npt.NDArray[np.int32]

VOCABULARIES: dict[str, tuple[str, ...]] = {
    "language": tuple(Language),
    "symbol_kind": tuple(k for k in SymbolKind if k is not SymbolKind.UNKNOWN),
    "edge_kind": tuple(k for k in EdgeKind if k is not EdgeKind.UNKNOWN),
    "confidence": tuple(Confidence),
    "provenance": tuple(p for p in Provenance if p is not Provenance.UNKNOWN),
    "file_status": tuple(f for f in FileStatus if f is not FileStatus.UNKNOWN),
}
"""Written into every blob, so a reader maps codes by the writer's vocabulary, not its own. The
UNKNOWN members are a reader's, never written: a reader before them would refuse a vocabulary
holding a name it does not know."""
E = TypeVar("E", bound=StrEnum)


def pack_ints(values: Any) -> bytes:
    return np.fromiter(values, dtype="<i4").tobytes()


def unpack_ints(data: bytes) -> IntColumn:
    """A read-only little-endian int32 view over the bytes: no copy, whatever the host's byte order."""
    if len(data) % 4:
        raise ValueError(f"an int32 column of {len(data)} bytes is not a whole number of values")
    return np.frombuffer(data, dtype="<i4")


_BASE32_AS_DIGITS = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", "0123456789abcdefghijklmnopqrstuv")


def key_bytes(key: str) -> bytes:
    """52 base32 characters carry 256 bits and 4 zero bits of padding; int() decodes them in C."""
    return (int(key.translate(_BASE32_AS_DIGITS), 32) >> 4).to_bytes(KEY_BYTES, "big")


def key_text(raw: bytes) -> str:
    return base64.b32encode(raw).decode("ascii").rstrip("=")


_BASE32_ALPHABET = np.frombuffer(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", dtype=np.uint8)
_KEY_CHARS = 52
_FIVE_BIT_SHIFTS = np.arange(35, -1, -5, dtype=np.uint64)


def keys_text(raw: bytes, count: int) -> list[str]:
    """Every key of a key column as text at once (what key_text makes of each): base32 in numpy,
    since the base64 module encodes in Python, a few microseconds a key."""
    if count == 0:
        return []
    padded = np.zeros((count, 35), dtype=np.uint64)  # 35 bytes: seven whole 40-bit groups
    padded[:, :KEY_BYTES] = np.frombuffer(raw, dtype=np.uint8, count=count * KEY_BYTES).reshape(count, KEY_BYTES)
    groups = padded.reshape(count, 7, 5)
    value = groups[..., 0] << 32 | groups[..., 1] << 24 | groups[..., 2] << 16 | groups[..., 3] << 8 | groups[..., 4]
    digits = (value[..., None] >> _FIVE_BIT_SHIFTS) & 31
    text = _BASE32_ALPHABET[digits.reshape(count, 56)[:, :_KEY_CHARS]].tobytes().decode("ascii")
    return [text[i : i + _KEY_CHARS] for i in range(0, count * _KEY_CHARS, _KEY_CHARS)]


class _Strings:
    """The string table: each distinct string once, index 0 is the empty string."""

    def __init__(self) -> None:
        self.table: list[str] = [""]
        self.index: dict[str, int] = {"": 0}

    def __call__(self, value: str) -> int:
        found = self.index.get(value)
        if found is None:
            found = self.index[value] = len(self.table)
            self.table.append(value)
        return found


def encode(generation: Generation | Columns) -> bytes:
    """Bytes for a generation (or its columns, as `columns_of` or `kivgraph.store.join` make them):
    deterministic for equal input (the payload digest is stable)."""
    columns = generation if isinstance(generation, Columns) else columns_of(generation)
    return seal(cbor2.dumps(_payload(columns)))


def _payload(c: Columns) -> dict[str, Any]:
    h = c.header
    tables: dict[str, Any] = {}
    for table, specs in SCHEMA.items():
        columns = {"key": c.symbol_keys} if table == "symbols" else {}
        columns.update((name, c.tables[table][name].astype("<i4", copy=False).tobytes()) for name in specs)
        tables[table] = columns
    return {
        "header": {
            "repository": h.repository,
            "remote_url": h.remote_url,
            "commit": h.commit,
            "tree": h.tree,
            "indexer_version": h.indexer_version,
            "created_at": h.created_at,
            "languages": [str(x) for x in h.languages],
            "analyzers": [[a, v] for a, v in h.analyzers],
            "worktree": h.worktree,
            "submodules": [[m.path, m.commit, m.url] for m in h.submodules],
        },
        "vocabularies": c.vocabularies,
        **tables,
        "strings": c.strings,
    }


def _ints(values: Any) -> IntColumn:
    return np.fromiter(values, dtype="<i4")


def columns_of(g: Generation) -> Columns:
    """The columns `encode` writes: every table sorted, strings in a table in order of first use."""
    s = _Strings()
    code = {name: {value: i for i, value in enumerate(values)} for name, values in VOCABULARIES.items()}
    lang, kind, ekind = code["language"], code["symbol_kind"], code["edge_kind"]
    conf, prov, fstat = code["confidence"], code["provenance"], code["file_status"]

    files = sorted(g.files, key=lambda f: f.path)
    file_index = {f.path: i for i, f in enumerate(files)}
    packages = sorted(g.packages, key=lambda p: p.id)
    package_index = {p.id: i for i, p in enumerate(packages)}
    symbols = sorted(
        g.symbols, key=lambda x: (x.file, x.start_line, x.name_line, x.name_column, x.qualified_name, x.key)
    )
    symbol_index = {x.key: i for i, x in enumerate(symbols)}
    if len(symbol_index) != len(symbols):
        raise ValueError("two symbols share a stable key; keys must be unique within a generation")

    def sym(key: str | None) -> int:
        return NONE if key is None else symbol_index[key]

    def fidx(path: str) -> int:
        return file_index[path] if path else NONE

    edge_columns = _edge_columns(g.edges, symbol_index, file_index, ekind, conf, prov)
    externals = sorted(
        g.external_references, key=lambda x: (x.file, x.line, x.package, x.symbol, x.source, x.manager, x.version)
    )
    unresolved = sorted(
        g.unresolved,
        key=lambda u: (u.file, u.line, u.reason, u.requested_package, u.requested_symbol, u.source or "", u.detail),
    )
    scopes = sorted(g.invisible_scopes, key=lambda v: (v.path, v.scope, v.reason, v.detail))
    # In the payload's order, so each string is numbered where it is first used.
    tables: dict[str, dict[str, IntColumn]] = {
        "files": {
            "path": _ints(s(f.path) for f in files),
            "language": _ints(lang[f.language] for f in files),
            "digest": _ints(s(f.digest) for f in files),
            "size": _ints(f.size for f in files),
            "status": _ints(fstat[f.status] for f in files),
            "role": _ints(s(f.role) for f in files),
        },
        "packages": {
            "id": _ints(s(p.id) for p in packages),
            "language": _ints(lang[p.language] for p in packages),
            "name": _ints(s(p.name) for p in packages),
            "root": _ints(s(p.root) for p in packages),
            "manifest": _ints(s(p.manifest) for p in packages),
            "version": _ints(s(p.version) for p in packages),
            "distribution": _ints(s(p.distribution) for p in packages),
        },
        "symbols": {
            "name": _ints(s(x.name) for x in symbols),
            "qualified_name": _ints(s(x.qualified_name) for x in symbols),
            "kind": _ints(kind[x.kind] for x in symbols),
            "language": _ints(lang[x.language] for x in symbols),
            "file": _ints(fidx(x.file) for x in symbols),
            "start_line": _ints(x.start_line for x in symbols),
            "end_line": _ints(x.end_line for x in symbols),
            "name_line": _ints(x.name_line for x in symbols),
            "name_column": _ints(x.name_column for x in symbols),
            "signature": _ints(s(x.signature) for x in symbols),
            "exported": _ints(int(x.exported) for x in symbols),
            "container": _ints(sym(x.container) for x in symbols),
            "package": _ints(package_index[x.package] if x.package else NONE for x in symbols),
            "doc": _ints(s(x.doc) for x in symbols),
            "role": _ints(s(x.role) for x in symbols),
        },
        "edges": edge_columns,
        "external_references": {
            "source": _ints(sym(x.source) for x in externals),
            "language": _ints(lang[x.language] for x in externals),
            "package": _ints(s(x.package) for x in externals),
            "symbol": _ints(s(x.symbol) for x in externals),
            "file": _ints(fidx(x.file) for x in externals),
            "line": _ints(x.line for x in externals),
            "manager": _ints(s(x.manager) for x in externals),
            "version": _ints(s(x.version) for x in externals),
            "provenance": _ints(prov[x.provenance] for x in externals),
            "kind": _ints(ekind[x.kind] for x in externals),
        },
        "unresolved": {
            "reason": _ints(s(u.reason) for u in unresolved),
            "language": _ints(lang[u.language] for u in unresolved),
            "file": _ints(fidx(u.file) for u in unresolved),
            "line": _ints(u.line for u in unresolved),
            "requested_package": _ints(s(u.requested_package) for u in unresolved),
            "requested_symbol": _ints(s(u.requested_symbol) for u in unresolved),
            "source": _ints(sym(u.source) for u in unresolved),
            "detail": _ints(s(u.detail) for u in unresolved),
        },
        "invisible_scopes": {
            "reason": _ints(s(v.reason) for v in scopes),
            "language": _ints(lang[v.language] for v in scopes),
            "scope": _ints(s(v.scope) for v in scopes),
            "path": _ints(s(v.path) for v in scopes),
            "detail": _ints(s(v.detail) for v in scopes),
        },
    }
    keys = b"".join(key_bytes(x.key) for x in symbols)
    vocabularies = {name: list(values) for name, values in VOCABULARIES.items()}
    return Columns(g.header, s.table, vocabularies, tables, keys)


EDGE_COLUMNS = ("source", "target", "kind", "confidence", "provenance", "file", "line")


def _edge_columns(
    edges: tuple[Edge, ...],
    symbol_index: dict[str, int],
    file_index: dict[str, int],
    ekind: dict[str, int],
    conf: dict[str, int],
    prov: dict[str, int],
) -> dict[str, IntColumn]:
    """The edge table, sorted by (source, target, kind, …) with numpy: a million edges in well under
    a second, where sorting a million Python tuples took three."""
    files = {**file_index, "": NONE}
    table = np.array(
        [
            [symbol_index[e.source] for e in edges],
            [symbol_index[e.target] for e in edges],
            [ekind[e.kind] for e in edges],
            [conf[e.confidence] for e in edges],
            [prov[e.provenance] for e in edges],
            [files[e.file] for e in edges],
            [e.line for e in edges],
        ],
        dtype="<i4",
    ).reshape(len(EDGE_COLUMNS), len(edges))
    order = np.lexsort(table[::-1])  # lexsort's last key is the primary one
    return {name: table[i][order] for i, name in enumerate(EDGE_COLUMNS)}


@dataclass(frozen=True, slots=True)
class Columns:
    """A decoded generation before rows are built: what the query layer loads.

    `decode_columns` validated every field, so nothing built from it fails on the data: every
    string, vocabulary and row index is inside its table, and `NONE` only where a column allows it.
    """

    header: GenerationHeader
    strings: list[str]
    vocabularies: dict[str, list[str]]
    tables: dict[str, dict[str, IntColumn]]
    symbol_keys: bytes
    format_version: tuple[int, int] = (FORMAT_MAJOR, FORMAT_MINOR)
    """The storage format the blob was written in."""
    unknown_languages: tuple[str, ...] = ()
    """Languages the header lists that this reader does not know (a newer writer's): they are not
    in `header.languages`, whose members are `Language`s, and readers must not claim them checked."""

    def count(self, table: str) -> int:
        columns = self.tables[table]
        return len(next(iter(columns.values()))) if columns else 0

    def key(self, index: int) -> str:
        return key_text(self.symbol_keys[index * KEY_BYTES : (index + 1) * KEY_BYTES])

    def file_paths(self) -> list[str]:
        return [self.strings[x] for x in int_list(self.tables["files"]["path"])]


# -- validation: what each column holds, checked on every load --------------------------------------


@dataclass(frozen=True, slots=True)
class ColumnSpec:
    """What an integer column holds, which bounds every value in it."""

    kind: str
    """"string" (→ strings), "vocabulary" (→ vocabularies[target]), "row" (→ rows of table `target`;
    NONE only when nullable), "count" (≥ 0: sizes, lines, byte columns) or "flag" (0 or 1)."""
    target: str = ""
    nullable: bool = False


_TEXT, _COUNT, _FLAG = ColumnSpec("string"), ColumnSpec("count"), ColumnSpec("flag")
_LANG = ColumnSpec("vocabulary", "language")
_PROVENANCE = ColumnSpec("vocabulary", "provenance")
_FILE = ColumnSpec("row", "files", nullable=True)
_SYMBOL = ColumnSpec("row", "symbols")
_MAYBE_SYMBOL = ColumnSpec("row", "symbols", nullable=True)

SCHEMA: dict[str, dict[str, ColumnSpec]] = {
    "files": {"path": _TEXT, "language": _LANG, "digest": _TEXT, "size": _COUNT,
              "status": ColumnSpec("vocabulary", "file_status"), "role": _TEXT},
    "packages": {"id": _TEXT, "language": _LANG, "name": _TEXT, "root": _TEXT, "manifest": _TEXT,
                 "version": _TEXT, "distribution": _TEXT},
    "symbols": {"name": _TEXT, "qualified_name": _TEXT, "kind": ColumnSpec("vocabulary", "symbol_kind"),
                "language": _LANG, "file": _FILE, "start_line": _COUNT, "end_line": _COUNT, "name_line": _COUNT,
                "name_column": _COUNT, "signature": _TEXT, "exported": _FLAG, "container": _MAYBE_SYMBOL,
                "package": ColumnSpec("row", "packages", nullable=True), "doc": _TEXT, "role": _TEXT},
    "edges": {"source": _SYMBOL, "target": _SYMBOL, "kind": ColumnSpec("vocabulary", "edge_kind"),
              "confidence": ColumnSpec("vocabulary", "confidence"), "provenance": _PROVENANCE, "file": _FILE,
              "line": _COUNT},
    "external_references": {"source": _SYMBOL, "language": _LANG, "package": _TEXT, "symbol": _TEXT, "file": _FILE,
                            "line": _COUNT, "manager": _TEXT, "version": _TEXT, "provenance": _PROVENANCE,
                            "kind": ColumnSpec("vocabulary", "edge_kind")},
    "unresolved": {"reason": _TEXT, "language": _LANG, "file": _FILE, "line": _COUNT, "requested_package": _TEXT,
                   "requested_symbol": _TEXT, "source": _MAYBE_SYMBOL, "detail": _TEXT},
    "invisible_scopes": {"reason": _TEXT, "language": _LANG, "scope": _TEXT, "path": _TEXT, "detail": _TEXT},
}  # fmt: skip
"""Every table and integer column a reader needs (`symbols.key` is raw bytes, checked apart)."""
OPTIONAL_COLUMNS = frozenset(
    {("packages", "distribution"), ("external_references", "kind"), ("files", "role"), ("symbols", "role")}
)
"""Added by a minor version: absent from older blobs, and then read as empty ("")."""
_HEADER_TEXT = ("repository", "commit", "tree", "indexer_version", "created_at", "remote_url")
_LANGUAGE_NAMES = frozenset(x.value for x in Language)
_ROLE_NAMES = frozenset(x.value for x in FileRole)


def decode_columns(blob: bytes, where: str = "generation") -> Columns:
    """The columns of a blob, every field validated (types, lengths, every index in range), so what
    is built from them cannot fail on the data; anything else is a CorruptGenerationError."""
    version, payload = read_envelope(blob, where)
    body = _map(cbor_value(payload, where, "payload"), "payload", where)
    header, unknown_languages = _header(_map(body.get("header"), "header", where), where)
    strings = body.get("strings")
    if not isinstance(strings, list):
        raise CorruptGenerationError(where, "its string table is not a list of text")
    voc = _map(body.get("vocabularies"), "vocabularies", where)
    vocabularies = {name: _texts(voc.get(name), f"vocabularies.{name}", where) for name in VOCABULARIES}
    tables: dict[str, dict[str, IntColumn]] = {}
    for table, specs in SCHEMA.items():
        found = _map(body.get(table), table, where)
        columns = tables[table] = {}
        for name in specs:
            data = found.get(name)
            if data is None and (table, name) in OPTIONAL_COLUMNS:
                continue
            if not isinstance(data, bytes) or len(data) % 4:
                raise CorruptGenerationError(where, f"its column {table}.{name} is missing or not int32 values")
            columns[name] = unpack_ints(data)
        if len({len(column) for column in columns.values()}) > 1:
            raise CorruptGenerationError(where, f"the columns of {table} have different lengths")
    keys = _map(body.get("symbols"), "symbols", where).get("key")
    if not isinstance(keys, bytes):
        raise CorruptGenerationError(where, "its column symbols.key is missing")
    columns = Columns(header, cast("list[str]", strings), vocabularies, tables, keys, version, unknown_languages)
    check_columns(columns, where)
    return columns


def _map(value: object, what: str, where: str) -> dict[object, object]:
    if not isinstance(value, dict):
        raise CorruptGenerationError(where, f"its {what} is missing or not a map")
    return cast("dict[object, object]", value)


def _texts(value: object, what: str, where: str) -> list[str]:
    if not isinstance(value, list) or not set(map(type, cast("list[object]", value))) <= {str}:
        raise CorruptGenerationError(where, f"its {what} is missing or not a list of text")
    return cast("list[str]", value)


def _header(h: dict[object, object], where: str) -> tuple[GenerationHeader, tuple[str, ...]]:
    """The header, and the languages in it this reader does not know."""
    text: list[str] = []
    for name in _HEADER_TEXT:
        value = h.get(name)
        if not isinstance(value, str):
            raise CorruptGenerationError(where, f"its header.{name} is missing or not text")
        text.append(value)
    repository, commit, tree, indexer_version, created_at, remote_url = text
    languages = _texts(h.get("languages"), "header.languages", where)
    analyzers = h.get("analyzers")
    if not isinstance(analyzers, list) or not all(
        isinstance(pair, list) and len(cast("list[object]", pair)) == 2
        and all(isinstance(x, str) for x in cast("list[object]", pair))
        for pair in cast("list[object]", analyzers)
    ):  # fmt: skip
        raise CorruptGenerationError(where, "its header.analyzers is not a list of [name, version] texts")
    worktree = h.get("worktree")
    if not isinstance(worktree, bool):
        raise CorruptGenerationError(where, "its header.worktree is missing or not true/false")
    try:
        submodules = _submodules(h.get("submodules", []))  # format 1.2
    except TypeError as err:
        raise CorruptGenerationError(where, f"its {err}") from err
    header = GenerationHeader(
        repository,
        commit,
        tree,
        indexer_version,
        created_at,
        remote_url,
        languages=tuple(Language(x) for x in languages if x in _LANGUAGE_NAMES),
        analyzers=tuple((a, v) for a, v in cast("list[list[str]]", analyzers)),
        worktree=worktree,
        submodules=submodules,
    )
    return header, tuple(x for x in languages if x not in _LANGUAGE_NAMES)


def _submodules(value: object) -> tuple[Submodule, ...]:
    if not isinstance(value, list):
        raise TypeError("header.submodules is not a list")
    found: list[Submodule] = []
    for item in cast("list[object]", value):
        if not (isinstance(item, list) and len(cast("list[object]", item)) == 3):
            raise TypeError("a header.submodules entry is not [path, commit, url]")
        path, commit, url = cast("list[object]", item)
        if not (isinstance(path, str) and isinstance(commit, str) and isinstance(url, str)):
            raise TypeError("a header.submodules entry is not three strings")
        found.append(Submodule(path, commit, url))
    return tuple(found)


def check_columns(c: Columns, where: str = "generation") -> None:
    """The string table holds only text and every value is inside what it points at: one min and one
    max per column, vectorised (milliseconds for a million edges), so no later index can fail.
    decode_columns runs it; `benchmarks/query_bench.py` times it on its own."""
    if not set(map(type, cast("list[object]", c.strings))) <= {str}:
        raise CorruptGenerationError(where, "its string table is not a list of text")
    if len(c.symbol_keys) != c.count("symbols") * KEY_BYTES:
        raise CorruptGenerationError(where, "the symbol key column does not match the symbol count")
    for table, specs in SCHEMA.items():
        for name, spec in specs.items():
            column = c.tables[table].get(name)
            if column is None or not len(column):
                continue
            low, high = int(column.min()), int(column.max())
            if spec.kind == "row":
                if low < (NONE if spec.nullable else 0) or high >= c.count(spec.target):
                    raise CorruptGenerationError(where, f"{table}.{name} points outside {spec.target}")
            elif spec.kind in ("string", "vocabulary"):
                end = len(c.strings) if spec.kind == "string" else len(c.vocabularies[spec.target])
                if low < 0 or high >= end:
                    what = "the string table" if spec.kind == "string" else f"vocabularies.{spec.target}"
                    raise CorruptGenerationError(where, f"{table}.{name} points outside {what}")
            elif low < 0 or (spec.kind == "flag" and high > 1):
                expected = "0 or 1" if spec.kind == "flag" else "a count, line or column (never negative)"
                raise CorruptGenerationError(where, f"{table}.{name} holds {low if low < 0 else high}, not {expected}")


def decode(blob: bytes, where: str = "generation") -> Generation:
    """The whole generation as model rows (tests, the library API); loads use decode_columns.

    A kind only a newer writer knows reads as its enum's UNKNOWN member, an unknown confidence as
    CANDIDATE (never stronger). A row in a language this reader does not know cannot be a model row
    (`Language` has no such member): decode refuses it with a KivgraphError, while decode_columns,
    which every query reads, keeps the language's name.
    """
    c = decode_columns(blob, where)
    _refuse_unknown_languages(c, where)
    return rows(c)


def _refuse_unknown_languages(c: Columns, where: str) -> None:
    names = c.vocabularies["language"]
    unknown = [code for code, name in enumerate(names) if name not in _LANGUAGE_NAMES]
    if not unknown:
        return
    for table, columns in c.tables.items():
        column = columns.get("language", np.zeros(0, np.int32))
        used = int_list(np.unique(column[np.isin(column, unknown)]))
        if used:
            found = ", ".join(sorted(names[code] for code in used))
            raise KivgraphError(
                f"the generation stored for {where} has {table} in a language this kivgraph does not know "
                f"({found}), written by a newer kivgraph: its rows cannot be read as model objects. Upgrade "
                "kivgraph; queries and `kivgraph show` read it as it is."
            )


def _read_as(enum: type[E], names: list[str], unknown: E) -> list[E]:
    """The writer's vocabulary in this reader's enum: a name only a newer writer knows → `unknown`."""
    known = {member.value: member for member in enum}
    return [known.get(name, unknown) for name in names]


def int_list(column: npt.NDArray[np.integer[Any]]) -> list[int]:
    values: list[int] = column.tolist()
    return values


def read_role(text: str) -> FileRole:
    """A stored role; one a newer writer added reads as `source` (listed, never hidden)."""
    return FileRole(text) if text in _ROLE_NAMES else FileRole.SOURCE


def roles_of(
    strings: list[str], stored: list[int] | None, paths: list[int], languages: list[Language | None]
) -> list[FileRole]:
    """Each file's role: as stored (format 1.4), else by the path's conventions."""
    if stored is not None:
        return [read_role(strings[x]) for x in stored]
    return [role_by_convention(strings[p], lang) for p, lang in zip(paths, languages, strict=True)]


def rows(c: Columns) -> Generation:
    """The generation of validated columns, as model rows."""
    st = c.strings
    voc = c.vocabularies
    langs = {code: Language(x) for code, x in enumerate(voc["language"]) if x in _LANGUAGE_NAMES}
    ekinds = _read_as(EdgeKind, voc["edge_kind"], EdgeKind.UNKNOWN)
    confs = _read_as(Confidence, voc["confidence"], Confidence.CANDIDATE)
    provs = _read_as(Provenance, voc["provenance"], Provenance.UNKNOWN)
    fstats = _read_as(FileStatus, voc["file_status"], FileStatus.UNKNOWN)
    t: dict[str, dict[str, list[int]]] = {
        table: {name: int_list(col) for name, col in cols.items()} for table, cols in c.tables.items()
    }
    f = t["files"]
    file_roles = roles_of(st, f.get("role"), f["path"], [langs.get(x) for x in f["language"]])
    files = tuple(
        FileRecord(st[f["path"][i]], langs[f["language"][i]], st[f["digest"][i]], f["size"][i],
                   fstats[f["status"][i]], file_roles[i])
        for i in range(len(file_roles))
    )  # fmt: skip
    paths = [x.path for x in files]
    p = t["packages"]
    shipped_in = p.get("distribution")  # format 1.1; a 1.0 blob has no such column
    packages = tuple(
        Package(
            st[p["id"][i]], langs[p["language"][i]], st[p["name"][i]], st[p["root"][i]], st[p["manifest"][i]],
            st[p["version"][i]], st[shipped_in[i]] if shipped_in else "",
        )
        for i in range(len(p["id"]))
    )  # fmt: skip
    keys = keys_text(c.symbol_keys, c.count("symbols"))

    def key(i: int) -> str | None:
        return None if i == NONE else keys[i]

    def path(i: int) -> str:
        return "" if i == NONE else paths[i]

    text = st.__getitem__
    paths_or_none = [*paths, ""]  # NONE (-1) reads the last: no file
    symbols = _symbols(
        c, t["symbols"], keys, [*keys, None], paths_or_none, [x.id for x in packages], [x.role for x in files]
    )
    e = t["edges"]
    source, target, kind, confidence, provenance, file, line = (e[name] for name in EDGE_COLUMNS)
    edges = tuple(map(Edge, map(keys.__getitem__, source), map(keys.__getitem__, target), map(ekinds.__getitem__, kind),
                      map(confs.__getitem__, confidence), map(provs.__getitem__, provenance),
                      map(paths_or_none.__getitem__, file), line))  # fmt: skip
    x = t["external_references"]
    site_kinds = x.get("kind")  # format 1.3; an older blob saw every use as REFERENCES
    externals = tuple(map(ExternalReference, map(keys.__getitem__, x["source"]), map(langs.__getitem__, x["language"]),
                          map(text, x["package"]), map(text, x["symbol"]), map(paths_or_none.__getitem__, x["file"]),
                          x["line"], map(text, x["manager"]), map(text, x["version"]),
                          map(provs.__getitem__, x["provenance"]),
                          map(ekinds.__getitem__, site_kinds) if site_kinds
                          else repeat(EdgeKind.REFERENCES)))  # fmt: skip
    u = t["unresolved"]
    unresolved = tuple(
        Unresolved(
            st[u["reason"][i]],
            langs[u["language"][i]],
            path(u["file"][i]),
            u["line"][i],
            st[u["requested_package"][i]],
            st[u["requested_symbol"][i]],
            key(u["source"][i]),
            st[u["detail"][i]],
        )
        for i in range(len(u["reason"]))
    )
    scopes = invisible_scopes_of(c)
    return Generation(c.header, files, packages, symbols, edges, externals, unresolved, scopes)


def symbols_of(c: Columns, rows: npt.NDArray[np.integer[Any]] | None = None) -> tuple[Symbol, ...]:
    """The symbols of validated columns as model rows (all, or those of `rows`), without the rest of
    `rows()`: reuse reads an ancestor's symbols and never its edges."""
    st = c.strings
    f = c.tables["files"]
    paths = [st[x] for x in int_list(f["path"])]
    langs = {code: Language(x) for code, x in enumerate(c.vocabularies["language"]) if x in _LANGUAGE_NAMES}
    stored = int_list(f["role"]) if "role" in f else None
    roles = roles_of(st, stored, int_list(f["path"]), [langs.get(x) for x in int_list(f["language"])])
    packages = [st[x] for x in int_list(c.tables["packages"]["id"])]
    if rows is None:
        s = {name: int_list(column) for name, column in c.tables["symbols"].items()}
        keys = keys_text(c.symbol_keys, c.count("symbols"))
        return _symbols(c, s, keys, [*keys, None], [*paths, ""], packages, roles)
    s = {name: int_list(column[rows]) for name, column in c.tables["symbols"].items()}
    raw = np.frombuffer(c.symbol_keys, dtype=np.uint8).reshape(-1, KEY_BYTES)
    keys = keys_text(raw[rows].tobytes(), len(rows))
    containers = {x: c.key(x) for x in s["container"] if x != NONE}
    return _symbols(c, s, keys, {**containers, NONE: None}, [*paths, ""], packages, roles)


def _symbols(c: Columns, s: dict[str, list[int]], keys: list[str],
             container_keys: Sequence[str | None] | dict[int, str | None], paths_or_none: list[str],
             package_ids: list[str], file_roles: list[FileRole]) -> tuple[Symbol, ...]:  # fmt: skip
    """`container_keys`: the key of each symbol a container column names (NONE → None)."""
    st = c.strings
    langs = {code: Language(x) for code, x in enumerate(c.vocabularies["language"]) if x in _LANGUAGE_NAMES}
    kinds = _read_as(SymbolKind, c.vocabularies["symbol_kind"], SymbolKind.UNKNOWN)
    symbol_roles = (
        [file_roles[x] if x != NONE else FileRole.SOURCE for x in s["file"]]
        if "role" not in s
        else [read_role(st[x]) for x in s["role"]]
    )
    text = st.__getitem__
    packages_or_none = [*package_ids, ""]
    # map() in C rather than generators: a quarter of a million rows is a common generation.
    return tuple(map(Symbol, keys, map(text, s["name"]), map(text, s["qualified_name"]),
                     map(kinds.__getitem__, s["kind"]), map(langs.__getitem__, s["language"]),
                     map(paths_or_none.__getitem__, s["file"]), s["start_line"], s["end_line"], s["name_line"],
                     s["name_column"], map(text, s["signature"]), map(bool, s["exported"]),
                     map(container_keys.__getitem__, s["container"]), map(packages_or_none.__getitem__, s["package"]),
                     map(text, s["doc"]), symbol_roles))  # fmt: skip


def invisible_scopes_of(c: Columns) -> tuple[InvisibleScope, ...]:
    """The blind spots of validated columns as model rows."""
    st = c.strings
    langs = {code: Language(x) for code, x in enumerate(c.vocabularies["language"]) if x in _LANGUAGE_NAMES}
    v = {name: int_list(column) for name, column in c.tables["invisible_scopes"].items()}
    return tuple(map(InvisibleScope, map(st.__getitem__, v["reason"]), map(langs.__getitem__, v["language"]),
                     map(st.__getitem__, v["scope"]), map(st.__getitem__, v["path"]),
                     map(st.__getitem__, v["detail"])))  # fmt: skip


def created_at(blob: bytes, where: str = "generation") -> str:
    """The header's creation time, for "newest generation wins" merges."""
    _, payload = read_envelope(blob, where)
    body = _map(cbor_value(payload, where, "payload"), "payload", where)
    value = _map(body.get("header"), "header", where).get("created_at")
    if not isinstance(value, str):
        raise CorruptGenerationError(where, "its created_at is not text")
    return value
