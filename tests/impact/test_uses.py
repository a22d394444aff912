"""What a change affects is what uses it: a module that only imports a changed function is listed
among the files that import it, not counted as affected, and the walk never goes on through an
import (else everything importing that module would follow). Overloads are one declaration: never
their own dependents. On the exact fixtures, indexed with their type checkers, on real history."""

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from kivgraph.cli import cli
from kivgraph.impact.analysis import Impact, analyze
from kivgraph.impact.report import to_json, to_markdown, to_text
from kivgraph.indexing import index_repository
from kivgraph.store import save_to_notes
from kivgraph.store.git import open_repository
from tests.conftest import FIXTURES, Repo
from tests.scip.analyzers import require

PYTHON_TESTS = {
    "tests/__init__.py": "",
    # Uses `total`.
    "tests/test_total.py": "from shapes import total\nfrom shapes.shape import Square\n\n\n"
    "def test_total():\n    assert total([Square(1)]) == 1\n\n\ndef test_other():\n    assert 1 == 1\n",
    # Imports `total` and never calls it.
    "tests/test_import_only.py": "from shapes.shape import total  # noqa: F401\n\n\n"
    "def test_unrelated():\n    assert 2 == 2\n\n\ndef helper():\n    return 3\n",
    # Imports the package that re-exports `total`, for something else.
    "tests/test_square.py": "from shapes import Square\n\n\ndef test_square():\n    assert Square(2).area() == 4\n",
}
GO_TESTS = {
    "shapes/shapes_test.go": 'package shapes_test\n\nimport (\n\t"testing"\n\n\t"example.com/exact/shapes"\n)\n\n'
    "func TestTotal(t *testing.T) {\n\tif shapes.Total([]shapes.Square{{Side: 1}}) != 1 {\n\t\tt.Fatal(1)\n\t}\n}\n",
    "shapes/import_only_test.go": 'package shapes_test\n\nimport (\n\t"testing"\n\n\t"example.com/exact/shapes"\n)\n\n'
    "func TestSide(t *testing.T) {\n\tif (shapes.Square{Side: 2}).Side != 2 {\n\t\tt.Fatal(2)\n\t}\n}\n",
}


def pull_request(root: Path, fixture: str, extra: dict[str, str], path: str, old: str, new: str) -> Repo:
    """A fixture plus `extra` committed on main and indexed with its type checker, then one commit
    that edits `path`."""
    repo = Repo(root)
    shutil.copytree(FIXTURES / "exact" / fixture, repo.path, dirs_exist_ok=True)
    repo.commit(extra, message="main")
    save_to_notes(open_repository(str(repo.path)), index_repository(str(repo.path), run_analyzers=True))
    text = (repo.path / path).read_text(encoding="utf-8")
    assert old in text
    repo.commit({path: text.replace(old, new)}, message="change")
    return repo


@pytest.fixture(scope="module")
def python_total(tmp_path_factory: pytest.TempPathFactory) -> Repo:
    require("scip-python")
    return pull_request(tmp_path_factory.mktemp("py") / "repo", "python", PYTHON_TESTS, "shapes/shape.py",
                        "return sum(item.area()", "return 2 * sum(item.area()")  # fmt: skip


def rows(impact: Impact) -> set[tuple[str, str, int]]:
    return {(a.qualified_name, a.file_path, a.depth) for a in impact.affected}


def test_a_module_that_only_imports_a_changed_function_is_an_importer_not_an_affected_symbol(python_total: Repo):
    impact = analyze(str(python_total.path), "HEAD~1", "HEAD")
    [total] = impact.changed
    # Before: 7 affected (6 direct) — main.py, shapes/__init__.py, tests/test_import_only.py and tests/test_total.py
    # as modules tied by an import or an export, and tests/test_square.py at the next hop, through the package.
    assert rows(impact) == {("main", "main.py", 1), ("test_total", "tests/test_total.py", 1)}
    assert [i.file_path for i in total.imported_by] == [
        "main.py", "shapes/__init__.py", "tests/test_import_only.py", "tests/test_total.py",
    ]  # fmt: skip
    assert not {a.kind for a in impact.affected} & {"module", "package"}
    report = to_json(impact)["summary"]
    assert (report["affected"], report["direct"], report["imported_by_files"]) == (2, 2, 4)
    assert "2 affected (2 direct) · imported by 4 files" in to_text(impact)
    markdown = to_markdown(impact)
    assert "**1** changed · **2** direct · **2** transitive · imported by **4** files" in markdown
    assert "test_square" not in markdown and "test_unrelated" not in markdown


def test_fail_on_and_the_counts_count_uses_only(python_total: Repo):
    def run(*args: str) -> tuple[int, str]:
        done = CliRunner().invoke(cli, ["diff-impact", str(python_total.path), "--base", "HEAD~1", *args])
        return done.exit_code, done.stdout

    code, out = run("--format", "json", "--fail-on", "3")
    assert code == 0 and json.loads(out)["summary"]["affected"] == 2  # 7 before, which tripped the gate
    assert run("--format", "json", "--fail-on", "2")[0] == 3


def test_a_go_package_import_is_counted_for_what_the_package_declares_and_walked_by_no_one(tmp_path: Path):
    require("scip-go")
    repo = pull_request(tmp_path / "go", "go", GO_TESTS, "shapes/shapes.go", "sum += item.Area()",
                        "sum += 2 * item.Area()")  # fmt: skip
    impact = analyze(str(repo.path), "HEAD~1", "HEAD")
    [total] = impact.changed
    assert rows(impact) == {("main", "cmd/app/main.go", 1), ("TestTotal", "shapes/shapes_test.go", 1)}
    # Go imports packages: every file importing `shapes` imports the file that declares Total.
    assert [i.file_path for i in total.imported_by] == [
        "cmd/app/main.go", "shapes/import_only_test.go", "shapes/shapes_test.go",
    ]  # fmt: skip


# -- overloads -----------------------------------------------------------------------------------

PY_OVERLOADS = (
    "from typing import overload\n\n\n"
    "@overload\ndef parse(x: str) -> int: ...\n"
    "@overload\ndef parse(x: int) -> int: ...\n"
    "@overload\ndef parse(x: list[str]) -> int: ...\n"
    "@overload\ndef parse(x: bytes) -> int: ...\n"
    "def parse(x):\n    if isinstance(x, list):\n        return sum(parse(i) for i in x)\n    return int(x)\n"
)
PY_USES = "from lib import parse\n\n\ndef one() -> int:\n    return parse('1') + parse(2)\n\n\n" \
          "def two() -> int:\n    return parse(['a'])\n"  # fmt: skip
TS_OVERLOADS = (
    "export function parse(x: string): number;\nexport function parse(x: number): number;\n"
    "export function parse(x: string[]): number;\nexport function parse(x: boolean): number;\n"
    "export function parse(x: unknown): number {\n  if (Array.isArray(x)) {\n"
    "    return x.reduce((n: number, i: string) => n + parse(i), 0);\n  }\n  return Number(x);\n}\n\n"
    "export class Reader {\n  read(x: string): number;\n  read(x: number): number;\n"
    "  read(x: unknown): number {\n    return typeof x === 'number' ? x : this.read(Number(x));\n  }\n}\n"
)
TS_USES = (
    'import { parse, Reader } from "./parse";\n\n'
    'export function one(): number {\n  return parse("1") + parse(2);\n}\n\n'
    'export function two(): number {\n  return parse(["a"]) + new Reader().read("3");\n}\n'
)


def overloaded(root: Path, language: str, old: str, new: str) -> Impact:
    repo = Repo(root)
    if language == "python":
        require("scip-python")
        repo.commit({"lib.py": PY_OVERLOADS, "use.py": PY_USES}, message="main")
        path = "lib.py"
    else:
        require("scip-typescript")
        shutil.copytree(FIXTURES / "exact" / "typescript", repo.path, dirs_exist_ok=True)
        repo.commit({"src/parse.ts": TS_OVERLOADS, "src/use.ts": TS_USES}, message="main")
        path = "src/parse.ts"
    save_to_notes(open_repository(str(repo.path)), index_repository(str(repo.path), run_analyzers=True))
    text = (repo.path / path).read_text(encoding="utf-8")
    assert old in text
    repo.commit({path: text.replace(old, new)}, message="change")
    return analyze(str(repo.path), "HEAD~1", "HEAD")


@pytest.mark.parametrize(("language", "old", "new"), [
    ("python", "    return int(x)", "    return int(x) + 0"),
    ("python", "def parse(x: bytes) -> int", "def parse(x: bytearray) -> int"),
    ("typescript", "  return Number(x);", "  return Number(x) + 0;"),
    ("typescript", "parse(x: boolean): number", "parse(x: bigint): number"),
])  # fmt: skip
def test_an_overloaded_function_is_one_changed_symbol_that_does_not_affect_itself(tmp_path: Path, language: str,
                                                                                   old: str, new: str):  # fmt: skip
    impact = overloaded(tmp_path / "repo", language, old, new)
    [parse] = impact.changed  # the recursive implementation's calls are a self-loop in the graph
    assert parse.qualified_name == "parse" and parse.in_base_graph
    assert {a.qualified_name for a in parse.affected} == {"one", "two"}
    graph = to_json(impact)["graph"]
    assert [n["qualified_name"] for n in graph["nodes"]].count("parse") == 1
    assert all(e["source"] != e["target"] for e in graph["edges"])
    if "bytes" in old:  # a Python overload set's signature lists each overload (TypeScript's: the implementation's)
        assert parse.change == "signature_changed"
        diff = to_markdown(impact).split("```diff\n", 1)[1].split("\n```", 1)[0].splitlines()
        assert [line for line in diff if line[0] in "+-"] == [
            "- @overload def parse(x: bytes) -> int", "+ @overload def parse(x: bytearray) -> int",
        ]  # fmt: skip


def test_a_typescript_method_overload_set_is_one_method(tmp_path: Path):
    impact = overloaded(tmp_path / "repo", "typescript", "this.read(Number(x))", "this.read(Number(x) + 1)")
    [read] = impact.changed
    assert (read.qualified_name, read.kind) == ("Reader.read", "method")
    assert {a.qualified_name for a in read.affected} == {"two"}
