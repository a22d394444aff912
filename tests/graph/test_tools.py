"""The query tools against their contract: every view of one question carries the same rows, grouping
never costs more than the flat list, every error code is reachable and nothing else escapes, answers
state their completeness, cursors page exactly once, and the derived `rust:` repository is withheld.

Most tests share one pair of real Go repositories indexed with scip-go (`tests/fixtures/exact/go` with
`tests/fixtures/served/shapes` laid over it, and `tests/fixtures/served/consumer` using it)."""

import json
import os
import shutil
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st
from mcp import Client

from kivgraph.derived import RustToolchainError, index_rust_library
from kivgraph.errors import KivgraphError
from kivgraph.graph.answer import compact_page, dumps, hoist, renamed, spell_by_file
from kivgraph.graph.arguments import SELECTOR_FIELDS, Param
from kivgraph.graph.catalog import Catalog, run_tool
from kivgraph.graph.index import Graph
from kivgraph.graph.queries import TRAVERSAL_TAIL, traversal_page
from kivgraph.graph.tools import TOOL_BY_NAME, TOOLS, Tool
from kivgraph.indexing import index_repository
from kivgraph.model import EdgeKind, SymbolKind
from kivgraph.store import save_to_file, save_to_notes
from kivgraph.store.git import open_repository
from tests.conftest import FIXTURES, Repo
from tests.mcp_client import in_process
from tests.scip.analyzers import require

DOCUMENTED_CODES = frozenset({"INVALID_ARGUMENT", "SYMBOL_NOT_FOUND", "AMBIGUOUS_SYMBOL", "REPOSITORY_NOT_FOUND",
                              "CURSOR_INVALID", "CURSOR_SNAPSHOT_EXPIRED"})  # fmt: skip
COMPLETENESS_TOOLS = ("find_references", "get_blast_radius", "trace_dependencies", "find_symbol", "get_file_outline",
                      "find_cross_repo_consumers")  # fmt: skip
REFERENCE_TAIL = ["kind", "edge_kind", "confidence", "provenance", "via"]
REFERENCE_GROUPS = ("references", "overrides", "conformance")
Row = dict[str, Any]


def publish(repo: Repo) -> None:
    generation = index_repository(str(repo.path), run_analyzers=True)
    save_to_notes(open_repository(str(repo.path)), generation)


def served_repositories(base: Path) -> tuple[Repo, Repo]:
    """`shapes` (the exact Go fixture plus tests/fixtures/served/shapes) and `consumer`, both published."""
    shapes = Repo(base / "shapes")
    shutil.copytree(FIXTURES / "exact" / "go", shapes.path, dirs_exist_ok=True)
    shutil.copytree(FIXTURES / "served" / "shapes", shapes.path, dirs_exist_ok=True)
    shapes.commit(message="fixture")
    consumer = Repo(base / "consumer")  # its go.mod replaces example.com/exact with ../shapes
    shutil.copytree(FIXTURES / "served" / "consumer", consumer.path, dirs_exist_ok=True)
    consumer.commit(message="fixture")
    for repo in (shapes, consumer):
        publish(repo)
    return shapes, consumer


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    require("scip-go")
    shapes, consumer = served_repositories(tmp_path_factory.mktemp("served"))
    catalog = Catalog([str(shapes.path), str(consumer.path)])
    catalog.load()
    assert catalog.session is not None and not catalog.problems
    return catalog


def ask(catalog: Catalog, tool: str, **arguments: object) -> Row:
    answer: Row = json.loads(run_tool(catalog, TOOL_BY_NAME[tool], arguments))
    return answer


def refusal(catalog: Catalog, tool: str, arguments: object) -> KivgraphError:
    with pytest.raises(KivgraphError) as caught:
        run_tool(catalog, TOOL_BY_NAME[tool], arguments)
    return caught.value


def graph_of(catalog: Catalog) -> Graph:
    assert catalog.session is not None
    return catalog.session.graph


# -- reassembling compact pages ---------------------------------------------------------------------


def sections(results: Row, list_key: str) -> Iterator[tuple[Row, list[Any]]]:
    """(what applies to these rows: header and group fields, the rows) for a flat or a grouped page."""
    assert not (list_key in results and "groups" in results), "a page carries either its rows or groups"
    if "groups" in results:
        for group in results["groups"]:
            assert group[list_key], "a group is never empty"
            yield {**results, **group}, group[list_key]
    else:
        yield results, results.get(list_key, [])


def by_file_rows(results: Row, tail: Sequence[str]) -> list[tuple[str, ...]]:
    """Rows of a page grouped by file: repository from the header or the file's `repo`, path from the file,
    qualified name and start line from the label, the tail columns from header, group or the row's array."""
    rows: list[tuple[str, ...]] = []
    for context, files in sections(results, "files"):
        columns = [c for c in tail if c not in context]
        for item in files:
            repository = item.get("repo", results.get("repository"))
            assert repository, item
            for entry in item["at"]:
                label, *values = [entry] if isinstance(entry, str) else entry
                assert isinstance(entry, str) or values, "a row without a tail is spelled as a bare label"
                assert len(values) <= len(columns), (entry, columns)
                assert all(isinstance(v, str) for v in values), "numbers in a tail are strings"
                row = {**context, **dict(zip(columns, values, strict=False))}
                qualified_name, _, lines = label.rpartition("@")  # `start[-end][:lines]`
                rows.append((repository, item["file"], qualified_name, lines.split(":")[0].split("-")[0],
                             *(text(row.get(c)) for c in tail)))  # fmt: skip
    return sorted(rows)


def full_rows(rows: Sequence[Row], tail: Sequence[str], renames: dict[str, str] | None = None) -> list[tuple[str, ...]]:
    names = renames or {}
    return sorted(
        (r["repository"], r["file_path"], r["qualified_name"], str(r["start_line"]),
         *(text(r.get(names.get(c, c))) for c in tail))
        for r in rows
    )  # fmt: skip


def text(value: object) -> str:
    """One spelling for a column in both views: numbers as the compact tail writes them, absent as ""."""
    if value is None:
        return ""
    if value is True or value == "exported":
        return "exported"
    if value is False or value == "unexported":
        return "unexported"
    return str(value)


def split_at(at: str, repositories: Sequence[str], hoisted: str | None) -> tuple[str, str, int]:
    """`path:line` under a hoisted repository, else `repository:path:line` (a `rust:` name holds a colon,
    so the repository is matched against the names the graph serves)."""
    where, _, line = at.rpartition(":")
    if hoisted is not None:
        return hoisted, where, int(line)
    [repository] = [r for r in repositories if where.startswith(r + ":")]
    return repository, where[len(repository) + 1 :], int(line)


def symbol_rows(results: Row, repositories: Sequence[str]) -> list[tuple[Any, ...]]:
    rows: list[tuple[Any, ...]] = []
    for context, symbols in sections(results, "symbols"):
        for entry in symbols:
            repository, path, start = split_at(entry["at"], repositories, results.get("repository"))
            name = entry.get("name", context.get("name"))
            qualified_name = entry.get("qn", name)
            assert qualified_name, f"a compact row must name its symbol: {entry}"
            kind, exported = entry.get("kind", context.get("kind")), entry.get("exported", context.get("exported"))
            rows.append((repository, path, qualified_name, start, entry.get("end", start), kind, exported))
    return sorted(rows)


def consumer_rows(results: Row) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = []
    for context, consumers in sections(results, "consumers"):
        for item in consumers:
            path, _, line = item["at"].rpartition(":")
            row = {**context, **item}
            columns = (text(row.get(c)) for c in ("category", "edge_kind", "confidence", "provenance"))
            rows.append((item["repo"], path, text(item.get("qualified_name")), line, *columns))
    return sorted(rows)


# -- 1. every view of one question carries the same rows --------------------------------------------


def test_compact_full_and_files_views_carry_the_same_rows_for_every_symbol(served: Catalog):
    g = graph_of(served)
    repositories = [r.name for r in g.repositories]
    grouped: Counter[str] = Counter()  # what the sweep met, so it can insist the interesting shapes occurred
    nonempty: Counter[str] = Counter()
    dispatched = 0
    apart: Counter[str] = Counter()  # answers with overrides or conformance sites listed apart

    def compare(
        tool: str,
        arguments: Row,
        compact_rows: Callable[[Row], list[Any]],
        full_of: Callable[[Row], list[Any]],
        files: Callable[[Row, Row], None] | None = None,
    ) -> Row:
        compact = ask(served, tool, **arguments)
        full = ask(served, tool, **arguments, view="full")
        assert compact["total"] == full["total"] and compact["returned"] == full["returned"], (tool, arguments)
        assert compact.get("completeness") == full.get("completeness")
        assert compact_rows(compact["results"]) == full_of(full["results"]), (tool, arguments)
        assert len(full_of(full["results"])) == full["returned"]
        grouped[tool] += "groups" in compact["results"]
        nonempty[tool] += full["returned"] > 0
        if files is not None:
            files(ask(served, tool, **arguments, view="files"), full)
        return full

    def reference_files(answer: Row, full: Row) -> None:
        # Paths are repository-relative as in every view: the repository is the header's, or the file's `repo`.
        results = answer["results"]
        counts: Counter[tuple[str, str, str]] = Counter()
        for group in REFERENCE_GROUPS:
            for f in (results if group == "references" else results.get(group, {})).get("files", []):
                counts[(f.get("repo", results.get("repository")), f["file"], group)] += f["count"]
        expected = Counter((r["repository"], r["file_path"], group)
                           for group in REFERENCE_GROUPS for r in full["results"].get(group, []))  # fmt: skip
        assert counts == expected and sum(counts.values()) == answer["returned"] == full["returned"]

    def compact_references(results: Row) -> list[tuple[str, ...]]:
        # Overrides and conformance sites are pages of their own under their keys; the repository is hoisted above.
        found = [(*row, "references") for row in by_file_rows(results, REFERENCE_TAIL)]
        for group in REFERENCE_GROUPS[1:]:
            if group in results:
                page = {"repository": results.get("repository"), **results[group]}
                found += [(*row, group) for row in by_file_rows(page, REFERENCE_TAIL)]
        return sorted(found)

    def full_references(results: Row) -> list[tuple[str, ...]]:
        return sorted((*row, group) for group in REFERENCE_GROUPS
                      for row in full_rows(results.get(group, []), REFERENCE_TAIL))  # fmt: skip

    for i in range(g.size):
        key = g.key(i)
        for direction in ("incoming", "outgoing"):
            full = compare("find_references", {"stable_key": key, "direction": direction},
                           compact_references, full_references, reference_files)  # fmt: skip
            dispatched += sum(1 for r in full["results"]["references"] if r.get("via"))
            apart.update(group for group in REFERENCE_GROUPS[1:] if full["results"].get(group))
        compare("trace_dependencies", {"stable_key": key},
                lambda r: by_file_rows(r, TRAVERSAL_TAIL),
                lambda r: full_rows(r["nodes"], TRAVERSAL_TAIL, {"hop_depth": "depth"}))  # fmt: skip
        for kinds in (None, ["*"]):
            blast = {"stable_key": key} | ({"kinds": kinds} if kinds else {})
            compare("get_blast_radius", blast, lambda r: by_file_rows(r, TRAVERSAL_TAIL),
                    lambda r: full_rows(r["symbols"], TRAVERSAL_TAIL, {"hop_depth": "depth"}))  # fmt: skip
        compare("find_cross_repo_consumers", {"stable_key": key}, consumer_rows,
                lambda r: sorted((c["repository"], c["file_path"], text(c.get("qualified_name")), str(c["start_line"]),
                                  *(text(c.get(k)) for k in ("category", "edge_kind", "confidence", "provenance")))
                                 for c in r["consumers"]))  # fmt: skip

    def outline_files(answer: Row, full: Row) -> None:
        counts = {f["file"]: f["declarations"] for f in answer["results"].get("files", [])}
        expected = Counter(s["file_path"] for f in full["results"]["files"] for s in f["symbols"])
        assert counts == dict(expected) and sum(counts.values()) == answer["returned"] == full["returned"]

    for r, loaded in enumerate(g.repositories):
        files = [f.path for f in g.files if f.repository == r]
        directories = {p.rsplit("/", k)[0] for p in files for k in range(1, p.count("/") + 1)}
        for path in sorted({"", *files, *directories}):
            for include_members in (False, True):
                compare("get_file_outline", {"repository": loaded.name, "path": path,
                                             "include_members": include_members},
                        lambda r: by_file_rows(r, ["kind", "exported"]),
                        lambda r: full_rows([s for f in r["files"] for s in f["symbols"]], ["kind", "exported"]),
                        outline_files)  # fmt: skip

    names = sorted(set(g.names) | {n[:1] for n in g.names} | {n[:2] for n in g.names})
    for name in names:
        for mode in ("exact", "prefix", "substring"):
            compare("find_symbol", {"name": name, "mode": mode}, lambda r: symbol_rows(r, repositories),
                    lambda r: sorted((s["repository"], s["file_path"], s["qualified_name"], s["start_line"],
                                      s["end_line"], s["kind"], s["exported"]) for s in r["symbols"]))  # fmt: skip
    for qualified_name in sorted(set(g.qualified_names)):
        compare("find_symbol", {"name": qualified_name, "mode": "qualified_exact"},
                lambda r: symbol_rows(r, repositories),
                lambda r: sorted((s["repository"], s["file_path"], s["qualified_name"], s["start_line"],
                                  s["end_line"], s["kind"], s["exported"]) for s in r["symbols"]))  # fmt: skip

    # The sweep must have met the shapes it is meant to check, or it proves nothing about them.
    for tool in ("find_references", "get_blast_radius", "get_file_outline", "find_symbol"):
        assert grouped[tool], f"no compact {tool} page came out grouped"
    for tool in COMPLETENESS_TOOLS:
        assert nonempty[tool], f"every {tool} answer was empty"
    assert dispatched, "no reference arrived through a sole implementation's interface method"
    assert apart["overrides"] and apart["conformance"], "no answer listed overrides or conformance sites apart"


def test_a_compact_find_symbol_row_always_names_its_symbol(served: Catalog):
    answer = ask(served, "find_symbol", name="S", mode="prefix", repo="shapes")
    results = answer["results"]
    assert "name" not in results  # the rows disagree, so each one says which symbol it is
    for _, symbols in sections(results, "symbols"):
        for entry in symbols:
            assert "name" in entry or "qn" in entry, entry


def test_cross_repository_consumers_are_found_through_the_go_module_path(served: Catalog):
    answer = ask(served, "find_cross_repo_consumers", repository="shapes", path="shapes/shapes.go",
                 qualified_name="Total", view="full")  # fmt: skip
    rows = answer["results"]["consumers"]
    uses = {(c["repository"], c["file_path"], c["qualified_name"], c["confidence"]) for c in rows
            if c["category"] == "exact_symbol"}  # fmt: skip
    linked = "EXACT_PACKAGE_MAPPED"
    assert uses == {("consumer", "main.go", "main", linked), ("consumer", "report/report.go", "Summary", linked)}
    # Each consumer file also imports the package: a package-level dependency, never counted as a use.
    packages = {(c["repository"], c["file_path"]) for c in rows if c["category"] == "package"}
    assert packages == {("consumer", "main.go"), ("consumer", "report/report.go")}
    assert answer["coverage"]["package_level"] == 2 and answer["coverage"]["exact"] == 2
    # Platform is in the same package but never used by the consumer: the package dependency is all
    # there is, and it is not a use.
    platform = ask(served, "find_cross_repo_consumers", repository="shapes", path="shapes/linux.go",
                   qualified_name="Platform", view="full")  # fmt: skip
    assert {c["category"] for c in platform["results"]["consumers"]} == {"package"}
    assert "exact" not in platform["coverage"] or platform["coverage"]["exact"] == 0


# -- 2. grouping never costs more than the flat list ------------------------------------------------

COLUMNS = ("a", "b", "c", "d")
CELL = st.one_of(st.none(), st.just(""), st.booleans(), st.integers(0, 2), st.sampled_from(["x", "yy", "zzzzzz"]))
SUBSET = st.lists(st.sampled_from(COLUMNS), unique=True)


def spell_ids(rows: Sequence[Row], fixed: frozenset[str]) -> list[Any]:
    return [{"id": row["id"], **{c: row[c] for c in COLUMNS if c not in fixed and row[c] not in (None, "")}}
            for row in rows]  # fmt: skip


def empty(value: object) -> object:
    return None if value in (None, "") else value


@settings(max_examples=400, deadline=None)
@given(cells=st.lists(st.fixed_dictionaries({c: CELL for c in COLUMNS}), max_size=14), hoistable=SUBSET,
       grouping=SUBSET, regroup=SUBSET)  # fmt: skip
def test_grouping_is_never_larger_than_the_flat_page_and_keeps_every_row_once(
    cells: list[Row], hoistable: list[str], grouping: list[str], regroup: list[str]
):
    rows = [{"id": i, **row} for i, row in enumerate(cells)]
    shape = compact_page(rows, hoistable, grouping, "rows", spell_ids, regroup)
    flat = compact_page(rows, hoistable, [], "rows", spell_ids)
    assert not ("rows" in shape and "groups" in shape)
    assert len(dumps(shape)) <= len(dumps(flat))
    seen: list[int] = []
    for context, items in sections(shape, "rows"):
        for item in items:
            seen.append(item["id"])
            original = rows[item["id"]]
            rebuilt = {c: item.get(c, context.get(c)) for c in COLUMNS}
            assert {c: empty(v) for c, v in rebuilt.items()} == {c: empty(original[c]) for c in COLUMNS}
    assert sorted(seen) == list(range(len(rows)))


TRAVERSAL_ROW = st.fixed_dictionaries({
    "qualified_name": st.text("ab", min_size=1, max_size=6), "name": st.just("n"), "repository": st.just("r"),
    "file_path": st.sampled_from(["f.go", "g.go"]), "start_line": st.integers(1, 3), "end_line": st.integers(1, 4),
    "kind": st.sampled_from(["function", "method", "struct"]), "depth": st.integers(1, 3),
    "reached_from": st.text("ab", min_size=1, max_size=6), "via_kind": st.sampled_from(["CALLS_DIRECT", "TYPE_USES"]),
    "via_confidence": st.just("EXACT_TYPECHECKED"), "via_provenance": st.just("SCIP_GO"),
})  # fmt: skip
# Grouped measured 1 character smaller than flat while the column was `depth`, and served 7 larger once it
# was renamed `hop_depth` afterwards: the shape has to be measured as it is served.
SWAYING_PAGE = [
    {"qualified_name": "a", "name": "n", "repository": "r", "file_path": "f.go", "start_line": 1, "end_line": 1,
     "kind": kind, "depth": depth, "reached_from": came, "via_kind": via, "via_confidence": "EXACT_TYPECHECKED",
     "via_provenance": "SCIP_GO"}
    for kind, depth, came, via, count in (("kkkk", 1, "a", "X", 2), ("kkkkkkkkkkkk", 2, "aaa", "XXXX", 4))
    for _ in range(count)
]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(rows=st.lists(TRAVERSAL_ROW, min_size=1, max_size=10))
@example(rows=SWAYING_PAGE)
def test_a_traversal_page_is_never_larger_than_its_flat_spelling_as_served(rows: list[Row]):
    page = traversal_page(None, rows, "")  # type: ignore[arg-type]  # the graph is not consulted
    served_rows = [renamed(row, "depth", "hop_depth") for row in rows]
    header = hoist(served_rows, ["repository"])
    flat = compact_page(served_rows, list(TRAVERSAL_TAIL), [], "files",
                        spell_by_file(TRAVERSAL_TAIL, header.get("repository")))  # fmt: skip
    assert len(dumps(page)) <= len(dumps({**header, **flat}))
    assert by_file_rows(page, TRAVERSAL_TAIL) == full_rows(rows, TRAVERSAL_TAIL, {"hop_depth": "depth"})


# -- 3. every error code ------------------------------------------------------------------------------

SHAPES_GO = {"repository": "shapes", "path": "shapes/shapes.go"}
INVALID: list[tuple[str, object, str]] = [
    ("find_symbol", {"name": "Total", "bogus": 1}, 'unknown argument "bogus"'),
    ("graph_status", {"limit": 1}, 'unknown argument "limit"; graph_status takes: no arguments'),
    ("find_symbol", ["Total"], "takes an object of named arguments"),
    ("find_symbol", {}, "name is required"),
    ("find_symbol", {"name": 3}, "name must be a string"),
    ("find_symbol", {"name": "Total", "limit": "5"}, "limit must be an integer"),
    ("find_symbol", {"name": "Total", "limit": True}, "limit must be an integer"),
    ("find_symbol", {"name": "Total", "limit": 2.5}, "limit must be an integer"),
    ("find_symbol", {"name": "Total", "limit": float("nan")}, "limit must be an integer"),
    ("find_symbol", {"name": "Total", "limit": float("inf")}, "limit must be an integer"),
    ("find_symbol", {"name": "Total", "include_derived": "yes"}, "include_derived must be true or false"),
    ("find_references", {"name": "Total", "edge_kinds": [1]}, "edge_kinds must be a list of strings"),
    ("get_source", {"symbols": "Total"}, "symbols must be a list of symbol selectors"),
    ("get_source", {"symbols": ["Total"]}, "each entry of symbols must be an object"),
    ("get_source", {"symbols": [{"name": "Total"}]}, 'unknown selector field "name"'),
    ("get_source", {"symbols": [{"qualified_name": 1}]}, "qualified_name in symbols must be a string"),
    ("find_symbol", {"name": "Total", "limit": -1}, "limit must be between 1 and 500"),
    ("find_symbol", {"name": "Total", "limit": 501}, "limit must be between 1 and 500"),
    ("trace_dependencies", {**SHAPES_GO, "qualified_name": "Total", "depth": 0}, "depth must be between 1 and 5"),
    ("get_blast_radius", {**SHAPES_GO, "qualified_name": "Total", "depth": 6}, "depth must be between 1 and 5"),
    ("trace_dependencies", {**SHAPES_GO, "qualified_name": "Total", "max_nodes": 0},
     "max_nodes must be between 1 and 25000"),
    ("get_blast_radius", {**SHAPES_GO, "qualified_name": "Total", "max_nodes": 25001},
     "max_nodes must be between 1 and 25000"),
    ("get_source", {"symbols": [{"qualified_name": "Total"}], "context_lines": -1},
     "context_lines must be between 0 and 100"),
    ("get_source", {"symbols": [{"qualified_name": "Total"}], "context_lines": 101},
     "context_lines must be between 0 and 100"),
    ("find_symbol", {"name": "Total", "view": "files"}, 'view "files" is unsupported'),
    ("get_blast_radius", {**SHAPES_GO, "qualified_name": "Total", "view": "files"}, 'view "files" is unsupported'),
    ("find_references", {"name": "Total", "view": "tree"}, 'view "tree" is unsupported'),
    ("get_symbol", {"qualified_name": "Total", "response_format": "verbose"}, 'response_format "verbose"'),
    ("find_references", {"name": "Total", "direction": "both"}, 'direction "both" is unsupported'),
    ("find_symbol", {"name": "Total", "mode": "regex"}, 'mode "regex" is unsupported'),
    ("find_references", {"name": "Total", "confidence": "SURE"}, 'confidence "SURE" is unsupported'),
    ("find_references", {"name": "Total", "language": "cobol"}, 'language "cobol" is unsupported'),
    ("find_references", {"name": "Total", "edge_kinds": ["CALLS"]}, 'edge kind "CALLS" is unsupported'),
    ("find_references", {"name": "Total", "edge_kinds": ["*", "CALLS_DIRECT"]}, 'edge_kinds must be "*" alone'),
    ("find_references", {"name": "Total", "edge_kinds": []}, "edge_kinds must contain non-empty canonical values"),
    ("find_references", {"name": "Total", "edge_kinds": [" CALLS_DIRECT"]}, "non-empty canonical values"),
    ("trace_dependencies", {**SHAPES_GO, "qualified_name": "Total", "edge_kinds": ["*"]}, 'edge kind "*"'),
    ("get_blast_radius", {**SHAPES_GO, "qualified_name": "Total", "kinds": ["gizmo"]}, 'kind "gizmo" is unsupported'),
    ("get_blast_radius", {**SHAPES_GO, "qualified_name": "Total", "kinds": ["*", "function"]},
     'kinds must be "*" or a list of kinds, not both'),
    ("get_blast_radius", {**SHAPES_GO, "qualified_name": "Total", "kinds": []}, "non-empty list of kinds"),
    ("get_source", {"symbols": []}, "symbols must name at least one symbol"),
    ("get_source", {"symbols": [{"qualified_name": "Total"}] * 21}, "symbols must name at most 20 symbols"),
    ("get_symbol", {"qualified_name": " Total"}, "qualified_name must be a non-empty value without surrounding"),
    ("get_symbol", {"repository": "shapes ", "qualified_name": "Total"}, "repository must be a non-empty value"),
    ("get_symbol", {"stable_key": "KEY\n"}, "stable_key must be a non-empty value"),
    ("get_symbol", {"repository": "shapes", "path": " shapes/shapes.go", "qualified_name": "Total"},
     "path must be a non-empty value"),
    ("get_symbol", {"qualified_name": ""}, "qualified_name must be a non-empty value"),
    ("find_references", {"name": "Total "}, "name must be a non-empty value without surrounding whitespace"),
    ("find_symbol", {"name": "\tTotal"}, "name must be a non-empty value without surrounding whitespace"),
    ("find_symbol", {"name": ""}, "name must be a non-empty value"),
    ("get_file_outline", {"repository": " shapes", "path": "shapes"}, "repository must be a non-empty value"),
    ("get_source", {"symbols": [{"qualified_name": "Total "}]}, "qualified_name must be a non-empty value"),
    ("get_symbol", {"repository": "shapes", "path": "shapes/../geo/geo.go", "qualified_name": "Scale"},
     "path must not contain a .. segment"),
    ("get_symbol", {"repository": "shapes", "path": "/shapes/shapes.go", "qualified_name": "Total"},
     "path must be repository-relative, not absolute"),
    ("get_file_outline", {"repository": "shapes", "path": "../shapes"}, "path must not contain a .. segment"),
    ("get_file_outline", {"repository": "shapes", "path": "/etc"}, "not absolute"),
    ("find_symbol", {"name": "Total", "path_prefix": "shapes/.."}, "path must not contain a .. segment"),
    ("find_references", {"name": "Total", "repository": "shapes", "path": "/x.go"}, "not absolute"),
    ("get_symbol", {"path": "shapes/shapes.go", "qualified_name": "Total"},
     "path is repository-relative, so it requires repository"),
    ("find_references", {"name": "Total", "path": "shapes/shapes.go"}, "so it requires repository"),
    ("find_references", {"name": "Total", "path": "shapes/shapes.go", "repo": "shapes"},
     "repo only filters which repositories the answer may come from"),
    ("get_symbol", {"stable_key": "K", "repository": "shapes"},
     "repository and path narrow a qualified_name; a stable_key already names one symbol"),
    ("get_source", {"symbols": [{"stable_key": "K", "path": "shapes/shapes.go"}]}, "a stable_key already names"),
    ("get_symbol", {"stable_key": "K", "qualified_name": "Total"}, "pass either stable_key or qualified_name"),
    ("get_symbol", {}, "one of stable_key or qualified_name is required"),
    ("find_references", {}, "one of stable_key, qualified_name or name is required"),
    ("find_references", {"name": "Total", "qualified_name": "Total"}, "name identifies a declaration on its own"),
    ("find_by_intent", {"keywords": ["  ", "?!"]}, "keywords must contain at least one word"),
]  # fmt: skip


@pytest.mark.parametrize(("tool", "arguments", "message"), INVALID, ids=lambda v: v if isinstance(v, str) else "")
def test_invalid_arguments_are_refused_with_a_sentence_naming_the_problem(
    served: Catalog, tool: str, arguments: object, message: str
):
    err = refusal(served, tool, arguments)
    assert err.code == "INVALID_ARGUMENT", err
    assert message in str(err)


def test_an_absent_symbol_is_not_found_and_a_narrowed_one_says_how_to_widen(served: Catalog):
    cases = [
        ("get_symbol", {"qualified_name": "NoSuchThing"}, 'qualified name "NoSuchThing" was not found'),
        ("get_symbol", {"repository": "shapes", "qualified_name": "NoSuchThing"},
         'qualified name "NoSuchThing" was not found under shapes; '
         "call it without repository and path to search the whole graph"),
        ("get_symbol", {"repository": "shapes", "path": "geo", "qualified_name": "Total"},
         'qualified name "Total" was not found under shapes geo; '
         "call it without repository and path to search the whole graph"),
        ("find_references", {"name": "Nope"}, 'name "Nope" was not found'),
        ("find_references", {"name": "Total", "repository": "consumer"},
         'name "Total" was not found under the given repository and path; '
         "call it without them to search the whole graph"),
        ("get_blast_radius", {"stable_key": "NOTAKEY"}, 'symbol "NOTAKEY" was not found'),
        ("get_source", {"symbols": [{"qualified_name": "Total"}, {"qualified_name": "Gone"}]},
         'qualified name "Gone" was not found'),
        ("get_file_outline", {"repository": "shapes", "path": "nowhere"},
         'repository "shapes" has no indexed file at or under "nowhere"'),
    ]  # fmt: skip
    for tool, arguments, message in cases:
        err = refusal(served, tool, arguments)
        assert (err.code, str(err)) == ("SYMBOL_NOT_FOUND", message), (tool, arguments)


def test_an_ambiguous_name_lists_where_its_candidates_are_and_keys_only_when_nothing_else_narrows(served: Catalog):
    g = graph_of(served)
    inits = list(g.by_qualified_name["init"])
    keys = {g.key(i) for i in inits}
    assert len(inits) == 2 and len(keys) == 2
    where = "shapes:shapes/setup.go:6, shapes:shapes/setup.go:8"
    for arguments in ({"qualified_name": "init"}, {"repository": "shapes", "qualified_name": "init"}):
        err = refusal(served, "get_symbol", arguments)
        assert err.code == "AMBIGUOUS_SYMBOL"
        assert str(err) == f'qualified name "init" names 2 symbols; narrow with repository and path: {where}'
        assert not any(key in str(err) for key in keys)
    err = refusal(served, "find_references", {"name": "init"})
    assert err.code == "AMBIGUOUS_SYMBOL" and str(err).endswith(f"the one you mean: {where}")
    for path in ("shapes/setup.go", "shapes"):  # a directory narrows too
        err = refusal(served, "get_symbol", {"repository": "shapes", "path": path, "qualified_name": "init"})
        assert err.code == "AMBIGUOUS_SYMBOL"
        assert f"names 2 symbols in shapes {path}, so only a stable_key separates them" in str(err)
        assert all(key in str(err) for key in keys)
    # Each key then names exactly one of them.
    lines = {ask(served, "get_symbol", stable_key=key)["results"]["start_line"] for key in keys}
    assert lines == {6, 8}
    err = refusal(served, "get_symbol", {"qualified_name": "Platform"})  # two build-tagged files
    assert "shapes:shapes/linux.go:6, shapes:shapes/other.go:6" in str(err)


def test_an_unknown_repository_is_refused_wherever_one_is_named(served: Catalog):
    cases = [
        ("get_symbol", {"repository": "elsewhere", "qualified_name": "Total"}),
        ("get_file_outline", {"repository": "elsewhere", "path": "x"}),
        ("find_symbol", {"name": "Total", "repo": "elsewhere"}),
        ("find_references", {"name": "Total", "repo": "elsewhere"}),
        ("find_references", {"name": "Total", "repository": "elsewhere"}),
        ("trace_dependencies", {**SHAPES_GO, "qualified_name": "Total", "repo": "elsewhere"}),
        ("find_cross_repo_consumers", {**SHAPES_GO, "qualified_name": "Total", "repo": "elsewhere"}),
        ("get_source", {"symbols": [{"repository": "elsewhere", "qualified_name": "Total"}]}),
    ]
    for tool, arguments in cases:
        err = refusal(served, tool, arguments)
        assert err.code == "REPOSITORY_NOT_FOUND", (tool, err)
        assert str(err) == 'repository "elsewhere" is not in the published graph'


def test_a_tampered_or_foreign_cursor_is_invalid(served: Catalog):
    first = ask(served, "find_symbol", name="S", mode="prefix", limit=1)
    cursor = first["next_cursor"]
    flipped = cursor[:-3] + ("A" if cursor[-3] != "A" else "B") + cursor[-2:]
    cases = [
        ("find_symbol", {"name": "S", "mode": "prefix", "cursor": flipped}, "checksum does not match"),
        ("find_symbol", {"name": "S", "mode": "prefix", "cursor": cursor[:-4]}, "cursor"),
        ("find_symbol", {"name": "S", "mode": "prefix", "cursor": cursor + "A"}, "cursor"),
        ("find_symbol", {"name": "S", "mode": "prefix", "cursor": "garbage!"}, "not valid base64url"),
        ("find_symbol", {"name": "T", "mode": "prefix", "cursor": cursor}, "does not match the active query"),
        ("find_symbol", {"name": "S", "mode": "substring", "cursor": cursor}, "does not match the active query"),
        ("find_symbol", {"name": "S", "mode": "prefix", "repo": "shapes", "cursor": cursor}, "does not match"),
        ("list_repositories", {"cursor": cursor}, "does not match the active query"),
        ("find_references", {"name": "Total", "cursor": cursor}, "does not match the active query"),
        ("get_file_outline", {"repository": "shapes", "path": "shapes", "cursor": cursor}, "does not match"),
    ]
    for tool, arguments, message in cases:
        err = refusal(served, tool, arguments)
        assert err.code == "CURSOR_INVALID" and message in str(err), (tool, arguments, err)


def test_permission_and_an_expired_cursor_through_the_server(tmp_path: Path):
    require("scip-go")
    repo = Repo(tmp_path / "shapes")
    shutil.copytree(FIXTURES / "exact" / "go", repo.path, dirs_exist_ok=True)
    repo.commit(message="fixture")
    publish(repo)
    catalog = Catalog([str(repo.path)])
    catalog.load()
    page = {"name": "S", "mode": "prefix", "limit": 1}

    async def go() -> list[tuple[bool, str]]:
        async with Client(in_process(catalog)) as client:
            texts: list[tuple[bool, str]] = []

            async def call(tool: str, arguments: Row) -> str:
                result = await client.call_tool(tool, arguments)
                text_ = result.content[0].text  # type: ignore[union-attr]
                texts.append((bool(result.is_error), text_))
                return text_

            cursor = json.loads(await call("find_symbol", page))["next_cursor"]
            await call("find_symbol", {**page, "cursor": cursor})  # still the same snapshot
            await call("index_project", {})
            await call("index_project", {"confirmed": False})
            await call("index_project", {"confirmed": True})
            await call("find_symbol", {**page, "cursor": cursor})
            await call("find_symbol", {"name": "T", "mode": "prefix", "cursor": cursor})
            fresh = json.loads(await call("find_symbol", page))["next_cursor"]
            await call("find_symbol", {**page, "cursor": fresh})
            return texts

    texts = anyio.run(go)
    codes = [text_.split(":", 1)[0] if failed else "ok" for failed, text_ in texts]
    assert codes == ["ok", "ok", "PERMISSION_REQUIRED", "PERMISSION_REQUIRED", "ok",
                     # The snapshot is checked before the query, so a cursor of another query has expired too.
                     "CURSOR_SNAPSHOT_EXPIRED", "CURSOR_SNAPSHOT_EXPIRED", "ok", "ok"], texts  # fmt: skip
    assert json.loads(texts[4][1])["repository"] == "shapes"


# -- 4. no argument dict makes a tool fail with anything but a documented code ----------------------

JSON_VALUE = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=8,
)
WORDS = ["shapes", "consumer", "Total", "Square", "Square.Area", "Shape.Area", "init", "Platform", "main", "S", "T",
         "shapes/shapes.go", "shapes", "shapes/", "cmd/app/main.go", "", " ", "..", "../x", "/abs", " Total", "*",
         "CALLS_DIRECT", "TYPE_USES", "IMPLEMENTS", "EXACT_TYPECHECKED", "CANDIDATE", "compact", "full", "files",
         "concise", "detailed", "incoming", "outgoing", "exact", "prefix", "substring", "qualified_exact", "go",
         "dart", "function", "method", "field", "rust:1.95.0", "area", "sum squares", "\x00", "\ud800", "<module>",
         "<package>", ".", "Square::Area"]  # fmt: skip


@dataclass(frozen=True)
class Known:
    """Words and selectors that exist in the served graph, so most calls get past validation."""

    words: list[str]
    selectors: list[Row]
    repositories: list[str]
    paths: list[str]


@pytest.fixture(scope="module")
def known(served: Catalog) -> Known:
    g = graph_of(served)
    cursors = [ask(served, "find_symbol", name="S", mode="prefix", limit=1)["next_cursor"],
               ask(served, "list_repositories", limit=1)["next_cursor"],
               ask(served, "find_references", name="Total", limit=1)["next_cursor"]]  # fmt: skip
    selectors: list[Row] = []
    for i in range(0, g.size, 3):
        repository, path, qualified_name = g.repository_name(i), g.path_of(i), g.qualified_names[i]
        selectors += [{"stable_key": g.key(i)}, {"qualified_name": qualified_name},
                      {"repository": repository, "qualified_name": qualified_name},
                      {"repository": repository, "path": path, "qualified_name": qualified_name},
                      {"repository": repository, "path": path.rsplit("/", 1)[0],
                       "qualified_name": qualified_name}]  # fmt: skip
    paths = sorted({f.path for f in g.files} | {f.path.rsplit("/", 1)[0] for f in g.files})
    words = [*WORDS, *cursors, *sorted(set(g.names))[:40], *paths]
    return Known(words, selectors, [r.name for r in g.repositories], paths)


def typed_value(param: Param, known: Known) -> st.SearchStrategy[Any]:
    """A value of the parameter's own type: mostly meaningful, sometimes out of range or odd."""
    word = st.sampled_from(known.words) | st.text(max_size=10)
    anything = st.fixed_dictionaries({}, optional=dict.fromkeys(SELECTOR_FIELDS, word))
    if param.enum:
        return st.sampled_from(param.enum) | word
    if param.type == "integer":
        low, high = param.minimum or 0, param.maximum or 100
        return st.integers(low, high) | st.sampled_from([low - 1, high + 1, 0, float(low), 2.5])
    strategies: dict[str, st.SearchStrategy[Any]] = {
        "string": word,
        "boolean": st.booleans(),
        "strings": st.lists(word, max_size=3) | word,
        "selectors": st.lists(st.sampled_from(known.selectors) | anything, max_size=22),
    }
    return strategies[param.type]


def valid_value(param: Param, known: Known) -> st.SearchStrategy[Any]:
    """A value validation accepts (the query may still refuse it: a word need not name anything)."""
    if param.enum:
        return st.sampled_from(param.enum)
    if param.type == "integer":
        return st.integers(param.minimum or 0, min(param.maximum or 100, 60))
    if param.name == "edge_kinds":
        return st.lists(st.sampled_from([k.value for k in EdgeKind]), min_size=1, max_size=3) | st.just(["*"])
    if param.name == "kinds":
        return st.lists(st.sampled_from([k.value for k in SymbolKind]), min_size=1, max_size=3) | st.just(["*"])
    if param.name in ("repository", "repo"):
        return st.sampled_from(known.repositories)
    if param.name in ("path", "path_prefix"):
        return st.sampled_from(known.paths)
    strategies: dict[str, st.SearchStrategy[Any]] = {
        "string": st.sampled_from(known.words),
        "boolean": st.booleans(),
        "strings": st.lists(st.sampled_from(known.words), min_size=1, max_size=3),
        "selectors": st.lists(st.sampled_from(known.selectors), min_size=1, max_size=3),
    }
    return strategies[param.type]


def arguments_for(tool: Tool, known: Known) -> st.SearchStrategy[Any]:
    """Valid argument objects (selector fields drawn together, so they often name a real symbol), the
    same with values of the wrong type, out of range or odd and unknown keys mixed in, and any JSON."""
    params = {p.name: p for p in tool.params}
    required = {n: valid_value(p, known) for n, p in params.items() if p.required}
    optional = {n: valid_value(p, known) for n, p in params.items()
                if not p.required and n not in SELECTOR_FIELDS and n != "cursor"}  # fmt: skip
    selector: st.SearchStrategy[Row] = st.just({})
    if "stable_key" in params:
        selector = st.sampled_from(known.selectors) | selector
    if "name" in params and "stable_key" in params:
        selector = selector | st.fixed_dictionaries({"name": st.sampled_from(known.words)})
    valid = st.builds(lambda a, b: {**a, **b}, selector, st.fixed_dictionaries(required, optional=optional))
    loose = st.fixed_dictionaries({}, optional={name: typed_value(p, known) | JSON_VALUE for name, p in params.items()})
    noise = st.dictionaries(st.text(max_size=10), JSON_VALUE, min_size=1, max_size=2)
    noisy = st.builds(lambda a, b: {**b, **a}, valid | loose, noise)
    # Mostly valid calls, which reach the queries; then wrong types and values, unknown keys, any JSON.
    return st.integers(0, 9).flatmap(lambda n: valid if n < 6 else loose if n < 7 else noisy if n < 9 else JSON_VALUE)


@pytest.mark.parametrize("tool", TOOLS, ids=lambda t: t.name)
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_arguments_get_an_answer_or_a_documented_refusal(
    served: Catalog, known: Known, tool: Tool, data: st.DataObject
):
    arguments = data.draw(arguments_for(tool, known), label="arguments")
    try:
        answer = run_tool(served, tool, arguments)
    except KivgraphError as err:
        event(err.code)
        assert err.code in DOCUMENTED_CODES, err
        assert str(err)
    else:
        event("answered")
        assert isinstance(answer, str) and answer


# -- 5. completeness verdicts -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def blind(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    """`broken`: a Go module whose dependency cannot be downloaded (GOPROXY=off); `darty`: Dart, which no
    type checker reads."""
    require("scip-go")
    base = tmp_path_factory.mktemp("blind")
    broken = Repo(base / "broken")
    broken.commit({
        "go.mod": "module example.com/demo\n\ngo 1.22\n\nrequire example.invalid/nothing v1.0.0\n",
        "greet/greet.go": "package greet\n\n// Twice says it twice.\nfunc Twice(g string) string { return g + g }\n",
        "cmd/app/main.go": (
            'package main\n\nimport "example.com/demo/greet"\n\nfunc main() {\n\tprintln(greet.Twice("x"))\n}\n'
        ),
    })  # fmt: skip
    darty = Repo(base / "darty")
    darty.commit(
        {"pubspec.yaml": "name: darty\n", "lib/a.dart": "int twice(int x) => x * 2;\n\nint main() => twice(3);\n"}
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GOPROXY", "off")
        for repo in (broken, darty):
            publish(repo)
    catalog = Catalog([str(broken.path), str(darty.path)])
    catalog.load()
    return catalog


def six_answers(catalog: Catalog, subject: Row, caller: Row) -> dict[str, Row]:
    """The six tools that state completeness, asked about `subject` (trace_dependencies about `caller`)."""
    directory = subject["path"].rsplit("/", 1)[0]
    return {
        "find_references": ask(catalog, "find_references", **subject),
        "get_blast_radius": ask(catalog, "get_blast_radius", **subject),
        "trace_dependencies": ask(catalog, "trace_dependencies", **caller),
        "find_symbol": ask(catalog, "find_symbol", name=subject["qualified_name"], repo=subject["repository"]),
        "get_file_outline": ask(catalog, "get_file_outline", repository=subject["repository"], path=directory),
        "find_cross_repo_consumers": ask(catalog, "find_cross_repo_consumers", **subject),
    }


def test_an_unreadable_module_makes_every_answer_a_lower_bound_with_a_fallback(blind: Catalog):
    answers = six_answers(
        blind,
        {"repository": "broken", "path": "greet/greet.go", "qualified_name": "Twice"},
        {"repository": "broken", "path": "cmd/app/main.go", "qualified_name": "main"},
    )
    assert set(answers) == set(COMPLETENESS_TOOLS)
    for tool, answer in answers.items():
        verdict = answer["completeness"]
        assert verdict["verdict"] == "LOWER_BOUND", tool
        [missing] = [s for s in verdict["invisible_scopes"] if s["reason"] == "MODULE_DEPENDENCIES_MISSING"]
        assert missing["repository"] == "broken" and "example.invalid/nothing" in missing["detail"]
        assert verdict["fallback"]["paths"] == ["."]
        if tool != "get_file_outline":  # the only one without a name to grep for
            expected = r"\bmain\b" if tool == "trace_dependencies" else r"\bTwice\b"
            assert verdict["fallback"]["pattern"] == expected, tool
    # The rows that were seen are still real rows.
    assert answers["find_references"]["results"]["files"][0]["file"] == "cmd/app/main.go"


def test_a_language_without_a_type_checker_bounds_only_the_answers_that_touch_it(blind: Catalog):
    twice = {"repository": "darty", "path": "lib/a.dart", "qualified_name": "twice"}
    answers = six_answers(blind, twice, {**twice, "qualified_name": "main"})
    for tool, answer in answers.items():
        verdict = answer["completeness"]
        assert verdict["verdict"] == "LOWER_BOUND", tool
        reasons = {(s["reason"], s["repository"]) for s in verdict["invisible_scopes"]}
        assert ("NO_TYPE_CHECKER", "darty") in reasons
        if tool != "find_cross_repo_consumers":  # the one tool charged for every scope in the graph
            assert {r for _, r in reasons} == {"darty"}, tool
    assert answers["find_references"]["results"]["confidence"] == "CANDIDATE"
    # Narrowed to the Go repository, find_symbol is not charged for Dart.
    narrowed = ask(blind, "find_symbol", name="main", repo="broken")["completeness"]
    assert {s["repository"] for s in narrowed["invisible_scopes"]} == {"broken"}


def test_the_clean_fixture_is_complete_on_all_six_tools(served: Catalog):
    total = {"repository": "shapes", "path": "shapes/shapes.go", "qualified_name": "Total"}
    answers = six_answers(served, total, total)
    assert set(answers) == set(COMPLETENESS_TOOLS)
    for tool, answer in answers.items():
        assert answer["completeness"] == {"verdict": "COMPLETE"}, tool
        assert answer["total"] > 0, tool


# -- 6. paging --------------------------------------------------------------------------------------


def test_paging_find_symbol_one_row_at_a_time_visits_every_row_once(served: Catalog):
    query = {"name": "S", "mode": "prefix"}
    whole = ask(served, "find_symbol", **query, view="full", limit=500)
    expected = sorted(row["stable_key"] for row in whole["results"]["symbols"])
    assert whole["total"] == len(expected) > 5
    seen: list[str] = []
    cursor = None
    while True:
        page = ask(served, "find_symbol", **query, view="full", limit=1, **({"cursor": cursor} if cursor else {}))
        assert page["total"] == whole["total"] and page["returned"] == 1
        seen += [row["stable_key"] for row in page["results"]["symbols"]]
        cursor = page["next_cursor"]
        assert page["truncated"] is (cursor is not None)
        if cursor is None:
            break
    assert sorted(seen) == expected and len(seen) == len(set(seen))


def test_a_cursor_carries_on_across_a_change_of_limit_and_view(served: Catalog):
    g = graph_of(served)
    repositories = [r.name for r in g.repositories]
    query = {"name": "S", "mode": "prefix"}
    whole = ask(served, "find_symbol", **query, view="full", limit=500)
    expected = sorted((s["repository"], s["file_path"], s["qualified_name"], s["start_line"], s["end_line"], s["kind"],
                       s["exported"]) for s in whole["results"]["symbols"])  # fmt: skip
    rows: list[tuple[Any, ...]] = []
    cursor = None
    for step in range(100):
        view, limit = ("compact", 1) if step % 2 == 0 else ("full", 2)
        page = ask(served, "find_symbol", **query, view=view, limit=limit, **({"cursor": cursor} if cursor else {}))
        assert page["total"] == whole["total"]
        if view == "compact":
            rows += symbol_rows(page["results"], repositories)
            assert ("next_cursor" in page) is page.get("truncated", False)
        else:
            rows += [(s["repository"], s["file_path"], s["qualified_name"], s["start_line"], s["end_line"], s["kind"],
                      s["exported"]) for s in page["results"]["symbols"]]  # fmt: skip
        cursor = page.get("next_cursor")
        if cursor is None:
            break
    assert sorted(rows) == expected and len(rows) == len(expected)


# -- 7. the derived repository --------------------------------------------------------------------------


def test_the_derived_standard_library_is_withheld_unless_asked_for(served: Catalog, tmp_path: Path):
    try:
        generation = index_rust_library(str(FIXTURES / "derived" / "sysroot"), run_analyzers=False)
    except RustToolchainError as err:
        if os.environ.get("KIVGRAPH_REQUIRE_ANALYZERS") == "1":
            pytest.fail(str(err))
        pytest.skip(str(err))
    derived = generation.header.repository
    assert derived.startswith("rust:")
    path = tmp_path / "std.kgen"
    save_to_file(generation, str(path))
    shapes = next(r for r in served.repositories if r.endswith("shapes"))
    catalog = Catalog([shapes], [(str(path), "")])
    catalog.load()

    def repositories_of(answer: Row) -> set[str]:
        return {row["repository"] for row in answer["results"]["symbols"]}

    assert ask(catalog, "find_symbol", name="double")["total"] == 0
    assert repositories_of(ask(catalog, "find_symbol", name="double", include_derived=True, view="full")) == {derived}
    assert repositories_of(ask(catalog, "find_symbol", name="double", repo=derived, view="full")) == {derived}
    mixed = ask(catalog, "find_symbol", name="S", mode="prefix", view="full")
    assert derived not in repositories_of(mixed) and mixed["total"] > 0
    widened = ask(catalog, "find_symbol", name="S", mode="prefix", view="full", include_derived=True)
    assert repositories_of(widened) == {"shapes", derived} and widened["total"] > mixed["total"]
    # A derived row under a header that is not hoisted is spelled repository:path:line, and still reassembles.
    compact = ask(catalog, "find_symbol", name="S", mode="prefix", include_derived=True)
    assert symbol_rows(compact["results"], ["shapes", derived]) == sorted(
        (s["repository"], s["file_path"], s["qualified_name"], s["start_line"], s["end_line"], s["kind"], s["exported"])
        for s in widened["results"]["symbols"]
    )
    listed = {row["name"]: row for row in ask(catalog, "list_repositories")["results"]}
    assert listed[derived]["derived"] is True and "derived" not in listed["shapes"]
    status = ask(catalog, "graph_status")["results"]
    assert status["derived"]["repositories"] == [derived]
    assert status["derived"]["symbols"] == len(generation.symbols)
    assert status["derived"]["files"] == len({s.file for s in generation.symbols})
