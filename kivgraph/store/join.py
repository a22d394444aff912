"""Joining generations column by column: the columns of one generation made of the rows that some
pieces give (each the rows of some of its files), without building a row object per edge.

Reuse across commits and shard merges compose this way (kivgraph/compose.py). The result is what
`codec.columns_of` makes of the generation holding those rows, so it encodes to the same bytes.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from kivgraph.model import Edge, ExternalReference, GenerationHeader, InvisibleScope, Language, Unresolved
from kivgraph.store.codec import (
    KEY_BYTES,
    NONE,
    SCHEMA,
    VOCABULARIES,
    Columns,
    int_list,
    key_bytes,
    keys_text,
)

Ints = npt.NDArray[np.int64]
"""Numbers while joining (the result's columns are int32, as the codec's)."""
MISSING = -2
"""A piece's row (of a file, symbol or package) that no piece gives."""


class JoinError(ValueError):
    """The pieces do not make one generation; the message says where."""


@dataclass(frozen=True, slots=True)
class Piece:
    columns: Columns
    files: frozenset[str]
    """The files whose rows it gives (a file given by two pieces is refused)."""
    fileless: bool = False
    """Whether it gives the rows of no file (a symbol or edge with no file)."""
    edges: Sequence[Edge] = ()
    """Rows to add to those of its files (an edge already there is not added twice)."""
    unresolved: Sequence[Unresolved] = ()
    external_references: Sequence[ExternalReference] = ()


def join(header: GenerationHeader, pieces: Sequence[Piece], scopes: Sequence[InvisibleScope]) -> Columns:
    """The columns of the generation whose rows are those the pieces give (the `invisible_scopes`
    given as rows), under `header` with the languages of its files."""
    n = _Numbering(pieces)
    count = range(len(pieces))

    # Files, by path. A file's rows all come from the piece that gives it.
    paths = [[p.columns.strings[x] for x in int_list(p.columns.tables["files"]["path"])] for p in pieces]
    given_at: dict[str, int] = {}
    for i, piece in enumerate(pieces):
        for path in paths[i]:
            if path in piece.files:
                if path in given_at:
                    raise JoinError(f"{path} is given by two pieces")
                given_at[path] = i
    new_file = {path: f for f, path in enumerate(sorted(given_at))}
    n.rows["files"] = [_with_none([new_file[x] if given_at.get(x) == i else MISSING for x in paths[i]]) for i in count]
    gives = [m != MISSING for m in n.rows["files"]]
    for i, piece in enumerate(pieces):
        gives[i][-1] = piece.fileless

    def rows_of(i: int, table: str) -> np.ndarray:
        """The rows of `table` piece i gives: those of its files (and of no file, when it gives those)."""
        return np.flatnonzero(gives[i][pieces[i].columns.tables[table]["file"]])

    file_rows = [np.flatnonzero(g[:-1]) for g in gives]
    placed = np.concatenate([n.rows["files"][i][file_rows[i]] for i in count])
    tables: dict[str, dict[str, Ints]] = {"files": _ordered(n.take("files", file_rows), np.argsort(placed))}

    # Symbols by file; within a file as its piece has them (sorted by the rest of the codec's key).
    symbol_rows = [rows_of(i, "symbols") for i in count]
    symbol_order = np.argsort(n.take("symbols", symbol_rows, ("file",))["file"], kind="stable")
    raw_keys = [np.frombuffer(p.columns.symbol_keys, dtype=np.uint8).reshape(-1, KEY_BYTES) for p in pieces]
    keys = np.concatenate([raw_keys[i][symbol_rows[i]] for i in count])[symbol_order].tobytes()
    new_symbol = {keys[k * KEY_BYTES : (k + 1) * KEY_BYTES]: k for k in range(len(keys) // KEY_BYTES)}
    if len(new_symbol) * KEY_BYTES != len(keys):
        raise JoinError("two symbols share a stable key")
    n.rows["symbols"] = [_with_none([new_symbol.get(k.tobytes(), MISSING) for k in raw_keys[i]]) for i in count]

    # Packages: those the symbols are in; of two records of one id, the one of its last file.
    ids = [[p.columns.strings[x] for x in int_list(p.columns.tables["packages"]["id"])] for p in pieces]
    last: dict[str, tuple[int, int, int]] = {}  # id → (its last file, the piece, the row there)
    for i, piece in enumerate(pieces):
        symbols = piece.columns.tables["symbols"]
        files = n.rows["files"][i][symbols["file"][symbol_rows[i]]].tolist()
        for package, file in zip(symbols["package"][symbol_rows[i]].tolist(), files, strict=True):
            if package != NONE and (ids[i][package] not in last or file > last[ids[i][package]][0]):
                last[ids[i][package]] = (file, i, package)
    new_package = {package: k for k, package in enumerate(sorted(last))}
    n.rows["packages"] = [_with_none([new_package.get(x, MISSING) for x in ids[i]]) for i in count]
    package_rows = [np.array(sorted(r for _, j, r in last.values() if j == i), dtype=np.int64) for i in count]
    placed = np.concatenate([n.rows["packages"][i][package_rows[i]] for i in count])
    tables["packages"] = _ordered(n.take("packages", package_rows), np.argsort(placed))
    tables["symbols"] = _ordered(n.take("symbols", symbol_rows), symbol_order)

    edges = n.take("edges", [rows_of(i, "edges") for i in count])
    tables["edges"] = _with_edges(edges, [e for p in pieces for e in p.edges], new_symbol, new_file)
    externals = n.take("external_references", [rows_of(i, "external_references") for i in count])
    tables["external_references"] = _with_externals(externals, [x for p in pieces for x in p.external_references],
                                                     n, keys, new_symbol, new_file)  # fmt: skip
    unresolved = n.take("unresolved", [rows_of(i, "unresolved") for i in count])
    added = [u for p in pieces for u in p.unresolved]
    tables["unresolved"] = _with_unresolved(unresolved, added, n, keys, new_symbol, new_file)
    tables["invisible_scopes"] = _scopes(scopes, n)

    table = list(n.strings)
    kept, renumber = _numbered(tables, len(table))
    for name, specs in SCHEMA.items():
        for column, spec in specs.items():
            if spec.kind == "string":
                tables[name][column] = renumber[tables[name][column]]
    languages = {Language(VOCABULARIES["language"][x]) for x in tables["files"]["language"].tolist()}
    result = {name: {column: tables[name][column].astype(np.int32) for column in SCHEMA[name]} for name in SCHEMA}
    return Columns(replace(header, languages=tuple(sorted(languages))), [table[x] for x in kept.tolist()],
                   {name: list(values) for name, values in VOCABULARIES.items()}, result, keys)  # fmt: skip


class _Numbering:
    """The pieces' numbers in the joined generation's: strings (one table for every piece, until the
    result's own is numbered), vocabulary codes, and the rows of files, symbols and packages (each
    piece's row → the joined row, MISSING when no piece gives it; set as each table is joined)."""

    def __init__(self, pieces: Sequence[Piece]) -> None:
        self.pieces = pieces
        self.strings: dict[str, int] = {"": 0}
        self.local_strings = [self._numbers(p.columns.strings) for p in pieces]
        self.codes = [_codes(p.columns) for p in pieces]
        self.rows: dict[str, list[Ints]] = {}

    def _numbers(self, strings: Sequence[str]) -> Ints:
        index = self.strings
        return np.array([index.setdefault(text, len(index)) for text in strings], dtype=np.int64)

    def number(self, text: str) -> int:
        return self.strings.setdefault(text, len(self.strings))

    def take(self, table: str, rows: Sequence[np.ndarray], only: Sequence[str] = ()) -> dict[str, Ints]:
        """The rows of `table` taken from each piece in turn, every column in the joined numbering."""
        taken: dict[str, Ints] = {}
        for name, spec in SCHEMA[table].items():
            if only and name not in only:
                continue
            parts = [np.zeros(0, np.int64)]
            for i, piece in enumerate(self.pieces):
                stored = piece.columns.tables[table].get(name)
                if stored is None:  # a column a minor version added; every piece is of this kivgraph
                    raise JoinError(f"a piece has no column {table}.{name}: an older kivgraph wrote it")
                column = stored[rows[i]].astype(np.int64)
                if spec.kind == "string":
                    column = self.local_strings[i][column]
                elif spec.kind == "vocabulary":
                    column = self.codes[i][spec.target][column]
                elif spec.kind == "row":
                    column = self.rows[spec.target][i][column]
                parts.append(column)
            taken[name] = np.concatenate(parts)
            if spec.kind == "row" and (taken[name] == MISSING).any():
                raise JoinError(f"a row of {table} points at a row of {spec.target} ({name}) no piece gives")
        return taken


def _with_none(values: Sequence[int]) -> Ints:
    """The values with one more slot at the end, so that indexing them with NONE (-1) reads NONE."""
    return np.array([*values, NONE], dtype=np.int64)


def _codes(c: Columns) -> dict[str, Ints]:
    """Each vocabulary's codes in a piece → this kivgraph's codes."""
    codes: dict[str, Ints] = {}
    for name, ours in VOCABULARIES.items():
        code = {value: i for i, value in enumerate(ours)}
        unknown = [value for value in c.vocabularies[name] if value not in code]
        if unknown:
            raise JoinError(f"a piece's {name} {unknown[0]!r} is not this kivgraph's: another kivgraph wrote it")
        codes[name] = np.array([code[value] for value in c.vocabularies[name]], dtype=np.int64)
    return codes


def _ordered(columns: dict[str, Ints], order: np.ndarray) -> dict[str, Ints]:
    return {name: column[order] for name, column in columns.items()}


def _with_edges(edges: dict[str, Ints], added: Sequence[Edge], new_symbol: dict[bytes, int],
                new_file: dict[str, int]) -> dict[str, Ints]:  # fmt: skip
    """The edges with those added that are not already there (one per source, target, kind and
    line, as the resolver writes them), sorted as the codec sorts them."""
    if added:
        code = {name: {value: i for i, value in enumerate(values)} for name, values in VOCABULARIES.items()}
        files = np.array(sorted({new_file[e.file] for e in added if e.file}), dtype=np.int64)
        near = np.flatnonzero(np.isin(edges["file"], files))
        seen = set(zip(*(edges[name][near].tolist() for name in ("source", "target", "kind", "line")), strict=True))
        extra: list[tuple[int, ...]] = []
        for e in added:
            source, target = new_symbol.get(key_bytes(e.source)), new_symbol.get(key_bytes(e.target))
            if source is None or target is None:
                raise JoinError(f"an edge added in {e.file} ends at a symbol in no piece's files")
            kind = code["edge_kind"][e.kind]
            if (source, target, kind, e.line) not in seen:
                seen.add((source, target, kind, e.line))
                extra.append((source, target, kind, code["confidence"][e.confidence], code["provenance"][e.provenance],
                              new_file[e.file] if e.file else NONE, e.line))  # fmt: skip
        for k, name in enumerate(SCHEMA["edges"]):
            edges[name] = np.concatenate([edges[name], np.array([row[k] for row in extra], dtype=np.int64)])
    return _ordered(edges, np.lexsort([edges[name] for name in reversed(SCHEMA["edges"])]))  # last key is first


def _with_externals(found: dict[str, Ints], added: Sequence[ExternalReference], n: "_Numbering", keys: bytes,
                    new_symbol: dict[bytes, int], new_file: dict[str, int]) -> dict[str, Ints]:  # fmt: skip
    """The external references with those added, sorted as the codec sorts them: by file, then (when
    some are added) by line, package, symbol, source, manager and version, ties kept in order."""
    if not added:
        return _ordered(found, np.argsort(found["file"], kind="stable"))
    names = tuple(SCHEMA["external_references"])
    code = {name: {value: i for i, value in enumerate(values)} for name, values in VOCABULARIES.items()}
    rows: list[tuple[int, ...]] = []
    for x in added:
        source = new_symbol.get(key_bytes(x.source))
        if source is None:
            raise JoinError(f"an external reference added in {x.file} has a source in no piece's files")
        row = {"source": source, "language": code["language"][x.language], "package": n.number(x.package),
               "symbol": n.number(x.symbol), "file": new_file[x.file] if x.file else NONE, "line": x.line,
               "manager": n.number(x.manager), "version": n.number(x.version),
               "provenance": code["provenance"][x.provenance], "kind": code["edge_kind"][x.kind]}  # fmt: skip
        rows.append(tuple(row[name] for name in names))
    extra = np.array(rows, dtype=np.int64).reshape(len(rows), len(names))
    table = {name: np.concatenate([found[name], extra[:, k]]) for k, name in enumerate(names)}
    strings, paths = list(n.strings), sorted(new_file)
    text, key = strings.__getitem__, _key_texts(keys, table["source"].tolist()).__getitem__
    return _sorted_by_text(table, [("file", lambda i: "" if i == NONE else paths[i]), ("line", None),
                                   ("package", text), ("symbol", text), ("source", key), ("manager", text),
                                   ("version", text)])  # fmt: skip


def _sorted_by_text(table: dict[str, Ints], by: Sequence[tuple[str, Callable[[int], str] | None]]) -> dict[str, Ints]:
    """The rows sorted by the texts of the columns `by` names in turn (a column without a text
    function by its number), ties kept in their order: what sorting the rows' texts does, with each
    text sorted once however many rows name it."""
    columns = [table[name] if text is None else _ranks(table[name], text) for name, text in by]
    return _ordered(table, np.lexsort(columns[::-1]))  # lexsort's last key is the first, and it is stable


def _ranks(ids: Ints, text: Callable[[int], str]) -> Ints:
    """Each id's place among the texts of the ids present (equal texts, one place), so that sorting
    by it sorts by text."""
    used = np.unique(ids)
    texts = [text(i) for i in used.tolist()]
    order = sorted(range(len(texts)), key=texts.__getitem__)
    place = np.empty(len(texts), dtype=np.int64)
    for at, k in enumerate(order):
        place[k] = at if at == 0 or texts[k] != texts[order[at - 1]] else place[order[at - 1]]
    return place[np.searchsorted(used, ids)]


def _with_unresolved(found: dict[str, Ints], added: Sequence[Unresolved], n: _Numbering, keys: bytes,
                     new_symbol: dict[bytes, int], new_file: dict[str, int]) -> dict[str, Ints]:  # fmt: skip
    """The unresolved records with those added, sorted as the codec sorts them (by their text)."""
    names = tuple(SCHEMA["unresolved"])
    languages = {value: i for i, value in enumerate(VOCABULARIES["language"])}
    number = n.number
    rows: list[tuple[int, ...]] = []
    for u in added:
        source = NONE if u.source is None else new_symbol.get(key_bytes(u.source), MISSING)
        if source == MISSING:
            raise JoinError(f"an unresolved record added in {u.file} has a source in no piece's files")
        rows.append((number(u.reason), languages[u.language], new_file[u.file] if u.file else NONE, u.line,
                     number(u.requested_package), number(u.requested_symbol), source, number(u.detail)))  # fmt: skip
    extra = np.array(rows, dtype=np.int64).reshape(len(rows), len(names))
    table = {name: np.concatenate([found[name], extra[:, k]]) for k, name in enumerate(names)}
    strings, paths = list(n.strings), sorted(new_file)
    text, key = strings.__getitem__, _key_texts(keys, table["source"].tolist()).__getitem__
    return _sorted_by_text(table, [("file", lambda i: "" if i == NONE else paths[i]), ("line", None),
                                   ("reason", text), ("requested_package", text), ("requested_symbol", text),
                                   ("source", key), ("detail", text)])  # fmt: skip


def _key_texts(keys: bytes, sources: Sequence[int]) -> dict[int, str]:
    """Each source row's key as text ("" for NONE), to sort by as the codec does; the keys are
    encoded together, in numpy, and only those used."""
    used = sorted(set(sources) - {NONE})
    raw = np.frombuffer(keys, dtype=np.uint8).reshape(-1, KEY_BYTES)[used].tobytes()
    return {NONE: "", **dict(zip(used, keys_text(raw, len(used)), strict=True))}


def _scopes(scopes: Sequence[InvisibleScope], n: _Numbering) -> dict[str, Ints]:
    languages = {value: i for i, value in enumerate(VOCABULARIES["language"])}
    ordered = sorted(scopes, key=lambda v: (v.path, v.scope, v.reason, v.detail))

    def numbers(texts: Sequence[str]) -> Ints:
        return np.array([n.number(t) for t in texts], dtype=np.int64)

    return {
        "reason": numbers([v.reason for v in ordered]),
        "language": np.array([languages[v.language] for v in ordered], dtype=np.int64),
        "scope": numbers([v.scope for v in ordered]),
        "path": numbers([v.path for v in ordered]),
        "detail": numbers([v.detail for v in ordered]),
    }


def _numbered(tables: dict[str, dict[str, Ints]], count: int) -> tuple[Ints, Ints]:
    """(the joined strings used, in the order the codec numbers them: by first use, column by column
    in the payload's order; each joined string's number in that order)."""
    used = [np.zeros(1, np.int64)]  # the empty string is always first
    used += [tables[t][name] for t, specs in SCHEMA.items() for name, spec in specs.items() if spec.kind == "string"]
    values, first = np.unique(np.concatenate(used), return_index=True)
    kept = values[np.argsort(first, kind="stable")]
    renumber = np.full(count, NONE, dtype=np.int64)
    renumber[kept] = np.arange(len(kept))
    return kept, renumber
