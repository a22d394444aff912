"""Pathological input stays cheap: deep nesting costs linear time in every language, and a file that
runs past its time budget is skipped and recorded while the rest of the repository is indexed."""

import time
from collections.abc import Callable

import pytest

from kivgraph.indexing import index_repository
from kivgraph.languages import EXTENSIONS, adapter, treesitter
from kivgraph.languages.syntax import FileSyntax
from kivgraph.model import FileStatus, Language, SymbolKind
from tests.conftest import FIXTURES, Repo


def nested(before: bytes, opening: bytes, inner: bytes, closing: bytes, after: bytes) -> Callable[[int], bytes]:
    return lambda depth: before + opening * depth + inner + closing * depth + after


# Each shape took quadratic time before query cursors ran in bands (4x the depth: 10-25x the time).
DEEP: dict[str, tuple[Language, Callable[[int], bytes]]] = {
    "python-calls": (Language.PYTHON, nested(b"x = ", b"f(y, ", b"y", b")", b"\n")),
    "python-method-chain": (Language.PYTHON, lambda depth: b"x = y" + b".a()" * depth + b"\n"),
    "go-calls": (Language.GO, nested(b"package p\n\nvar x = ", b"f(y, ", b"y", b")", b"\n")),
    "go-method-chain": (Language.GO, lambda depth: b"package p\n\nvar x = y" + b".a()" * depth + b"\n"),
    "typescript-calls": (Language.TYPESCRIPT, nested(b"let x = ", b"f(y, ", b"y", b")", b";\n")),
    "javascript-calls": (Language.JAVASCRIPT, nested(b"let x = ", b"f(y, ", b"y", b")", b";\n")),
    "rust-calls": (Language.RUST, nested(b"fn main() {\n    let x = ", b"f(y, ", b"y", b")", b";\n}\n")),
    "dart-lists": (Language.DART, nested(b"var x = ", b"[", b"y", b"]", b";\n")),
}
DEPTH = 1000


def fastest_parse(language: Language, source: bytes) -> tuple[float, FileSyntax]:
    """The best of three timings in CPU seconds (other processes may share the machine), and what
    the parse found."""
    path = f"deep{EXTENSIONS[language][0]}"
    best = float("inf")
    syntax = FileSyntax(path)
    for _ in range(3):
        start = time.process_time()
        syntax = adapter(language).parse(path, source)
        best = min(best, time.process_time() - start)
    return best, syntax


@pytest.mark.parametrize("shape", DEEP)
def test_deep_nesting_costs_time_linear_in_its_depth(shape: str):
    language, make = DEEP[shape]
    fastest_parse(language, make(1))  # compiles the query outside the timings
    shallow, _ = fastest_parse(language, make(DEPTH))
    deep, syntax = fastest_parse(language, make(4 * DEPTH))
    assert not syntax.timed_out
    assert any(ref.names[0] == "y" for ref in syntax.references)
    assert deep / shallow < 8, f"4x the depth took {deep / shallow:.1f}x the time; quadratic is 16x"


@pytest.mark.parametrize("language", list(EXTENSIONS), ids=str)
def test_querying_in_shallow_bands_extracts_what_one_run_extracts(language: Language, monkeypatch: pytest.MonkeyPatch):
    files = sorted(p for ext in EXTENSIONS[language] for p in FIXTURES.rglob(f"*{ext}"))
    assert files
    whole = [adapter(language).parse(str(p), p.read_bytes()) for p in files]
    monkeypatch.setattr(treesitter, "QUERY_BAND_DEPTH", 2)
    assert [adapter(language).parse(str(p), p.read_bytes()) for p in files] == whole


def test_a_query_past_its_deadline_stops_there_and_says_so():
    source = b"x = " + b"(" * 100_000 + b"y" + b")" * 100_000 + b"\n"
    tree = treesitter.parser("python").parse(source)
    query = treesitter.query("python", "python", "python.scm")
    start = time.perf_counter()
    assert treesitter.captures(query, tree.root_node, time.monotonic() + 0.05) is None
    assert time.perf_counter() - start < 0.3  # the whole query takes about 0.5 s


def test_a_file_past_its_time_budget_is_recorded_and_the_rest_of_the_repository_indexes(
    make_repo: Callable[..., Repo], monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(treesitter, "PARSE_BUDGET_SECONDS", 0.1)
    deep = "x = " + "(" * 100_000 + "y" + ")" * 100_000 + "\n"
    repo = make_repo(
        {
            "app/core.py": "def helper(x):\n    return x + 1\n",
            "app/deep.py": deep,
            "main.go": "package main\n\nfunc main() {}\n",
        }
    )
    generation = index_repository(str(repo.path), jobs=1)
    assert {f.path: f.status for f in generation.files} == {
        "app/core.py": FileStatus.INDEXED,
        "app/deep.py": FileStatus.SKIPPED_PARSE_TIMEOUT,
        "main.go": FileStatus.INDEXED,
    }
    assert {"helper", "main"} <= {s.qualified_name for s in generation.symbols}
    [problem] = [u for u in generation.unresolved if u.file == "app/deep.py"]
    assert problem.reason == "PARSE_ERROR"
    assert "KIVGRAPH_PARSE_TIMEOUT" in problem.detail
    assert [s.kind for s in generation.symbols if s.file == "app/deep.py"] == [SymbolKind.MODULE]
