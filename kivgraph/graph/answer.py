"""How an answer is spelled: the envelope and when each field appears, the compact view's header
hoisting and `groups` (whichever serializes smaller), and the `completeness` verdict."""

import json
import re
import weakref
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

import numpy as np

from kivgraph.graph.index import EDGE_KINDS, Graph, ScopeInfo
from kivgraph.model import EdgeKind, Language
from kivgraph.store.codec import NONE

MAX_LISTED = 20
ANALYZER_LANGUAGES = {
    "scip-typescript": (Language.TYPESCRIPT, Language.JAVASCRIPT),
    "scip-python": (Language.PYTHON,),
    "scip-go": (Language.GO,),
    "rust-analyzer": (Language.RUST,),
    "scip-dart": (Language.DART,),
}

Row = dict[str, Any]


def dumps(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def coverage_of(exact: int = 0, candidate: int = 0, unresolved_related: int = 0, package_level: int = 0) -> Row:
    return {"exact": exact, "candidate": candidate, "unresolved_related": unresolved_related,
            "package_level": package_level}  # fmt: skip


def envelope(
    graph: Graph,
    results: object,
    *,
    total: int,
    returned: int,
    compact: bool,
    next_cursor: str | None = None,
    coverage: Row | None = None,
    completeness: Row | None = None,
    guidance: str = "",
) -> Row:
    counters = coverage or coverage_of()
    out: Row = {"snapshot_id": graph.snapshot_id}
    if not compact:
        out["snapshot_age_ms"] = snapshot_age_ms(graph)
    out["total"], out["returned"] = total, returned
    truncated = next_cursor is not None
    if compact:
        if truncated:
            out["truncated"] = True
            out["next_cursor"] = next_cursor
        nonzero = {k: v for k, v in counters.items() if v}
        if nonzero:
            out["coverage"] = nonzero
    else:
        out["truncated"], out["next_cursor"], out["coverage"] = truncated, next_cursor, counters
    if completeness is not None:
        out["completeness"] = completeness
    if guidance:
        out["guidance"] = guidance
    out["results"] = results
    return out


def snapshot_age_ms(graph: Graph) -> int:
    newest = max((r.columns.header.created_at for r in graph.repositories), default="")
    if not newest:
        return 0
    try:
        built = datetime.strptime(newest, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
    except ValueError:
        return 0
    return max(0, int((datetime.now(UTC) - built).total_seconds() * 1000))


# -- compact pages ------------------------------------------------------------------------------


def hoist(rows: Sequence[Row], columns: Iterable[str]) -> Row:
    """The columns every row agrees on (a non-empty value; booleans hoist even when false)."""
    header: Row = {}
    if not rows:
        return header
    for column in columns:
        value = rows[0].get(column)
        if value is None or value == "" or value == [] or not all(same(row.get(column), value) for row in rows):
            continue
        header[column] = value
    return header


def same(left: object, right: object) -> bool:
    """Equal as the JSON a row holds: `true` is not `1` (row values nest no mixed scalars deeper down)."""
    return type(left) is type(right) and left == right


def compact_page(
    rows: Sequence[Row],
    hoistable: Sequence[str],
    grouping: Sequence[str],
    list_key: str,
    spell: Callable[[Sequence[Row], frozenset[str]], list[Any]],
    regroup: Sequence[str] = (),
) -> Row:
    """Header + flat list, or header + `groups` when grouping by the columns rows still share is
    strictly smaller. `spell(rows, fixed)` writes rows without the columns in `fixed`."""
    header = hoist(rows, hoistable)
    fixed = frozenset(header)
    flat: Row = dict(header)
    if rows:
        flat[list_key] = spell(rows, fixed)
    residual = [c for c in grouping if c not in header]
    if not rows or not residual:
        return flat
    buckets: dict[str, list[Row]] = {}
    for row in rows:
        buckets.setdefault(dumps([row.get(c) for c in residual]), []).append(row)
    if len(buckets) < 2:
        return flat
    groups: list[Row] = []
    for members in buckets.values():
        group: Row = {c: members[0].get(c) for c in residual if members[0].get(c) not in (None, "")}
        group.update(hoist(members, [c for c in regroup if c not in header]))
        group[list_key] = spell(members, fixed | frozenset(residual) | frozenset(group))
        groups.append(group)
    grouped: Row = {**header, "groups": groups}
    return grouped if len(dumps(grouped)) < len(dumps(flat)) else flat


def renamed(page: Row, old: str, new: str, convert: Callable[[Any], Any] = lambda v: v) -> Row:
    """The same mapping with one key renamed (and its value converted) in place, order kept."""
    return {(new if k == old else k): (convert(v) if k == old else v) for k, v in page.items()}


def label(row: Row) -> str:
    """`qualified_name@start[-end]`; a reference row adds `:lines`, the lines it uses the subject on
    (`main@10-14:12` — three calls from one function are one row, `main@10-14:11,12,13`)."""
    name = row.get("qualified_name") or row.get("name") or ""
    start, end = row.get("start_line", 0), row.get("end_line", 0)
    lines: list[int] = row.get("lines") or []
    return f"{name}@{start}" + (f"-{end}" if end > start else "") + (":" + ",".join(map(str, lines)) if lines else "")


def spell_by_file(tail: Sequence[str], repository: str | None) -> Callable[[Sequence[Row], frozenset[str]], list[Any]]:
    """Rows grouped by file in order of first mention; each row a label, or [label, tail…]."""

    def spell(rows: Sequence[Row], fixed: frozenset[str]) -> list[Any]:
        files: dict[tuple[str, str], list[Any]] = {}
        for row in rows:
            columns = [str(row[c]) for c in tail if c not in fixed and row.get(c) not in (None, "")]
            entry = label(row) if not columns else [label(row), *columns]
            files.setdefault((row["repository"], row["file_path"]), []).append(entry)
        spelled: list[Any] = []
        for (repo, path), entries in files.items():
            item: Row = {"file": path}
            if repo != repository:
                item["repo"] = repo
            item["at"] = entries
            spelled.append(item)
        return spelled

    return spell


def file_entries(rows: Sequence[Row], count: str, repository: str | None) -> list[Row]:
    """The `files` view: each file once, in order of first mention, with how many rows it holds. The
    path is repository-relative, as in every other view; `repo` only when it is not `repository`,
    the one the header states."""
    counted = Counter((row["repository"], row["file_path"]) for row in rows)
    entries: list[Row] = []
    for (repo, path), n in counted.items():
        entry: Row = {"file": path}
        if repo != repository:
            entry["repo"] = repo
        entry[count] = n
        entries.append(entry)
    return entries


# -- completeness ------------------------------------------------------------------------------


def name_pattern(name: str) -> str:
    return rf"\b{re.escape(name)}\b"


def unchecked_languages(graph: Graph, repository: int) -> list[Language]:
    """Languages of a repository no type checker ran for: their edges are syntax-layer candidates."""
    header = graph.repositories[repository].columns.header
    checked = {lang for tool, _ in header.analyzers for lang in ANALYZER_LANGUAGES.get(tool, ())}
    return [lang for lang in header.languages if lang not in checked]


KNOWN_LANGUAGES = frozenset(lang.value for lang in Language)
SHARED_MODULES = frozenset({Language.TYPESCRIPT.value, Language.JAVASCRIPT.value})
"""Languages whose code imports each other's declarations; any other pair cannot reference each other."""


def could_reference(scope_language: str, touched: set[str] | None) -> bool:
    """Whether code in `scope_language` could hold a use of a declaration in one of the `touched`
    languages (None: of anything). A language this kivgraph does not know is assumed to."""
    if touched is None or scope_language not in KNOWN_LANGUAGES or scope_language in touched:
        return True
    return scope_language in SHARED_MODULES and bool(touched & SHARED_MODULES)


class GoPackages:
    """A Go repository's packages as the syntax layer links them: who imports whom, and whose types
    implement whose interfaces (a call through an interface reaches a package that imports neither)."""

    def __init__(self, graph: Graph) -> None:
        self.imports: dict[int, set[int]] = {}
        self.importers: dict[int, set[int]] = {}
        self.implements: dict[int, set[int]] = {}
        """Either way: the package of an interface and the packages of the types that implement it."""
        self.graph = weakref.ref(graph)
        self._linked: dict[tuple[frozenset[int], str], frozenset[int]] = {}
        self._inside: dict[tuple[int, str], list[int]] = {}
        go = graph.language_names.index(Language.GO.value) if Language.GO.value in graph.language_names else -1
        imports, implements = EDGE_KINDS.index(EdgeKind.IMPORTS_SYMBOL), EDGE_KINDS.index(EdgeKind.IMPLEMENTS)
        wanted = np.isin(graph.edge_kind, np.array([imports, implements]))
        edges = zip(graph.edge_source[wanted].tolist(), graph.edge_target[wanted].tolist(),
                    graph.edge_kind[wanted].tolist(), strict=True)  # fmt: skip
        for source, target, kind in edges:
            if int(graph.language[source]) != go or int(graph.language[target]) != go:
                continue
            a, b = int(graph.package[source]), int(graph.package[target])
            if NONE in (a, b) or a == b:
                continue
            if kind == imports:
                self.imports.setdefault(a, set()).add(b)
                self.importers.setdefault(b, set()).add(a)
            else:
                self.implements.setdefault(a, set()).add(b)
                self.implements.setdefault(b, set()).add(a)

    def linked(self, seeds: set[int], direction: str = "both") -> frozenset[int]:
        """The packages whose code could name the seeds' declarations (their importers, transitively:
        a method is called on a value another package handed over; direction "incoming") and those
        the seeds' code depends on (their imports, transitively; "outgoing"), across interfaces
        both ways. Kept per question: every answer on a symbol asks it again."""
        key = (frozenset(seeds), direction)
        found = self._linked.get(key)
        if found is None:
            found = self._linked[key] = frozenset(self._reach(seeds, direction))
        return found

    def inside(self, repository: int, path: str) -> list[int]:
        """The Go packages of `repository` at or under the scope path `path` (or holding its file)."""
        found = self._inside.get((repository, path))
        graph = self.graph()
        if found is None and graph is not None:
            found = self._inside[(repository, path)] = [
                p for p, package in enumerate(graph.packages)
                if package.repository == repository and package.language == "go"
                and (path in ("", ".") or package.root == path or package.root.startswith(path + "/")
                     or path.rpartition("/")[0] == package.root)
            ]  # fmt: skip
        return found or []

    def _reach(self, seeds: set[int], direction: str) -> set[int]:
        found: set[int] = set()
        both = (self.importers, self.imports)
        steps = {"incoming": both[:1], "outgoing": both[1:]}.get(direction, both)
        for step in steps:
            reached, frontier = set(seeds), list(seeds)
            while frontier:
                package = frontier.pop()
                for other in step.get(package, set()) | self.implements.get(package, set()):
                    if other not in reached:
                        reached.add(other)
                        frontier.append(other)
            found |= reached
        return found


GO_PACKAGES: "weakref.WeakKeyDictionary[Graph, GoPackages]" = weakref.WeakKeyDictionary()


def go_scope_could_reference(
    graph: Graph, scope: ScopeInfo, name: str, repositories: set[int], direction: str = "both"
) -> bool:
    """Whether a Go scope (a package that did not load, a module no checker saw) could hide a use
    of the Go declarations named `name`: only code in a package linked to theirs by imports (read
    by the syntax layer) or by an interface one implements can name them, or hold a value of their
    type. `direction` is what the answer follows: "incoming" uses (only importers can hide one; Go
    forbids import cycles, so a package the symbol's package imports cannot), "outgoing"
    dependencies (only imports), or "both". Unknown ground is charged: a name no Go
    declaration of the repository carries, a declaration of another repository (its importers are
    not traced here), a scope path that holds no package."""
    if scope.language != Language.GO.value:
        return True
    named = graph.by_name.get(name) or graph.by_qualified_name.get(name) or []
    declared = [i for i in named if int(graph.repository[i]) in repositories and graph.language_of(i) == "go"]
    seeds = {int(graph.package[i]) for i in declared}
    if not declared or NONE in seeds or any(int(graph.repository[i]) != scope.repository for i in declared):
        return True
    packages = GO_PACKAGES.get(graph)
    if packages is None:
        packages = GO_PACKAGES[graph] = GoPackages(graph)
    inside = packages.inside(scope.repository, scope.path.strip("/"))
    if not inside:
        return True
    return not packages.linked(seeds, direction).isdisjoint(inside)


def completeness(
    graph: Graph,
    name: str,
    repositories: Iterable[int] | None,
    blind: Iterable[int] = (),
    languages: Iterable[str] | None = None,
    direction: str = "both",
) -> Row:
    """COMPLETE, or LOWER_BOUND with what was not seen and where to grep.

    `repositories` bounds the invisible scopes charged (None: every repository); `blind` are
    the unresolved records (by index) that bound this answer; `languages` are the languages the
    answer touches: only a scope whose code could reference them is charged (a JavaScript file no
    checker saw cannot hide a use of a Python function), and "no type checker ran" only for them.
    A Go scope is charged only if its packages are linked to those declaring `name`, in the
    `direction` the answer follows ("incoming" uses, "outgoing" dependencies, or "both"; see
    `go_scope_could_reference`).
    """
    wanted = set(repositories) if repositories is not None else set(range(len(graph.repositories)))
    touched = set(languages) if languages is not None else None
    scopes: list[Row] = []
    for scope in graph.scopes:
        if (
            scope.repository in wanted
            and could_reference(scope.language, touched)
            and go_scope_could_reference(graph, scope, name, wanted, direction)
        ):
            scopes.append({"reason": scope.reason, "repository": graph.repositories[scope.repository].name,
                           "language": scope.language, "path": scope.path or ".", "detail": scope.detail})  # fmt: skip
    for r in sorted(wanted):
        for lang in unchecked_languages(graph, r):
            if touched is None or lang.value in touched:
                scopes.append({"reason": "NO_TYPE_CHECKER", "repository": graph.repositories[r].name,
                               "language": lang.value, "path": ".",
                               "detail": f"no type checker ran for {lang.value}: its edges are CANDIDATE, "
                                         "found by the syntax layer"})  # fmt: skip
    spots: list[Row] = []
    for i in blind:
        u = graph.unresolved[i]
        if u.file:
            spot: Row = {"reason": u.reason, "repository": graph.repositories[u.repository].name,
                         "file_path": u.file, "start_line": u.line}  # fmt: skip
            for field in ("requested_symbol", "requested_package", "detail"):
                if getattr(u, field):
                    spot[field] = getattr(u, field)
            spots.append(spot)
    if not scopes and not spots:
        return {"verdict": "COMPLETE"}
    out: Row = {"verdict": "LOWER_BOUND"}
    if spots:
        out["blind_spots"] = spots[:MAX_LISTED]
        if len(spots) > MAX_LISTED:
            out["more_blind_spots"] = len(spots) - MAX_LISTED
    if scopes:
        out["invisible_scopes"] = scopes[:MAX_LISTED]
        if len(scopes) > MAX_LISTED:
            out["more_invisible_scopes"] = len(scopes) - MAX_LISTED
    paths = sorted({s["file_path"] for s in spots} | {s["path"] for s in scopes})
    fallback: Row = {"pattern": name_pattern(name)} if name else {}
    if paths:
        fallback["paths"] = paths
    if fallback:
        out["fallback"] = fallback
    return out
