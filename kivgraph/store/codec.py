"""The generation codec: columnar CBOR inside a digest-checked envelope, compressed with zstd.

Owns the byte format (docs/storage-format.md) and nothing else: no git, no files. `encode` and
`decode` map a `Generation` to bytes and back; `decode_columns` stops at the columns (integer
arrays + a string table), which is what the query layer loads without building a row object per
edge. Any damage is a `CorruptGenerationError`; an unknown major version is refused.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from typing import Any, cast

import cbor2
import numpy as np
import numpy.typing as npt
import zstandard

from kivgraph.errors import CorruptGenerationError, UnsupportedFormatError
from kivgraph.model import (
    Confidence,
    Edge,
    EdgeKind,
    ExternalReference,
    FileRecord,
    FileStatus,
    Generation,
    GenerationHeader,
    InvisibleScope,
    Language,
    Package,
    Provenance,
    Symbol,
    SymbolKind,
    Unresolved,
)

FORMAT_NAME = "kivgraph-generation"
FORMAT_MAJOR = 1
FORMAT_MINOR = 1
ZSTD_LEVEL = 3
DIGEST_NAME = "blake2b-256"
KEY_BYTES = 32
NONE = -1
"""Integer columns use -1 for "no value" (no container, no file, no source)."""

IntColumn = npt.NDArray[np.int32]

VOCABULARIES: dict[str, tuple[str, ...]] = {
    "language": tuple(Language),
    "symbol_kind": tuple(SymbolKind),
    "edge_kind": tuple(EdgeKind),
    "confidence": tuple(Confidence),
    "provenance": tuple(Provenance),
    "file_status": tuple(FileStatus),
}
"""Written into every blob, so a reader maps codes by the writer's vocabulary, not its own."""


def pack_ints(values: Any) -> bytes:
    return np.fromiter(values, dtype="<i4").tobytes()


def unpack_ints(data: bytes) -> IntColumn:
    """A read-only little-endian int32 view over the bytes: no copy, whatever the host's byte order."""
    if len(data) % 4:
        raise ValueError(f"an int32 column of {len(data)} bytes is not a whole number of values")
    return np.frombuffer(data, dtype="<i4")


_BASE32_AS_DIGITS = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", "0123456789abcdefghijklmnopqrstuv")


def _key_bytes(key: str) -> bytes:
    """52 base32 characters carry 256 bits and 4 zero bits of padding; int() decodes them in C."""
    return (int(key.translate(_BASE32_AS_DIGITS), 32) >> 4).to_bytes(KEY_BYTES, "big")


def _key_text(raw: bytes) -> str:
    return base64.b32encode(raw).decode("ascii").rstrip("=")


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


def encode(generation: Generation) -> bytes:
    """Bytes for a generation: deterministic for equal input (the payload digest is stable)."""
    payload = cbor2.dumps(_columns(generation))
    envelope = {
        "format": FORMAT_NAME,
        "format_version": [FORMAT_MAJOR, FORMAT_MINOR],
        "digest_algorithm": DIGEST_NAME,
        "digest": hashlib.blake2b(payload, digest_size=32).digest(),
        "payload": payload,
    }
    return zstandard.ZstdCompressor(level=ZSTD_LEVEL).compress(cbor2.dumps(envelope))


def _columns(g: Generation) -> dict[str, Any]:
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
    h = g.header
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
        },
        "vocabularies": {name: list(values) for name, values in VOCABULARIES.items()},
        "files": {
            "path": pack_ints(s(f.path) for f in files),
            "language": pack_ints(lang[f.language] for f in files),
            "digest": pack_ints(s(f.digest) for f in files),
            "size": pack_ints(f.size for f in files),
            "status": pack_ints(fstat[f.status] for f in files),
        },
        "packages": {
            "id": pack_ints(s(p.id) for p in packages),
            "language": pack_ints(lang[p.language] for p in packages),
            "name": pack_ints(s(p.name) for p in packages),
            "root": pack_ints(s(p.root) for p in packages),
            "manifest": pack_ints(s(p.manifest) for p in packages),
            "version": pack_ints(s(p.version) for p in packages),
            "distribution": pack_ints(s(p.distribution) for p in packages),
        },
        "symbols": {
            "key": b"".join(_key_bytes(x.key) for x in symbols),
            "name": pack_ints(s(x.name) for x in symbols),
            "qualified_name": pack_ints(s(x.qualified_name) for x in symbols),
            "kind": pack_ints(kind[x.kind] for x in symbols),
            "language": pack_ints(lang[x.language] for x in symbols),
            "file": pack_ints(fidx(x.file) for x in symbols),
            "start_line": pack_ints(x.start_line for x in symbols),
            "end_line": pack_ints(x.end_line for x in symbols),
            "name_line": pack_ints(x.name_line for x in symbols),
            "name_column": pack_ints(x.name_column for x in symbols),
            "signature": pack_ints(s(x.signature) for x in symbols),
            "exported": pack_ints(int(x.exported) for x in symbols),
            "container": pack_ints(sym(x.container) for x in symbols),
            "package": pack_ints(package_index[x.package] if x.package else NONE for x in symbols),
            "doc": pack_ints(s(x.doc) for x in symbols),
        },
        "edges": edge_columns,
        "external_references": {
            "source": pack_ints(sym(x.source) for x in externals),
            "language": pack_ints(lang[x.language] for x in externals),
            "package": pack_ints(s(x.package) for x in externals),
            "symbol": pack_ints(s(x.symbol) for x in externals),
            "file": pack_ints(fidx(x.file) for x in externals),
            "line": pack_ints(x.line for x in externals),
            "manager": pack_ints(s(x.manager) for x in externals),
            "version": pack_ints(s(x.version) for x in externals),
            "provenance": pack_ints(prov[x.provenance] for x in externals),
        },
        "unresolved": {
            "reason": pack_ints(s(u.reason) for u in unresolved),
            "language": pack_ints(lang[u.language] for u in unresolved),
            "file": pack_ints(fidx(u.file) for u in unresolved),
            "line": pack_ints(u.line for u in unresolved),
            "requested_package": pack_ints(s(u.requested_package) for u in unresolved),
            "requested_symbol": pack_ints(s(u.requested_symbol) for u in unresolved),
            "source": pack_ints(sym(u.source) for u in unresolved),
            "detail": pack_ints(s(u.detail) for u in unresolved),
        },
        "invisible_scopes": {
            "reason": pack_ints(s(v.reason) for v in scopes),
            "language": pack_ints(lang[v.language] for v in scopes),
            "scope": pack_ints(s(v.scope) for v in scopes),
            "path": pack_ints(s(v.path) for v in scopes),
            "detail": pack_ints(s(v.detail) for v in scopes),
        },
        # Last, so every column above has already added its strings.
        "strings": s.table,
    }


EDGE_COLUMNS = ("source", "target", "kind", "confidence", "provenance", "file", "line")


def _edge_columns(
    edges: tuple[Edge, ...],
    symbol_index: dict[str, int],
    file_index: dict[str, int],
    ekind: dict[str, int],
    conf: dict[str, int],
    prov: dict[str, int],
) -> dict[str, bytes]:
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
    return {name: table[i][order].tobytes() for i, name in enumerate(EDGE_COLUMNS)}


@dataclass(frozen=True, slots=True)
class Columns:
    """A decoded generation before rows are built: what the query layer loads."""

    header: GenerationHeader
    strings: list[str]
    vocabularies: dict[str, list[str]]
    tables: dict[str, dict[str, IntColumn]]
    symbol_keys: bytes
    format_version: tuple[int, int] = (FORMAT_MAJOR, FORMAT_MINOR)
    """The storage format the blob was written in."""

    def count(self, table: str) -> int:
        columns = self.tables[table]
        return len(next(iter(columns.values()))) if columns else 0

    def key(self, index: int) -> str:
        return _key_text(self.symbol_keys[index * KEY_BYTES : (index + 1) * KEY_BYTES])


def read_envelope(blob: bytes, where: str = "generation") -> tuple[tuple[int, int], bytes]:
    """Decompress, check the format and the digest; return (version, payload bytes)."""
    try:
        raw = zstandard.ZstdDecompressor().decompress(blob, max_output_size=1 << 31)
    except zstandard.ZstdError as err:
        raise CorruptGenerationError(where, f"the zstd frame is damaged or truncated ({err})") from err
    try:
        loaded: object = cbor2.loads(raw)
    except (cbor2.CBORDecodeError, ValueError, TypeError, EOFError) as err:
        raise CorruptGenerationError(where, f"the envelope is not valid CBOR ({err})") from err
    if not isinstance(loaded, dict):
        raise CorruptGenerationError(where, "it is not a kivgraph generation (no format marker)")
    envelope = cast("dict[object, object]", loaded)
    if envelope.get("format") != FORMAT_NAME:
        raise CorruptGenerationError(where, "it is not a kivgraph generation (no format marker)")
    version = envelope.get("format_version")
    if not (isinstance(version, list) and len(cast("list[object]", version)) == 2):
        raise CorruptGenerationError(where, "its format_version is missing or malformed")
    major, minor = cast("list[object]", version)
    if not (isinstance(major, int) and isinstance(minor, int)):
        raise CorruptGenerationError(where, "its format_version is missing or malformed")
    if major != FORMAT_MAJOR:
        raise UnsupportedFormatError(where, major, minor, FORMAT_MAJOR)
    payload, digest = envelope.get("payload"), envelope.get("digest")
    if not isinstance(payload, bytes) or not isinstance(digest, bytes):
        raise CorruptGenerationError(where, "its payload or digest is missing")
    if hashlib.blake2b(payload, digest_size=32).digest() != digest:
        raise CorruptGenerationError(where, "its payload does not match its digest")
    return (major, minor), payload


def decode_columns(blob: bytes, where: str = "generation") -> Columns:
    version, payload = read_envelope(blob, where)
    try:
        body = cbor2.loads(payload)
        h = body["header"]
        header = GenerationHeader(
            repository=h["repository"],
            commit=h["commit"],
            tree=h["tree"],
            indexer_version=h["indexer_version"],
            created_at=h["created_at"],
            remote_url=h["remote_url"],
            languages=tuple(Language(x) for x in h["languages"]),
            analyzers=tuple((a, v) for a, v in h["analyzers"]),
            worktree=bool(h["worktree"]),
        )
        tables: dict[str, dict[str, IntColumn]] = {}
        for table in ("files", "packages", "symbols", "edges", "external_references", "unresolved", "invisible_scopes"):
            tables[table] = {
                name: unpack_ints(data)
                for name, data in body[table].items()
                if not (table == "symbols" and name == "key")
            }
        columns = Columns(header, body["strings"], body["vocabularies"], tables, body["symbols"]["key"], version)
    except (KeyError, TypeError, ValueError, cbor2.CBORDecodeError) as err:
        raise CorruptGenerationError(where, f"its payload is incomplete ({err!r})") from err
    _check_shape(columns, where)
    return columns


def _check_shape(c: Columns, where: str) -> None:
    """Every column of a table has one length and every index points inside its table."""
    for table, columns in c.tables.items():
        lengths = {len(col) for col in columns.values()}
        if len(lengths) > 1:
            raise CorruptGenerationError(where, f"the columns of {table} have different lengths")
    n_symbols = c.count("symbols")
    if len(c.symbol_keys) != n_symbols * KEY_BYTES:
        raise CorruptGenerationError(where, "the symbol key column does not match the symbol count")
    limits = {
        "strings": len(c.strings),
        "symbols": n_symbols,
        "files": c.count("files"),
        "packages": c.count("packages"),
    }
    pointers = {
        "symbols": {"file": "files", "container": "symbols", "package": "packages"},
        "edges": {"source": "symbols", "target": "symbols", "file": "files"},
        "external_references": {"source": "symbols", "file": "files"},
        "unresolved": {"source": "symbols", "file": "files"},
    }
    for table, fields in pointers.items():
        for name, target in fields.items():
            column = c.tables[table][name]
            if len(column) and (int(column.min()) < NONE or int(column.max()) >= limits[target]):
                raise CorruptGenerationError(where, f"{table}.{name} points outside {target}")


def decode(blob: bytes, where: str = "generation") -> Generation:
    """The whole generation as model rows (tests, `show --json`, merges); loads use decode_columns."""
    c = decode_columns(blob, where)
    try:
        return _rows(c)
    except (IndexError, ValueError) as err:
        raise CorruptGenerationError(where, f"a column holds a value outside its vocabulary ({err})") from err


def _int_list(column: IntColumn) -> list[int]:
    values: list[int] = column.tolist()
    return values


def _rows(c: Columns) -> Generation:
    st = c.strings
    voc = c.vocabularies
    langs = [Language(x) for x in voc["language"]]
    kinds = [SymbolKind(x) for x in voc["symbol_kind"]]
    ekinds = [EdgeKind(x) for x in voc["edge_kind"]]
    confs = [Confidence(x) for x in voc["confidence"]]
    provs = [Provenance(x) for x in voc["provenance"]]
    fstats = [FileStatus(x) for x in voc["file_status"]]
    t: dict[str, dict[str, list[int]]] = {
        table: {name: _int_list(col) for name, col in cols.items()} for table, cols in c.tables.items()
    }
    f = t["files"]
    files = tuple(
        FileRecord(st[p], langs[lg], st[d], sz, fstats[stt])
        for p, lg, d, sz, stt in zip(f["path"], f["language"], f["digest"], f["size"], f["status"], strict=True)
    )
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
    keys = [c.key(i) for i in range(c.count("symbols"))]

    def key(i: int) -> str | None:
        return None if i == NONE else keys[i]

    def path(i: int) -> str:
        return "" if i == NONE else paths[i]

    s = t["symbols"]
    symbols = tuple(
        Symbol(
            key=keys[i],
            name=st[s["name"][i]],
            qualified_name=st[s["qualified_name"][i]],
            kind=kinds[s["kind"][i]],
            language=langs[s["language"][i]],
            file=path(s["file"][i]),
            start_line=s["start_line"][i],
            end_line=s["end_line"][i],
            name_line=s["name_line"][i],
            name_column=s["name_column"][i],
            signature=st[s["signature"][i]],
            exported=bool(s["exported"][i]),
            container=key(s["container"][i]),
            package="" if s["package"][i] == NONE else packages[s["package"][i]].id,
            doc=st[s["doc"][i]],
        )
        for i in range(len(keys))
    )
    e = t["edges"]
    source, target, kind, confidence, provenance, file, line = (e[name] for name in EDGE_COLUMNS)
    edges = tuple(
        Edge(keys[source[i]], keys[target[i]], ekinds[kind[i]], confs[confidence[i]], provs[provenance[i]],
             path(file[i]), line[i])
        for i in range(len(source))
    )  # fmt: skip
    x = t["external_references"]
    externals = tuple(
        ExternalReference(
            keys[x["source"][i]],
            langs[x["language"][i]],
            st[x["package"][i]],
            st[x["symbol"][i]],
            path(x["file"][i]),
            x["line"][i],
            st[x["manager"][i]],
            st[x["version"][i]],
            provs[x["provenance"][i]],
        )
        for i in range(len(x["source"]))
    )
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
    v = t["invisible_scopes"]
    scopes = tuple(
        InvisibleScope(
            st[v["reason"][i]], langs[v["language"][i]], st[v["scope"][i]], st[v["path"][i]], st[v["detail"][i]]
        )
        for i in range(len(v["reason"]))
    )
    return Generation(c.header, files, packages, symbols, edges, externals, unresolved, scopes)


def created_at(blob: bytes, where: str = "generation") -> str:
    """The header's creation time, for "newest generation wins" merges."""
    _, payload = read_envelope(blob, where)
    try:
        value = cbor2.loads(payload)["header"]["created_at"]
    except (KeyError, TypeError, ValueError, cbor2.CBORDecodeError) as err:
        raise CorruptGenerationError(where, f"its header is incomplete ({err!r})") from err
    if not isinstance(value, str):
        raise CorruptGenerationError(where, "its created_at is not text")
    return value
