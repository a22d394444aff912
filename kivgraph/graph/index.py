"""The loaded graph: every repository's generation merged under integer ids, with CSR adjacency in
both directions and the name, qualified-name and path indexes every query starts from."""

import base64
import binascii
import hashlib
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property
from typing import TypeVar

import numpy as np
import numpy.typing as npt

from kivgraph.errors import InvalidArgumentError
from kivgraph.graph.link import PackageDependency, link
from kivgraph.graph.load import LoadedRepository
from kivgraph.model import Confidence, EdgeKind, FileRole, FileStatus, Language, Provenance, SymbolKind, last_name
from kivgraph.store.codec import KEY_BYTES, NONE, read_role, roles_of

IntArray = npt.NDArray[np.int32]
EDGE_KINDS = list(EdgeKind)
CONFIDENCES = list(Confidence)
PROVENANCES = list(Provenance)
SYMBOL_KINDS = list(SymbolKind)
LANGUAGES = list(Language)
ROLES = list(FileRole)
TEST_ROLE = ROLES.index(FileRole.TEST)
# The codes' names as plain strings: an enum's `.value` costs a descriptor call on every row.
EDGE_KIND_NAMES = [x.value for x in EDGE_KINDS]
CONFIDENCE_NAMES = [x.value for x in CONFIDENCES]
PROVENANCE_NAMES = [x.value for x in PROVENANCES]
SYMBOL_KIND_NAMES = [x.value for x in SYMBOL_KINDS]
ROLE_VALUES = [x.value for x in ROLES]
KEY_TEXT_LENGTH = 52
"""A stable key's text: 256 bits in unpadded base32."""
REFERENCE_KINDS = frozenset(k for k in EdgeKind if k not in (EdgeKind.CONTAINS, EdgeKind.METHOD_OF))
"""Edge kinds that are uses; containment is structure and never a row of a reference query. UNKNOWN (a
kind only a newer writer knows) is one: it may be a use, and a use is never dropped."""
UNKNOWN_LANGUAGE = "UNKNOWN_LANGUAGE"
LANGUAGE_NAMES = frozenset(x.value for x in Language)
"""The invisible-scope reason charged for a language only a newer writer knows (its name is kept)."""
E = TypeVar("E", bound=StrEnum)


def vocabulary_codes(members: list[E], names: list[str], unknown: E) -> npt.NDArray[np.int32]:
    """This reader's code of each name in a blob's vocabulary (the writer's): a name only a newer
    writer knows reads as `unknown` instead of failing the load."""
    index = {str(member): code for code, member in enumerate(members)}
    return np.array([index.get(name, index[str(unknown)]) for name in names], dtype=np.int32)


def known_names(members: list[E], names: list[str], unknown: E) -> list[str]:
    """The same, as the names rows carry."""
    return [str(members[code]) for code in ints(vocabulary_codes(members, names, unknown))]


@dataclass(frozen=True, slots=True)
class FileInfo:
    repository: int
    path: str
    language: str
    digest: str
    status: str
    role: str = FileRole.SOURCE.value


@dataclass(frozen=True, slots=True)
class PackageInfo:
    repository: int
    id: str
    name: str
    language: str
    root: str
    distribution: str = ""
    """Python: the distribution the import package ships in ("" elsewhere, or before format 1.1)."""

    @property
    def label(self) -> str:
        """The name a reader knows it by: a Go package's import path, else the manifest name."""
        return self.name.rpartition(" ")[2] if self.language == "go" else self.name


@dataclass(frozen=True, slots=True)
class UnresolvedInfo:
    repository: int
    reason: str
    language: str
    file: str
    line: int
    requested_package: str
    requested_symbol: str
    source: int
    detail: str


@dataclass(frozen=True, slots=True)
class ScopeInfo:
    repository: int
    reason: str
    language: str
    scope: str
    path: str
    detail: str


@dataclass(frozen=True, slots=True)
class ExternalInfo:
    repository: int
    source: int
    language: str
    package: str
    symbol: str
    file: str
    line: int
    manager: str
    version: str
    provenance: str
    """The analysis that saw the use: a SCIP indexer (a type-checked use) or the syntax layer."""
    kind: int
    """The relation at the site, an index into EDGE_KINDS: the edge it becomes once linked."""


class ExternalTable:
    """One repository's references to symbols outside it, as stored: columns, read into ExternalInfo
    rows only where linking needs one (a repository names thousands; most stay third-party)."""

    def __init__(
        self,
        repository: int,
        symbol_base: int,
        columns: dict[str, IntArray],
        strings: list[str],
        languages: list[str],
        file_paths: list[str],
        provenances: list[str],
        site_kinds: list[int],
    ) -> None:
        self.repository, self.symbol_base, self.columns = repository, symbol_base, columns
        self.strings, self.languages, self.file_paths = strings, languages, file_paths
        self.provenances, self.site_kinds = provenances, site_kinds

    def __len__(self) -> int:
        return len(self.columns["source"])

    def row(self, i: int) -> ExternalInfo:
        c, st = self.columns, self.strings
        file = int(c["file"][i])
        path = "" if file == NONE else self.file_paths[file]
        kind = self.site_kinds[int(c["kind"][i])] if "kind" in c else EDGE_KINDS.index(EdgeKind.REFERENCES)
        return ExternalInfo(self.repository, int(c["source"][i]) + self.symbol_base,
                            self.languages[int(c["language"][i])], st[int(c["package"][i])], st[int(c["symbol"][i])],
                            path, int(c["line"][i]), st[int(c["manager"][i])], st[int(c["version"][i])],
                            self.provenances[int(c["provenance"][i])], kind)  # fmt: skip

    def distinct(self) -> tuple[list[int], IntArray]:
        """(the first row of each distinct reference, each row's index into that list): a reference
        is its language, provenance, package and symbol; the rows naming it differ in site only."""
        if not len(self):
            return [], np.zeros(0, np.int32)
        keys = [self.columns[name] for name in ("symbol", "package", "provenance", "language")]
        order = np.lexsort(keys)  # stable: each run of one reference starts at its first row
        repeats = np.zeros(len(order), dtype=np.bool_)
        repeats[1:] = True
        for column in keys:
            ordered = column[order]
            repeats[1:] &= ordered[1:] == ordered[:-1]
        starts = ~repeats
        inverse = np.empty(len(order), dtype=np.int32)
        inverse[order] = np.cumsum(starts) - 1
        return ints(order[starts]), inverse


def ints(column: npt.NDArray[np.int32] | npt.NDArray[np.int64]) -> list[int]:
    """A column as Python ints (numpy's tolist is untyped)."""
    values: list[int] = column.tolist()
    return values


def symbol_roles(symbols: dict[str, IntArray], strings: list[str], file_roles: list[int]) -> IntArray:
    """Role codes per symbol: as stored (format 1.4), else the role of the symbol's file."""
    if "role" in symbols:
        stored, inverse = np.unique(symbols["role"], return_inverse=True)
        codes = np.array([ROLES.index(read_role(strings[int(x)])) for x in stored], dtype=np.int32)
        return codes[inverse].astype(np.int32) if len(stored) else np.zeros(0, np.int32)
    by_file = np.array([*file_roles, ROLES.index(FileRole.SOURCE)], dtype=np.int32)  # NONE → the last: source
    return by_file[symbols["file"]] if len(symbols["file"]) else np.zeros(0, np.int32)


def _csr(keys: IntArray, size: int) -> tuple[IntArray, IntArray]:
    """(indptr, edge ids ordered by key): the edges of node n are ids[indptr[n]:indptr[n + 1]]."""
    order = np.argsort(keys, kind="stable").astype(np.int32)
    counts = np.bincount(keys, minlength=size)
    indptr = np.zeros(size + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    return indptr.astype(np.int32), order


class Graph:
    """All loaded generations as one graph. Built once per load; queries never mutate it."""

    def __init__(self, repositories: list[LoadedRepository]) -> None:
        names = [r.name for r in repositories]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise InvalidArgumentError(f"two loaded generations are both named {duplicates[0]!r}; "
                                       "repository names must be unique in one graph.")  # fmt: skip
        self.repositories = repositories
        self.repository_index = {r.name: i for i, r in enumerate(repositories)}
        self.snapshot_id = self._snapshot_id()
        names_: list[str] = []
        qns: list[str] = []
        sigs: list[str] = []
        docs: list[str] = []
        kinds: list[IntArray] = []
        langs: list[IntArray] = []
        roles: list[IntArray] = []
        files: list[FileInfo] = []
        packages: list[PackageInfo] = []
        symbol_columns: dict[str, list[IntArray]] = defaultdict(list)
        edge_columns: dict[str, list[IntArray]] = defaultdict(list)
        self.unresolved: list[UnresolvedInfo] = []
        self.scopes: list[ScopeInfo] = []
        self.externals: list[ExternalTable] = []
        """Each repository's references to symbols outside it (graph/link.py binds them)."""
        self.symbol_offsets: list[int] = []
        self._keys: dict[int, str] = {}
        self.language_names: list[str] = [x.value for x in LANGUAGES]
        """Symbol language codes → names: this reader's languages, then any a newer writer added."""
        language_codes = {name: code for code, name in enumerate(self.language_names)}
        symbol_base = file_base = package_base = 0
        for r, loaded in enumerate(repositories):
            c = loaded.columns
            st, voc = c.strings, c.vocabularies
            lang_names = voc["language"]
            f = c.tables["files"]
            file_paths = [st[i] for i in ints(f["path"])]
            status_names = known_names(list(FileStatus), voc["file_status"], FileStatus.UNKNOWN)
            languages = [Language(x) if x in LANGUAGE_NAMES else None for x in lang_names]
            file_roles = roles_of(st, ints(f["role"]) if "role" in f else None, ints(f["path"]),
                                  [languages[x] for x in ints(f["language"])])  # fmt: skip
            files.extend(
                FileInfo(r, p, lang_names[lg], st[d], status_names[s], role.value)
                for p, lg, d, s, role in zip(file_paths, ints(f["language"]), ints(f["digest"]), ints(f["status"]),
                                             file_roles, strict=True)
            )  # fmt: skip
            p = c.tables["packages"]
            shipped_in = ints(p["distribution"]) if "distribution" in p else [0] * len(p["id"])  # format 1.1
            packages.extend(
                PackageInfo(r, st[i], st[n], lang_names[lg], st[root], st[d])
                for i, n, lg, root, d in zip(ints(p["id"]), ints(p["name"]), ints(p["language"]),
                                             ints(p["root"]), shipped_in, strict=True)
            )  # fmt: skip
            s = c.tables["symbols"]
            names_ += [st[i] for i in ints(s["name"])]
            qns += [st[i] for i in ints(s["qualified_name"])]
            sigs += [st[i] for i in ints(s["signature"])]
            docs += [st[i] for i in ints(s["doc"])]
            kind_map = vocabulary_codes(SYMBOL_KINDS, voc["symbol_kind"], SymbolKind.UNKNOWN)
            for name in lang_names:
                if name not in language_codes:  # a language only a newer writer knows keeps its name
                    language_codes[name] = len(self.language_names)
                    self.language_names.append(name)
            lang_map = np.array([language_codes[x] for x in lang_names], dtype=np.int32)
            kinds.append(kind_map[s["kind"]] if len(s["kind"]) else np.zeros(0, np.int32))
            langs.append(lang_map[s["language"]] if len(s["language"]) else np.zeros(0, np.int32))
            roles.append(symbol_roles(s, st, [ROLES.index(x) for x in file_roles]))
            count = c.count("symbols")
            self.symbol_offsets.append(symbol_base)

            def shift(column: IntArray, base: int) -> IntArray:
                return np.where(column == NONE, NONE, column + base).astype(np.int32)

            symbol_columns["file"].append(shift(s["file"], file_base))
            symbol_columns["container"].append(shift(s["container"], symbol_base))
            symbol_columns["package"].append(shift(s["package"], package_base))
            for name in ("start_line", "end_line", "exported", "name_line", "name_column"):
                symbol_columns[name].append(s[name].astype(np.int32))
            symbol_columns["repository"].append(np.full(count, r, dtype=np.int32))
            e = c.tables["edges"]
            maps = {
                "kind": vocabulary_codes(EDGE_KINDS, voc["edge_kind"], EdgeKind.UNKNOWN),
                # An unknown confidence is never promoted: it reads as the weakest that is still an edge.
                "confidence": vocabulary_codes(CONFIDENCES, voc["confidence"], Confidence.CANDIDATE),
                "provenance": vocabulary_codes(PROVENANCES, voc["provenance"], Provenance.UNKNOWN),
            }
            for name in ("kind", "confidence", "provenance"):
                edge_columns[name].append(maps[name][e[name]] if len(e[name]) else np.zeros(0, np.int32))
            edge_columns["source"].append((e["source"] + symbol_base).astype(np.int32))
            edge_columns["target"].append((e["target"] + symbol_base).astype(np.int32))
            edge_columns["file"].append(shift(e["file"], file_base))
            edge_columns["line"].append(e["line"].astype(np.int32))

            def path_of(i: int, file_paths: list[str] = file_paths) -> str:
                return "" if i == NONE else file_paths[i]

            u = {name: ints(column) for name, column in c.tables["unresolved"].items()}
            for i in range(len(u["reason"])):
                src = u["source"][i]
                self.unresolved.append(
                    UnresolvedInfo(r, st[u["reason"][i]], lang_names[u["language"][i]], path_of(u["file"][i]),
                                   u["line"][i], st[u["requested_package"][i]], st[u["requested_symbol"][i]],
                                   NONE if src == NONE else src + symbol_base, st[u["detail"][i]])
                )  # fmt: skip
            v = {name: ints(column) for name, column in c.tables["invisible_scopes"].items()}
            for i in range(len(v["reason"])):
                self.scopes.append(
                    ScopeInfo(r, st[v["reason"][i]], lang_names[v["language"][i]], st[v["scope"][i]],
                              st[v["path"][i]], st[v["detail"][i]])
                )  # fmt: skip
            for name in c.unknown_languages:
                self.scopes.append(
                    ScopeInfo(r, UNKNOWN_LANGUAGE, name, name, "", f"written by a newer kivgraph: this one does "
                              f"not know {name}, so cannot tell whether a type checker resolved its uses; upgrade it")
                )  # fmt: skip
            self.externals.append(
                ExternalTable(r, symbol_base, c.tables["external_references"], st, lang_names, file_paths,
                              known_names(PROVENANCES, voc["provenance"], Provenance.UNKNOWN),
                              ints(vocabulary_codes(EDGE_KINDS, voc["edge_kind"], EdgeKind.UNKNOWN)))
            )  # fmt: skip
            symbol_base += count
            file_base += len(file_paths)
            package_base += len(p["id"])

        def joined(columns: list[IntArray]) -> IntArray:
            return np.concatenate(columns).astype(np.int32) if columns else np.zeros(0, np.int32)

        self.size = symbol_base
        self.names: list[str] = names_
        self.qualified_names: list[str] = qns
        self.signatures: list[str] = sigs
        self.docs: list[str] = docs
        self.kind = joined(kinds)
        self.language = joined(langs)
        self.role = joined(roles)
        """Each symbol's role, as a code into ROLES (graph/roles: what answers list and count)."""
        self.files = files
        self.packages = packages
        self.file = joined(symbol_columns["file"])
        self.container = joined(symbol_columns["container"])
        self.package = joined(symbol_columns["package"])
        self.start_line = joined(symbol_columns["start_line"])
        self.end_line = joined(symbol_columns["end_line"])
        self.exported = joined(symbol_columns["exported"])
        self.name_line = joined(symbol_columns["name_line"])
        self.name_column = joined(symbol_columns["name_column"])
        self.repository = joined(symbol_columns["repository"])
        self.edge_source = joined(edge_columns["source"])
        self.edge_target = joined(edge_columns["target"])
        self.edge_kind = joined(edge_columns["kind"])
        self.edge_confidence = joined(edge_columns["confidence"])
        self.edge_provenance = joined(edge_columns["provenance"])
        self.edge_file = joined(edge_columns["file"])
        self.edge_line = joined(edge_columns["line"])
        self.dependencies: list[PackageDependency] = []
        self._link()
        self.out_ptr, self.out_edges = _csr(self.edge_source, self.size)
        self.in_ptr, self.in_edges = _csr(self.edge_target, self.size)

    def _link(self) -> None:
        """Bind external references to the loaded repositories that provide them — other ones, and a
        repository's own package where its analyzer saw an installed copy (graph/link.py)."""
        links = link(self)
        self.unresolved.extend(links.unresolved)
        self.dependencies = links.dependencies
        if not links.sources:
            return
        count = len(links.sources)
        files = [self.file_ids.get((int(self.repository[s]), f), NONE) for s, f in zip(links.sources, links.files,
                                                                                        strict=True)]  # fmt: skip

        def grown(column: IntArray, values: list[int]) -> IntArray:
            return np.concatenate([column, np.array(values, dtype=np.int32)])

        self.edge_source = grown(self.edge_source, links.sources)
        self.edge_target = grown(self.edge_target, links.targets)
        self.edge_kind = grown(self.edge_kind, links.kinds)
        self.edge_confidence = grown(self.edge_confidence, [CONFIDENCES.index(c) for c in links.confidences])
        self.edge_provenance = grown(self.edge_provenance, [PROVENANCES.index(Provenance.MANIFEST)] * count)
        self.edge_file = grown(self.edge_file, files)
        self.edge_line = grown(self.edge_line, links.lines)

    def _snapshot_id(self) -> int:
        """A number that changes whenever any loaded generation does, and is the same across
        server restarts on the same generations (so a cursor outlives a restart, not a re-index)."""
        digest = hashlib.blake2b(digest_size=4)
        for loaded in sorted(self.repositories, key=lambda r: r.name):
            h = loaded.columns.header
            digest.update(f"{loaded.name}\0{h.commit}\0{h.created_at}\0{loaded.size}\n".encode())
        return int.from_bytes(digest.digest(), "big")

    # -- lookups -----------------------------------------------------------------------------

    def key(self, symbol: int) -> str:
        """The stable key of one symbol, decoded on demand (all of them cost a tenth of a second) and
        kept: the rows an agent asks about are asked about again."""
        found = self._keys.get(symbol)
        if found is None:
            r = int(self.repository[symbol])
            found = self._keys[symbol] = self.repositories[r].columns.key(symbol - self.symbol_offsets[r])
        return found

    @cached_property
    def _by_key_bytes(self) -> dict[bytes, int]:
        """Raw 32-byte keys → symbol: slicing the key column costs a tenth of turning it into text."""
        index: dict[bytes, int] = {}
        for r, loaded in enumerate(self.repositories):
            raw, base = loaded.columns.symbol_keys, self.symbol_offsets[r]
            index.update((raw[i : i + KEY_BYTES], base + i // KEY_BYTES) for i in range(0, len(raw), KEY_BYTES))
        return index

    def find_key(self, key: str) -> int | None:
        """The symbol a stable key names, or None (a malformed key names nothing)."""
        if len(key) != KEY_TEXT_LENGTH or not key.isascii() or not key.isalnum():
            return None
        try:
            raw = base64.b32decode(key + "=" * (-len(key) % 8))
        except (binascii.Error, ValueError):
            return None
        return self._by_key_bytes.get(raw)

    @cached_property
    def by_name(self) -> dict[str, list[int]]:
        index: dict[str, list[int]] = defaultdict(list)
        for i, name in enumerate(self.names):
            index[name].append(i)
        return dict(index)

    @cached_property
    def by_qualified_name(self) -> dict[str, list[int]]:
        index: dict[str, list[int]] = defaultdict(list)
        for i, name in enumerate(self.qualified_names):
            index[name].append(i)
        return dict(index)

    @cached_property
    def by_file(self) -> dict[int, list[int]]:
        """Global file id → its symbols in snapshot order."""
        index: dict[int, list[int]] = defaultdict(list)
        for i, f in enumerate(ints(self.file)):
            if f != NONE:
                index[f].append(i)
        return dict(index)

    @cached_property
    def file_ids(self) -> dict[tuple[int, str], int]:
        return {(f.repository, f.path): i for i, f in enumerate(self.files)}

    @cached_property
    def file_modules(self) -> dict[int, int]:
        """Global file id → the file's module symbol: every language writes it at line 1, column 0,
        outside any declaration (a Rust `mod` item is a module too, but its name follows `mod`)."""
        module = SYMBOL_KINDS.index(SymbolKind.MODULE)
        rows = (self.kind == module) & (self.container == NONE) & (self.name_line == 1) & (self.name_column == 0)
        found: dict[int, int] = {}
        for i in ints(np.flatnonzero(rows)):
            f = int(self.file[i])
            if f != NONE:
                found.setdefault(f, i)
        return found

    @cached_property
    def module_files(self) -> dict[int, int]:
        """The reverse: a file's module symbol → its file id."""
        return {symbol: f for f, symbol in self.file_modules.items()}

    @cached_property
    def files_by_directory(self) -> dict[tuple[int, str], list[int]]:
        """(repository, directory) → the file ids directly in it ("" is the root), in path order."""
        index: dict[tuple[int, str], list[int]] = defaultdict(list)
        for i in sorted(range(len(self.files)), key=lambda i: self.files[i].path):
            f = self.files[i]
            index[(f.repository, f.path.rpartition("/")[0])].append(i)
        return dict(index)

    @cached_property
    def _rust_by_dotted_name(self) -> dict[str, list[int]]:
        index: dict[str, list[int]] = defaultdict(list)
        if Language.RUST.value in self.language_names:
            rust = self.language_names.index(Language.RUST.value)
            for i in ints(np.flatnonzero(self.language == rust)):
                index[self.qualified_names[i].replace("::", ".")].append(i)
        return dict(index)

    def by_qualified_spelling(self, qualified: str) -> list[int]:
        """Symbols with this qualified name, in snapshot order. Rust writes its names with `::`
        (`Stack::push`) where every other language writes `.`: a Rust symbol answers to either."""
        exact = self.by_qualified_name.get(qualified, [])
        rust = self._rust_by_dotted_name.get(qualified.replace("::", "."), [])
        if not rust:
            return list(exact)
        return sorted(set(exact) | set(rust))

    @cached_property
    def _unresolved_by_name(self) -> dict[str, list[int]]:
        index: dict[str, list[int]] = defaultdict(list)
        for i, u in enumerate(self.unresolved):
            if u.file and u.requested_symbol:
                index[last_name(u.requested_symbol)].append(i)
        return dict(index)

    @cached_property
    def _unresolved_by_source(self) -> dict[int, list[int]]:
        index: dict[int, list[int]] = defaultdict(list)
        for i, u in enumerate(self.unresolved):
            if u.source != NONE:
                index[u.source].append(i)
        return dict(index)

    @cached_property
    def _dependencies_by_package(self) -> dict[int, list[PackageDependency]]:
        index: dict[int, list[PackageDependency]] = defaultdict(list)
        for dependency in self.dependencies:
            index[dependency.package].append(dependency)
        return dict(index)

    def dependencies_on(self, package: int) -> list[PackageDependency]:
        """Package-level dependencies of other repositories on one provider package."""
        return self._dependencies_by_package.get(package, [])

    def unresolved_naming(self, name: str) -> list[int]:
        """Unresolved uses at a known site that asked for `name` (`name`, `x.name`, `x::name`)."""
        return self._unresolved_by_name.get(name, [])

    def unresolved_from(self, sources: Iterable[int]) -> list[int]:
        """Unresolved records these symbols made themselves."""
        return sorted(i for s in set(sources) for i in self._unresolved_by_source.get(s, []))

    def kind_of(self, symbol: int) -> str:
        return SYMBOL_KIND_NAMES[int(self.kind[symbol])]

    def language_of(self, symbol: int) -> str:
        return self.language_names[int(self.language[symbol])]

    @cached_property
    def members(self) -> dict[int, list[int]]:
        """Each symbol's direct members (a struct's fields, a class's methods), built on first use."""
        found: dict[int, list[int]] = {}
        for i, parent in enumerate(ints(self.container)):
            if parent != NONE:
                found.setdefault(parent, []).append(i)
        return found

    def role_of(self, symbol: int) -> str:
        return ROLE_VALUES[int(self.role[symbol])]

    def repository_name(self, symbol: int) -> str:
        return self.repositories[int(self.repository[symbol])].name

    def path_of(self, symbol: int) -> str:
        f = int(self.file[symbol])
        return self.files[f].path if f != NONE else ""

    def package_of(self, symbol: int) -> PackageInfo | None:
        p = int(self.package[symbol])
        return self.packages[p] if p != NONE else None

    def incoming(self, symbol: int) -> IntArray:
        return self.in_edges[self.in_ptr[symbol] : self.in_ptr[symbol + 1]]

    def outgoing(self, symbol: int) -> IntArray:
        return self.out_edges[self.out_ptr[symbol] : self.out_ptr[symbol + 1]]

    def is_derived(self, symbol: int) -> bool:
        return self.repositories[int(self.repository[symbol])].derived
