"""Addressing a symbol so that answers are usable: a file's module symbol is `<module>` with its path in
every language, a Go package is `<package>` with its directory, a Rust name answers to `.` and `::`, and
one question has one shape whatever the view. Real repositories, indexed with their type checkers."""

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import CliRunner
from mcp import Client

from kivgraph.cli import cli
from kivgraph.errors import KivgraphError
from kivgraph.graph.answer import file_entries, label
from kivgraph.graph.catalog import Catalog, run_tool
from kivgraph.graph.tools import TOOL_BY_NAME
from kivgraph.indexing import index_repository
from kivgraph.model import Generation, SymbolKind
from kivgraph.store import save_to_notes
from kivgraph.store.git import open_repository
from tests.conftest import Repo
from tests.mcp_client import in_process
from tests.scip.analyzers import require

Row = dict[str, Any]


@dataclass(frozen=True)
class Case:
    language: str
    analyzer: str
    """The type checker that indexes it."""
    files: dict[str, str]
    imported: str
    """A file whose module another file imports."""
    importer: str
    module_name: str
    """The module symbol's stored qualified name: the dotted path, a spelling that differs by language."""


CASES = (
    Case(
        "python",
        "scip-python",
        {
            "pkg/__init__.py": "",
            "pkg/util.py": "def helper():\n    return 1\n",
            "pkg/app.py": (
                "from pkg import util\n\n\ndef main():\n    util.helper()\n    util.helper()\n    util.helper()\n"
            ),
        },
        "pkg/util.py",
        "pkg/app.py",
        "pkg.util",
    ),
    Case(
        "typescript",
        "scip-typescript",
        {
            "package.json": '{"name": "tsdemo", "version": "1.0.0"}\n',
            "tsconfig.json": '{"compilerOptions": {"strict": true}, "include": ["src"]}\n',
            "src/util.ts": "export function helper(): number {\n  return 1;\n}\n",
            "src/app.ts": (
                'import * as util from "./util";\n\nexport function main(): void {\n'
                "  util.helper();\n  util.helper();\n  util.helper();\n}\n"
            ),
        },
        "src/util.ts",
        "src/app.ts",
        "src.util",
    ),
    Case(
        "go",
        "scip-go",
        {
            "go.mod": "module example.com/m\n\ngo 1.22\n",
            "log/log.go": "package log\n\ntype Logger struct{}\n\nfunc (l *Logger) Print() {}\n\nfunc Helper() {}\n",
            "log/level.go": "package log\n\nconst Debug = 1\n",
            "log/log_test.go": 'package log\n\nimport "testing"\n\nfunc TestLogger(t *testing.T) {}\n',
            "cmd/app/main.go": (
                'package main\n\nimport "example.com/m/log"\n\nfunc main() {\n'
                "\tlog.Helper()\n\tlog.Helper()\n\tlog.Helper()\n\t_ = log.Debug\n}\n"
            ),
        },
        "log/log.go",
        "cmd/app/main.go",
        "log.log",
    ),
    Case(
        "rust",
        "rust-analyzer",
        {
            "Cargo.toml": '[package]\nname = "stack"\nversion = "0.1.0"\nedition = "2021"\n',
            "src/lib.rs": (
                "pub mod store;\n\npub struct Stack {\n    items: Vec<i32>,\n}\n\nimpl Stack {\n"
                "    pub fn push(&mut self, x: i32) {\n        self.items.push(x);\n    }\n}\n\n"
                "pub fn run() {\n    let mut s = Stack { items: vec![] };\n    s.push(1);\n    store::save();\n}\n"
            ),
            "src/store.rs": "pub fn save() {}\n\npub mod inner {\n    pub fn deep() {}\n}\n",
        },
        "src/store.rs",
        "src/lib.rs",
        "src.store",
    ),
)


@dataclass(frozen=True)
class Indexed:
    case: Case
    repo: Repo
    generation: Generation
    catalog: Catalog

    @property
    def name(self) -> str:
        return self.repo.path.name

    def ask(self, tool: str, **arguments: object) -> Row:
        answer: Row = json.loads(run_tool(self.catalog, TOOL_BY_NAME[tool], arguments))
        return answer

    def refusal(self, tool: str, **arguments: object) -> KivgraphError:
        with pytest.raises(KivgraphError) as caught:
            run_tool(self.catalog, TOOL_BY_NAME[tool], arguments)
        return caught.value

    def module_key(self, path: str) -> str:
        """The key the indexer gave the file's module symbol (the one at 1:0, outside any declaration)."""
        [key] = [
            s.key
            for s in self.generation.symbols
            if s.file == path and s.kind is SymbolKind.MODULE and s.container is None and s.name_column == 0
        ]
        return key


def index(case: Case, base: Path) -> Indexed:
    require(case.analyzer)
    repo = Repo(base / case.language)
    repo.commit(case.files, message=case.language)
    generation = index_repository(str(repo.path), run_analyzers=True)
    assert generation.invisible_scopes == (), generation.invisible_scopes
    save_to_notes(open_repository(str(repo.path)), generation)
    catalog = Catalog([str(repo.path)])
    catalog.load()
    assert catalog.session is not None and not catalog.problems
    return Indexed(case, repo, generation, catalog)


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Indexed]:
    base = tmp_path_factory.mktemp("addressing")
    done: dict[str, Indexed] = {}

    def get(language: str) -> Indexed:
        if language not in done:
            done[language] = index(next(c for c in CASES if c.language == language), base)
        return done[language]

    return get


def rows_by_file(results: Row) -> dict[str, list[Any]]:
    return {item["file"]: item["at"] for item in results["files"]}


# -- a file's module symbol ---------------------------------------------------------------------------


@pytest.mark.parametrize("language", [c.language for c in CASES])
def test_a_files_module_symbol_is_module_with_its_path_in_every_language(
    indexed: Callable[[str], Indexed], language: str
):
    it = indexed(language)
    path = it.case.imported
    key = it.module_key(path)
    found = it.ask("get_symbol", repository=it.name, path=path, qualified_name="<module>")["results"]
    assert (found["stable_key"], found["qualified_name"], found["kind"], found["file_path"]) == (
        key, "<module>", "module", path
    )  # fmt: skip
    assert found["language"] == language
    # The stored dotted name, which differs by language, still names it: no key moved.
    old = it.ask("get_symbol", repository=it.name, path=path, qualified_name=it.case.module_name)["results"]
    assert old["stable_key"] == key
    # The outline lists the file's module symbol first, under the spelling that addresses it.
    outline = it.ask("get_file_outline", repository=it.name, path=path, view="full")["results"]
    [file] = outline["files"]
    first = file["symbols"][0]
    assert (first["qualified_name"], first["kind"], first["stable_key"]) == ("<module>", "module", key)
    compact = it.ask("get_file_outline", repository=it.name, path=path)["results"]
    head = rows_by_file(compact)[path][0]
    assert (head if isinstance(head, str) else head[0]).startswith("<module>@1")
    # find_symbol finds it by the same qualified name, narrowed like any other.
    listed = it.ask("find_symbol", name="<module>", mode="qualified_exact", path_prefix=path, view="full")
    assert [s["stable_key"] for s in listed["results"]["symbols"]] == [key]


IMPORTING = {
    "python": ("<module>", "IMPORTS_SYMBOL"),
    "typescript": ("<module>", "IMPORTS_SYMBOL"),
    "go": ("<module>", "IMPORTS_SYMBOL"),
    "rust": ("<module>", "REEXPORTS"),  # `pub mod store;`, module-level code of lib.rs
}


@pytest.mark.parametrize("language", [c.language for c in CASES])
def test_the_importers_of_a_module_are_its_references_and_their_rows_are_selectors(
    indexed: Callable[[str], Indexed], language: str
):
    it = indexed(language)
    answer = it.ask("find_references", repository=it.name, path=it.case.imported, qualified_name="<module>",
                    edge_kinds=["*"], view="full")  # fmt: skip
    importers = [r for r in answer["results"]["references"] if r["file_path"] == it.case.importer]
    assert IMPORTING[language] in {(r["qualified_name"], r["edge_kind"]) for r in importers}, answer
    # Each row's repository + path + qualified name is a selector that names the row's own symbol.
    for row in importers:
        again = it.ask("get_symbol", repository=row["repository"], path=row["file_path"],
                       qualified_name=row["qualified_name"])["results"]  # fmt: skip
        assert again["stable_key"] == row["stable_key"]


def test_module_needs_the_path_of_one_file(indexed: Callable[[str], Indexed]):
    it = indexed("python")
    err = it.refusal("get_symbol", qualified_name="<module>")
    assert err.code == "INVALID_ARGUMENT" and "needs repository and path" in str(err)
    err = it.refusal("get_symbol", repository=it.name, path="pkg", qualified_name="<module>")
    assert err.code == "AMBIGUOUS_SYMBOL"
    assert str(err) == (
        f'"pkg" is a directory of {it.name}, and "<module>" names the module symbol of one file: repeat with the '
        'path of the file you mean (pkg/__init__.py, pkg/app.py, pkg/util.py); a Go package is "<package>" with '
        "its directory"
    )
    err = it.refusal("get_symbol", repository=it.name, path="pkg/gone.py", qualified_name="<module>")
    assert (err.code, str(err)) == ("SYMBOL_NOT_FOUND", f'repository "{it.name}" has no indexed file "pkg/gone.py"')


# -- a Go package ---------------------------------------------------------------------------------------


def test_a_go_package_is_its_directory_and_get_symbol_answers_it_whole(indexed: Callable[[str], Indexed]):
    it = indexed("go")
    package = it.ask("get_symbol", repository=it.name, path="log", qualified_name="<package>")["results"]
    assert (package["qualified_name"], package["kind"], package["file_path"]) == ("<package>", "package", "log")
    assert (package["package_name"], package["language"]) == ("example.com/m/log", "go")
    # Its files as an import reaches them: the test file is another package's business.
    assert [(f["file_path"], f["stable_key"]) for f in package["files"]] == [
        ("log/level.go", it.module_key("log/level.go")), ("log/log.go", it.module_key("log/log.go"))
    ]  # fmt: skip
    # A package of one file is that file's module, wherever one symbol is asked for.
    single = it.ask("find_references", repository=it.name, path="cmd/app", qualified_name="<package>", view="full")
    assert single["results"]["subject"]["stable_key"] == it.module_key("cmd/app/main.go")
    # Of several files, it is several symbols: the refusal says which, and how to ask.
    err = it.refusal("find_references", repository=it.name, path="log", qualified_name="<package>")
    assert err.code == "AMBIGUOUS_SYMBOL"
    assert "the Go package example.com/m/log, which has no symbol of its own" in str(err)
    assert 'Name one with qualified_name "<module>" and its path (log/level.go, log/log.go)' in str(err)
    # As it says, any one file's importers are the package's: the import reaches each file.
    for path in ("log/level.go", "log/log.go"):
        answer = it.ask("find_references", repository=it.name, path=path, qualified_name="<module>", view="full")
        assert {(r["file_path"], r["qualified_name"], r["edge_kind"]) for r in answer["results"]["references"]} == {
            ("cmd/app/main.go", "<module>", "IMPORTS_SYMBOL")
        }


def test_package_is_refused_where_no_go_package_is(indexed: Callable[[str], Indexed]):
    go = indexed("go")
    err = go.refusal("get_symbol", repository=go.name, path="log/log.go", qualified_name="<package>")
    assert err.code == "SYMBOL_NOT_FOUND" and "is a file" in str(err) and '"<module>" with this path' in str(err)
    err = go.refusal("get_symbol", repository=go.name, qualified_name="<package>")
    assert err.code == "INVALID_ARGUMENT" and "by its directory, so it needs repository and path" in str(err)
    python = indexed("python")
    err = python.refusal("get_symbol", repository=python.name, path="pkg", qualified_name="<package>")
    assert err.code == "SYMBOL_NOT_FOUND" and "holds no Go file" in str(err)


# -- Rust's `::` --------------------------------------------------------------------------------------


def test_a_rust_name_answers_to_dots_and_double_colons_and_prints_double_colons(indexed: Callable[[str], Indexed]):
    it = indexed("rust")
    keys: set[str] = set()
    for spelling in ("Stack::push", "Stack.push"):
        found = it.ask("get_symbol", repository=it.name, path="src/lib.rs", qualified_name=spelling)["results"]
        assert found["qualified_name"] == "Stack::push"
        keys.add(found["stable_key"])
        listed = it.ask("find_symbol", name=spelling, mode="qualified_exact", view="full")["results"]["symbols"]
        assert [s["stable_key"] for s in listed] == [found["stable_key"]]
    assert len(keys) == 1
    deep = {it.ask("get_symbol", qualified_name=q)["results"]["stable_key"] for q in ("inner::deep", "inner.deep")}
    assert len(deep) == 1
    references = it.ask("find_references", qualified_name="Stack.push", view="full")["results"]
    assert references["subject"]["qualified_name"] == "Stack::push"
    # Only Rust names are respelled: a name no symbol carries is still absent either way.
    err = it.refusal("get_symbol", qualified_name="Stack::pop")
    assert err.code == "SYMBOL_NOT_FOUND"


# -- one shape per question -----------------------------------------------------------------------------


def test_find_symbol_has_one_shape_in_both_views_and_when_empty(indexed: Callable[[str], Indexed]):
    it = indexed("python")
    compact = it.ask("find_symbol", name="helper")["results"]
    full = it.ask("find_symbol", name="helper", view="full")["results"]
    assert isinstance(compact, dict) and isinstance(full, dict)
    assert [s["at"] for s in compact["symbols"]] == ["pkg/util.py:1"]
    assert [(s["file_path"], s["start_line"]) for s in full["symbols"]] == [("pkg/util.py", 1)]
    for view in ("compact", "full"):
        assert it.ask("find_symbol", name="nothing_is_called_this", view=view)["results"] == {"symbols": []}


def test_three_uses_by_one_symbol_are_one_row_that_says_their_lines(indexed: Callable[[str], Indexed]):
    for language, path, qualified_name, owner in (("python", "pkg/util.py", "helper", "main@4-7"),
                                                  ("go", "log/log.go", "Helper", "main@5-10")):  # fmt: skip
        it = indexed(language)
        selector = {"repository": it.name, "path": path, "qualified_name": qualified_name}
        full = it.ask("find_references", **selector, view="full")["results"]["references"]
        assert len(full) == 1
        lines = full[0]["lines"]
        assert len(lines) == 3 == len(set(lines)) and lines == sorted(lines)
        compact = it.ask("find_references", **selector)["results"]
        assert compact["repository"] == it.name
        labels = [entry if isinstance(entry, str) else entry[0] for entry in rows_by_file(compact)[it.case.importer]]
        assert labels == [f"{owner}:{','.join(map(str, lines))}"]


def test_every_files_view_spells_paths_relative_to_the_repository_it_states(indexed: Callable[[str], Indexed]):
    it = indexed("go")
    references = it.ask("find_references", repository=it.name, path="log/log.go", qualified_name="Helper",
                        view="files")["results"]  # fmt: skip
    assert references["repository"] == it.name
    assert references["files"] == [{"file": "cmd/app/main.go", "count": 1}]  # one user, three lines
    outline = it.ask("get_file_outline", repository=it.name, path="log", view="files")["results"]
    assert outline["repository"] == it.name
    assert outline["files"] == [{"file": "log/level.go", "declarations": 2}, {"file": "log/log.go", "declarations": 4},
                                {"file": "log/log_test.go", "declarations": 2}]  # fmt: skip


def test_a_file_of_another_repository_names_it_beside_the_path():
    rows = [{"repository": "a", "file_path": "x.go"}, {"repository": "b", "file_path": "x.go"},
            {"repository": "a", "file_path": "x.go"}]  # fmt: skip
    assert file_entries(rows, "count", "a") == [{"file": "x.go", "count": 2}, {"file": "x.go", "repo": "b", "count": 1}]
    assert file_entries(rows, "count", None) == [{"file": "x.go", "repo": "a", "count": 2},
                                                 {"file": "x.go", "repo": "b", "count": 1}]  # fmt: skip


def test_a_label_keeps_the_lines_only_where_a_row_has_them():
    row = {"qualified_name": "main", "start_line": 10, "end_line": 14}
    assert label(row) == "main@10-14"
    assert label({**row, "lines": [12]}) == "main@10-14:12"
    assert label({**row, "lines": [11, 12, 13]}) == "main@10-14:11,12,13"
    assert label({**row, "end_line": 10, "lines": [10]}) == "main@10:10"


# -- through the CLI and the MCP server ----------------------------------------------------------------


def test_kivgraph_query_takes_module_and_a_rust_dotted_name(indexed: Callable[[str], Indexed]):
    for language, arguments, expected in (
        ("typescript", ["repository={repo}", "path=src/util.ts", "qualified_name=<module>"], ("src/util.ts", "module")),
        ("rust", ["repository={repo}", "qualified_name=inner.deep"], ("src/store.rs", "function")),
    ):  # fmt: skip
        it = indexed(language)
        args = [part for a in arguments for part in ("--arg", a.replace("{repo}", it.name))]
        result = CliRunner().invoke(cli, ["query", "get_symbol", *args, "--repo", str(it.repo.path)])
        assert result.exit_code == 0, result.output
        found = json.loads(result.stdout)["results"]
        assert (found["file_path"], found["kind"]) == expected


def test_the_mcp_server_resolves_module_and_package_and_refuses_a_package_of_several_files(
    indexed: Callable[[str], Indexed],
):
    it = indexed("go")

    async def go() -> list[tuple[bool, str]]:
        async with Client(in_process(it.catalog)) as client:
            texts: list[tuple[bool, str]] = []
            for tool, arguments in (
                ("get_symbol", {"repository": it.name, "path": "log/level.go", "qualified_name": "<module>"}),
                ("get_symbol", {"repository": it.name, "path": "log", "qualified_name": "<package>"}),
                ("get_blast_radius", {"repository": it.name, "path": "log", "qualified_name": "<package>"}),
                ("find_symbol", {"name": "Logger", "view": "full"}),
            ):
                result = await client.call_tool(tool, arguments)
                texts.append((bool(result.is_error), result.content[0].text))  # type: ignore[union-attr]
            return texts

    (_, module), (_, package), (refused, refusal), (_, found) = anyio.run(go)
    assert json.loads(module)["results"]["stable_key"] == it.module_key("log/level.go")
    assert [f["file_path"] for f in json.loads(package)["results"]["files"]] == ["log/level.go", "log/log.go"]
    assert refused and refusal.startswith('AMBIGUOUS_SYMBOL: "<package>" at ')
    assert [s["qualified_name"] for s in json.loads(found)["results"]["symbols"]] == ["Logger"]
