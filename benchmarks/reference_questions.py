"""The reference benchmark's questions, the callers the reference lists for them, and the one reader of
compact answers (kivgraph's and the reference's share the `files`/`at` shape). No process or MCP here."""

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

TRAVERSAL_ROOT = ("internal/facts/facts.go", "MergeAll")  # questions.json's traversal_root
REACH_ROOT = ("internal/facts/facts.go", "Set")  # a type: what reaches it through its fields and methods
RECORDED_COMMIT = "a46517d"


@dataclass(frozen=True, slots=True)
class Question:
    """One question of the reference's mcp-token-cost harness (benchmarks/mcp-token-cost/questions.json)."""

    symbol: str
    path: str = ""  # set when the harness names the declaration (a name the corpus declares more than once)
    qualified_name: str = ""

    @property
    def named(self) -> bool:
        return bool(self.path)


QUESTIONS = (
    Question("MergeAll"),
    Question("CanonicalColumns"),
    Question("DiscoverGo"),
    Question("BuildPlan"),
    Question("NewServer"),
    Question("Publish", "internal/hotsnapshot/publication.go", "SnapshotStore.Publish"),
)

# The callers the reference (kivgraph-ref 0.2.1 built from a46517d with `-tags ladybug`) lists for each
# question at a46517d, as (path, caller qualified name): its harness's calls (find_symbol, or get_symbol
# for Publish, then find_references direction incoming) over a generation from `init --languages go` +
# `index --full`. Recorded by running this script with --reference-binary; used when none is given.
# The reference indexes Go without test files (go.include_tests is false by default), so none is a test.
RECORDED_CALLERS: dict[str, tuple[tuple[str, str], ...]] = {
    "MergeAll": (
        ("internal/facts/facts.go", "Set.Merge"),
        ("internal/indexer/full.go", "closeCrossRepositoryEdges"),
        ("internal/indexer/full.go", "mergeSets"),
    ),
    "CanonicalColumns": (
        ("internal/storage/ladybug/canonical_load.go", "CanonicalTableRows"),
        ("internal/storage/ladybug/canonical_load.go", "columnsOrError"),
    ),
    "DiscoverGo": (
        ("internal/goloader/crossrepo.go", "NewModuleRegistry"),
        ("internal/goworkspace/synthetic.go", "BuildPlan"),
        ("internal/workspace/go_registry.go", "NewGoModuleRegistry"),
    ),
    "BuildPlan": (
        ("cmd/kivgraph/main.go", "reportGoLanguageCeiling"),
        ("internal/goloader/precision.go", "measurePrecisionCase"),
        ("internal/indexer/full.go", "Full"),
    ),
    "NewServer": (),
    "Publish": (
        ("cmd/kivgraph/main.go", "loadConfiguredSnapshot"),
        ("internal/indexer/delta.go", "applyDeltaRoute"),
        ("internal/indexing/follow.go", "followOnce"),
        ("internal/indexing/service.go", "Service.publishActiveSnapshot"),
    ),
}


@dataclass(frozen=True, slots=True)
class Row:
    """One listed row: the declaration that holds the fact, with its range and (kivgraph) the fact's lines."""

    path: str
    qualified_name: str
    start: int = 0
    end: int = 0
    lines: tuple[int, ...] = ()

    @property
    def caller(self) -> tuple[str, str]:
        return self.path, self.qualified_name


@dataclass(frozen=True, slots=True)
class Answer:
    """What one compact answer says: its rows, its total, and the test rows it counts without listing."""

    total: int
    rows: tuple[Row, ...]
    test_rows: int = 0
    test_files: frozenset[str] = field(default_factory=frozenset[str])  # files whose test rows are stated
    next_cursor: str | None = None

    @property
    def callers(self) -> set[tuple[str, str]]:
        return {row.caller for row in self.rows}


def parse_answer(text: str) -> Answer:
    """Read a compact find_references / get_blast_radius / trace_dependencies answer of either server.

    Rows sit in `results.files[]` or `results.groups[].files[]` as `{"file", "at": [...]}`; an `at` entry
    is a label or an array led by one (later columns: kind, confidence, depth, reached-from…), or an
    object carrying the label under `at`/`label`. Labels read `Name@start[-end][:line[,line…]]`; only
    kivgraph's carry the lines. Test rows kivgraph summarises instead of listing are read from
    `not_listed.test` (`{"rows", "files"}` where `files` is a count, a list of paths or of
    `{"file", "rows"}`, or a path → rows map) and from a file group that states test rows of its own.
    """
    envelope = _object(json.loads(text))
    results = _object(envelope.get("results"))
    rows: list[Row] = []
    test_files: set[str] = set()
    test_rows = 0
    for group in _file_groups(results):
        path = str(group["file"])
        rows += [_row(path, label) for label in map(_label_of, _items(group.get("at"))) if label]
        stated = _test_count(group)
        if stated:
            test_files.add(path)
            test_rows += stated
    for holder in (results, envelope):
        counted, files = _test_summary(_object(holder.get("not_listed")).get("test"))
        test_rows += counted
        test_files |= files
    cursor = envelope.get("next_cursor")
    total = envelope.get("total")
    return Answer(total if isinstance(total, int) else 0, tuple(rows), test_rows, frozenset(test_files),
                  cursor if isinstance(cursor, str) and cursor else None)  # fmt: skip


def _object(value: Any) -> dict[str, Any]:
    return cast(dict[str, Any], value) if isinstance(value, dict) else {}


def _items(value: Any) -> list[Any]:
    return cast(list[Any], value) if isinstance(value, list) else []


def _file_groups(node: dict[str, Any]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for key in ("files", "groups"):
        for child in map(_object, _items(node.get(key))):
            if "file" in child:
                found.append(child)
            found += _file_groups(child)
    return found


def _label_of(entry: Any) -> str:
    if isinstance(entry, str):
        return entry
    first = _items(entry)[:1]
    if first and isinstance(first[0], str):
        return first[0]
    fields = _object(entry)
    return next((fields[key] for key in ("at", "label", "qn") if isinstance(fields.get(key), str)), "")


def _row(path: str, label: str) -> Row:
    name, marker, where = label.rpartition("@")
    if not marker:
        return Row(path, label)
    span, _, called = where.partition(":")
    first, _, last = span.partition("-")
    start = int(first) if first.isdigit() else 0
    end = int(last) if last.isdigit() else start
    lines = tuple(int(n) for n in called.split(",") if n.strip().isdigit())
    return Row(path, name, start, end, lines)


def _count(value: Any) -> int:
    return value if isinstance(value, int) else 0


def _test_count(group: dict[str, Any]) -> int:
    """Test rows a file group states of its own (`test_rows`, `tests` or `not_listed.test.rows`)."""
    summary = _object(_object(group.get("not_listed")).get("test"))
    return _count(group.get("test_rows")) or _count(group.get("tests")) or _count(summary.get("rows"))


def _test_summary(summary: Any) -> tuple[int, set[str]]:
    if isinstance(summary, int):
        return summary, set()
    fields = _object(summary)
    rows, files = _count(fields.get("rows")), fields.get("files")
    if isinstance(files, dict):
        return rows, set(_object(files))
    paths = {item if isinstance(item, str) else str(_object(item).get("file") or "") for item in _items(files)}
    return rows, paths - {""}


def lost_callers(
    expected: Mapping[str, Iterable[tuple[str, str]]], answers: Mapping[str, Answer]
) -> list[tuple[str, str, str]]:
    """(question, path, caller) of every expected caller an answer misses. A caller is present when listed,
    or when it sits in a test file whose test rows the answer states without listing them."""
    lost: list[tuple[str, str, str]] = []
    for symbol, answer in answers.items():
        for path, name in expected.get(symbol, ()):
            stated = path.endswith("_test.go") and path in answer.test_files
            if (path, name) not in answer.callers and not stated:
                lost.append((symbol, path, name))
    return lost


def subject_of(tool: str, text: str, repository: str) -> tuple[str, str, str]:
    """(repository, path, qualified name) of the first declaration a find_symbol or get_symbol answer names:
    the selector the reference's harness calls find_references with."""
    results = _object(_object(json.loads(text)).get("results"))
    if tool == "get_symbol":
        return str(results.get("repository") or repository), str(results["file_path"]), str(results["qualified_name"])
    symbols = [_object(symbol) for symbol in _items(results.get("symbols"))]
    if not symbols:
        raise ValueError(f"find_symbol found no symbol named {results.get('name')!r}")
    location = str(symbols[0]["at"]).rpartition(":")[0]
    hoisted = str(results.get("repository") or "")
    if not hoisted:  # the row spells `repository:path:line` when the page hoisted none
        hoisted, _, location = location.partition(":")
    name = symbols[0].get("qn") or symbols[0].get("name") or results.get("name")
    return hoisted or repository, location, str(name)
