"""The MCP server driven through the SDK's own client, on a real Go repository indexed with scip-go
and published to git notes: every tool answers, errors come back as `CODE: message` results."""

import json
import shutil
import subprocess
import sys
import time
import tracemalloc
from dataclasses import replace
from pathlib import Path

import anyio
import pygit2
import pytest
from mcp import Client, StdioServerParameters

from kivgraph.errors import KivgraphError
from kivgraph.graph.catalog import Catalog, run_tool
from kivgraph.graph.tools import INSTRUCTIONS, TOOL_BY_NAME, TOOLS
from kivgraph.indexing import index_repository
from kivgraph.model import FileRecord, FileStatus, Generation, Language, Symbol, SymbolKind
from kivgraph.model.keys import stable_key
from kivgraph.store import save_to_file, save_to_notes
from kivgraph.store.envelope import FORMAT_MAJOR, FORMAT_MINOR
from kivgraph.store.git import open_repository
from tests.conftest import FIXTURES, Repo
from tests.mcp_client import in_process
from tests.scip.analyzers import require


@pytest.fixture(scope="module")
def go_repo(tmp_path_factory: pytest.TempPathFactory) -> Repo:
    require("scip-go")
    repo = Repo(tmp_path_factory.mktemp("served") / "shapes")
    shutil.copytree(FIXTURES / "exact" / "go", repo.path, dirs_exist_ok=True)
    repo.commit(message="fixture")
    generation = index_repository(str(repo.path), run_analyzers=True)
    save_to_notes(open_repository(str(repo.path)), generation)
    return repo


def call(repo: Repo, tool: str, arguments: dict[str, object]) -> tuple[bool, str]:
    catalog = Catalog([str(repo.path)])
    catalog.load()

    async def go() -> tuple[bool, str]:
        async with Client(in_process(catalog)) as client:
            result = await client.call_tool(tool, arguments)
            return bool(result.is_error), result.content[0].text  # type: ignore[union-attr]

    return anyio.run(go)


def answer(repo: Repo, tool: str, arguments: dict[str, object]) -> dict[str, object]:
    failed, text = call(repo, tool, arguments)
    assert not failed, text
    return json.loads(text)


def test_the_server_lists_every_tool_with_the_seed_instructions(go_repo: Repo):
    catalog = Catalog([str(go_repo.path)])
    catalog.load()

    async def go() -> tuple[str | None, list[object]]:
        async with Client(in_process(catalog)) as client:
            return client.instructions, (await client.list_tools()).tools  # type: ignore[attr-defined]

    instructions, tools = anyio.run(go)
    assert instructions == INSTRUCTIONS
    names = {t.name for t in tools}  # type: ignore[attr-defined]
    assert names == {t.name for t in TOOLS} | {"index_project"} and len(names) == 12
    for tool in tools:
        read_only = tool.annotations.read_only_hint  # type: ignore[attr-defined]
        assert read_only is (tool.name != "index_project")  # type: ignore[attr-defined]
        assert tool.input_schema["additionalProperties"] is False  # type: ignore[attr-defined]


def test_find_references_lands_interface_calls_on_the_interface_method(go_repo: Repo):
    result = answer(go_repo, "find_references", {"repository": "shapes", "path": "shapes/shapes.go",
                                                  "qualified_name": "Shape.Area", "view": "full"})  # fmt: skip
    callers = {(r["qualified_name"], r["edge_kind"], r["confidence"]) for r in result["results"]["references"]}
    assert ("main", "CALLS_DIRECT", "EXACT_TYPECHECKED") in callers
    assert ("Total", "CALLS_DIRECT", "EXACT_TYPECHECKED") in callers
    assert result["completeness"]["verdict"] == "COMPLETE"


def test_a_bare_name_resolves_and_compact_rows_are_labels(go_repo: Repo):
    result = answer(go_repo, "find_references", {"name": "Total"})
    page = result["results"]
    assert "qn" not in page and page["subject"].startswith("shapes:shapes/shapes.go:")  # qn is the name asked
    assert page["files"][0]["file"] == "cmd/app/main.go"
    assert page["edge_kind"] == "CALLS_DIRECT" and page["confidence"] == "EXACT_TYPECHECKED"


def test_the_blast_radius_of_an_implementation_crosses_the_interface(go_repo: Repo):
    result = answer(go_repo, "get_blast_radius", {"repository": "shapes", "path": "shapes/shapes.go",
                                                   "qualified_name": "Square.Area", "view": "full"})  # fmt: skip
    reached = {(r["qualified_name"], r.get("via_interface")) for r in result["results"]["symbols"]}
    assert ("Total", "Shape.Area") in reached and ("main", "Shape.Area") in reached


def test_errors_are_results_that_start_with_their_code(go_repo: Repo):
    cases = [
        ("find_references", {"name": "Scale"}, "AMBIGUOUS_SYMBOL: "),
        ("find_references", {"name": "Nope"}, "SYMBOL_NOT_FOUND: "),
        ("get_symbol", {"repository": "shapes", "qualified_name": "NoSuchThing"}, "SYMBOL_NOT_FOUND: "),
        ("get_symbol", {"stable_key": "X", "qualified_name": "Y"}, "INVALID_ARGUMENT: "),
        ("get_symbol", {"path": "a.go", "qualified_name": "Y"}, "INVALID_ARGUMENT: "),
        ("find_symbol", {"name": "Total", "bogus": 1}, "INVALID_ARGUMENT: "),
        ("find_symbol", {"name": 3}, "INVALID_ARGUMENT: "),
        ("find_symbol", {"name": "Total", "limit": 501}, "INVALID_ARGUMENT: "),
        ("find_symbol", {"name": "Total", "view": "files"}, "INVALID_ARGUMENT: "),
        ("get_file_outline", {"repository": "elsewhere", "path": "x"}, "REPOSITORY_NOT_FOUND: "),
        ("find_symbol", {"name": "Total", "cursor": "garbage!"}, "CURSOR_INVALID: "),
        ("index_project", {}, "PERMISSION_REQUIRED: "),
    ]
    for tool, arguments, prefix in cases:
        failed, text = call(go_repo, tool, arguments)
        assert failed and text.startswith(prefix), (tool, arguments, text)


def test_a_cursor_walks_the_pages_and_refuses_another_query(go_repo: Repo):
    first = answer(go_repo, "find_symbol", {"name": "S", "mode": "prefix", "limit": 1, "view": "full"})
    assert first["total"] >= 2 and first["truncated"] is True
    second = answer(go_repo, "find_symbol", {"name": "S", "mode": "prefix", "limit": 1, "view": "full",
                                              "cursor": first["next_cursor"]})  # fmt: skip
    assert second["results"] != first["results"]
    failed, text = call(go_repo, "find_symbol", {"name": "T", "mode": "prefix", "cursor": first["next_cursor"]})
    assert failed and text.startswith("CURSOR_INVALID: ")


def test_outline_symbol_source_and_status(go_repo: Repo):
    outline = answer(go_repo, "get_file_outline", {"repository": "shapes", "path": "shapes", "view": "full"})
    files = {f["path"] for f in outline["results"]["files"]}
    assert "shapes/shapes.go" in files
    symbol = answer(go_repo, "get_symbol", {"repository": "shapes", "path": "shapes/shapes.go",
                                             "qualified_name": "Total"})  # fmt: skip
    assert symbol["results"]["kind"] == "function" and symbol["total"] == 1
    failed, text = call(go_repo, "get_source", {"symbols": [{"repository": "shapes", "path": "shapes/shapes.go",
                                                             "qualified_name": "Total"}]})  # fmt: skip
    assert not failed and "func Total" in text and text.startswith("snapshot ")
    status = answer(go_repo, "graph_status", {})
    assert status["results"]["status"] == "ready" and status["results"]["repositories_moved"] == 0
    [generation] = status["results"]["generations"]
    assert generation["format_version"] == f"{FORMAT_MAJOR}.{FORMAT_MINOR}" and generation["analyzers"]
    repositories = answer(go_repo, "list_repositories", {})
    assert repositories["results"][0]["name"] == "shapes" and repositories["results"][0]["moved"] is False


def test_the_server_over_real_stdio(go_repo: Repo):
    params = StdioServerParameters(command=sys.executable, args=["-m", "kivgraph", "serve", "--repo",
                                                                 str(go_repo.path)])  # fmt: skip

    async def go() -> tuple[int, str]:
        async with Client(params) as client:
            tools = (await client.list_tools()).tools
            result = await client.call_tool("find_symbol", {"name": "Total"})
            return len(tools), result.content[0].text  # type: ignore[union-attr]

    count, text = anyio.run(go)
    assert count == 12 and json.loads(text)["total"] == 1


def test_kivgraph_query_prints_the_same_answer(go_repo: Repo):
    done = subprocess.run(
        [sys.executable, "-m", "kivgraph", "query", "find_symbol", "--arg", "name=Total", "--repo", str(go_repo.path)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == answer(go_repo, "find_symbol", {"name": "Total"})


def test_without_a_generation_only_index_project_is_served_until_it_publishes(tmp_path: Path):
    require("scip-go")
    repo = Repo(tmp_path / "fresh")
    shutil.copytree(FIXTURES / "exact" / "go", repo.path, dirs_exist_ok=True)
    repo.commit(message="fixture")
    catalog = Catalog([str(repo.path)])
    catalog.load()

    async def go() -> tuple[list[str], str, list[str]]:
        async with Client(in_process(catalog)) as client:
            before = [t.name for t in (await client.list_tools()).tools]
            result = await client.call_tool("index_project", {"confirmed": True})
            after = [t.name for t in (await client.list_tools()).tools]
            return before, result.content[0].text, after  # type: ignore[union-attr]

    before, text, after = anyio.run(go)
    assert before == ["index_project"]
    assert json.loads(text)["repository"] == "fresh"
    assert len(after) == 12


def fresh_repo(tmp_path: Path, name: str) -> Repo:
    require("scip-go")
    repo = Repo(tmp_path / name)
    shutil.copytree(FIXTURES / "exact" / "go", repo.path, dirs_exist_ok=True)
    repo.commit(message="fixture")
    return repo


def test_index_project_asks_the_user_through_elicitation_and_reports_progress(tmp_path: Path):
    """On the 2025-11-25 protocol the server asks over the back channel and streams progress."""
    from mcp import types

    repo = fresh_repo(tmp_path, "asked")
    catalog = Catalog([str(repo.path)])
    catalog.load()
    asked: list[str] = []
    progress: list[tuple[float, str | None]] = []

    async def approve(context: object, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"confirmed": True})

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, message))

    async def go() -> str:
        async with Client(in_process(catalog), elicitation_callback=approve, mode="legacy") as client:
            result = await client.call_tool("index_project", {}, progress_callback=on_progress)
            return result.content[0].text  # type: ignore[union-attr]

    text = anyio.run(go)
    assert json.loads(text)["repository"] == "asked"
    assert asked and str(repo.path) in asked[0]
    assert progress and [p for p, _ in progress] == sorted(p for p, _ in progress)
    assert any(message and message.startswith("parse") for _, message in progress)


def test_index_project_declined_by_the_user_is_permission_denied_and_publishes_nothing(tmp_path: Path):
    """On the 2026-07-28 protocol the question rides on an input-required result; `confirmed` from
    the model does not stand in for the user's answer."""
    from mcp import types

    repo = fresh_repo(tmp_path, "declined")
    catalog = Catalog([str(repo.path)])
    catalog.load()

    async def decline(context: object, params: types.ElicitRequestParams) -> types.ElicitResult:
        return types.ElicitResult(action="decline")

    async def go() -> tuple[bool, str]:
        async with Client(in_process(catalog), elicitation_callback=decline) as client:
            result = await client.call_tool("index_project", {"confirmed": True})
            return bool(result.is_error), result.content[0].text  # type: ignore[union-attr]

    failed, text = anyio.run(go)
    assert failed and text.startswith("PERMISSION_DENIED: ")
    assert repo.git("notes", "--ref=kivgraph", "list") == ""


def test_a_running_server_follows_a_newly_published_generation_and_expires_old_cursors(tmp_path: Path, monkeypatch):
    from kivgraph.graph import catalog as catalog_module

    monkeypatch.setattr(catalog_module, "RECHECK_SECONDS", 0.0)
    repo = fresh_repo(tmp_path, "moving")
    save_to_notes(open_repository(str(repo.path)), index_repository(str(repo.path), run_analyzers=False))
    catalog = Catalog([str(repo.path)])
    catalog.load()
    first = json.loads(run_tool(catalog, TOOL_BY_NAME["find_symbol"], {"name": "S", "mode": "prefix", "limit": 1}))
    repo.commit({"shapes/extra.go": "package shapes\n\n// Spare is new.\nfunc Spare() int { return 1 }\n"})
    moved = json.loads(run_tool(catalog, TOOL_BY_NAME["list_repositories"], {}))
    assert moved["results"][0]["moved"] is True  # HEAD moved, the note is on its parent: reported, not hidden
    save_to_notes(open_repository(str(repo.path)), index_repository(str(repo.path), run_analyzers=False))
    found = json.loads(run_tool(catalog, TOOL_BY_NAME["find_symbol"], {"name": "Spare"}))
    assert found["total"] == 1 and found["snapshot_id"] != first["snapshot_id"]
    with pytest.raises(KivgraphError) as expired:
        run_tool(catalog, TOOL_BY_NAME["find_symbol"], {"name": "S", "mode": "prefix", "limit": 1,
                                                        "cursor": first["next_cursor"]})  # fmt: skip
    assert expired.value.code == "CURSOR_SNAPSHOT_EXPIRED"


def test_a_corrupt_note_is_reported_and_the_other_repositories_are_served(tmp_path: Path, go_repo: Repo):
    broken = fresh_repo(tmp_path, "broken")
    head = broken.git("rev-parse", "HEAD")
    broken.git("notes", "--ref=kivgraph", "add", "-m", "not a generation", head)
    catalog = Catalog([str(go_repo.path), str(broken.path)])
    catalog.load()
    status = json.loads(run_tool(catalog, TOOL_BY_NAME["graph_status"], {}))["results"]
    assert status["repositories"] == 1
    assert any("broken" in problem and "corrupt" in problem for problem in status["unavailable"])


def test_tool_descriptions_route_in_one_sentence_without_digits_and_stay_small():
    from kivgraph.server import INDEX_PROJECT_DESCRIPTION

    descriptions = {t.name: t.description for t in TOOLS} | {"index_project": INDEX_PROJECT_DESCRIPTION}
    assert all(not any(c.isdigit() for c in d) for d in descriptions.values())
    assert all(d.count(". ") == 0 and d.endswith(".") for d in descriptions.values())
    # What a client keeps resident in the model's context: names and descriptions.
    assert sum(len(name) + len(d) for name, d in descriptions.items()) <= 1900


# -- the boundary of what is served (issue 10) ------------------------------------------------------


def python_repo(tmp_path: Path, name: str) -> Repo:
    repo = Repo(tmp_path / name)
    repo.commit({"app.py": "def handler():\n    return 1\n"})
    return repo


def publish(repo: Repo, generation: Generation | None = None) -> None:
    generation = generation or index_repository(str(repo.path), run_analyzers=False)
    save_to_notes(open_repository(str(repo.path)), generation)


def test_get_source_never_serves_the_git_directory_that_a_crafted_generation_names(tmp_path: Path):
    repo = python_repo(tmp_path, "crafted")
    repo.git("remote", "add", "origin", "https://user:SECRET-TOKEN@example.invalid/crafted.git")
    config = (repo.path / ".git" / "config").read_bytes()
    generation = index_repository(str(repo.path), run_analyzers=False)
    planted = Symbol(stable_key("crafted .git/config"), "origin", "origin", SymbolKind.VARIABLE, Language.PYTHON,
                     ".git/config", 1, config.count(b"\n"), 1, 0)  # fmt: skip
    record = FileRecord(".git/config", Language.PYTHON, str(pygit2.hash(config)), len(config), FileStatus.INDEXED)
    publish(repo, replace(generation, files=(*generation.files, record), symbols=(*generation.symbols, planted)))
    failed, text = call(repo, "get_source", {"symbols": [
        {"repository": "crafted", "path": ".git/config", "qualified_name": "origin"},
        {"repository": "crafted", "path": "app.py", "qualified_name": "handler"},
    ]})  # fmt: skip
    assert not failed
    assert "SECRET-TOKEN" not in text and "[remote" not in text
    assert "! crafted .git/config origin — '.git/config' lies in the repository's .git directory, which is never " \
           "served\n" in text  # fmt: skip
    assert "@ crafted app.py:1-2 function handler\ndef handler():\n    return 1\n" in text


def test_get_source_serves_only_files_the_file_table_records_as_indexed_source(tmp_path: Path):
    repo = python_repo(tmp_path, "skipped")
    (repo.path / "notes.txt").write_text("password = hunter2\n", encoding="utf-8")
    repo.commit(message="a file that is no source")
    generation = index_repository(str(repo.path), run_analyzers=False)
    planted = Symbol(stable_key("skipped notes.txt"), "password", "password", SymbolKind.VARIABLE, Language.PYTHON,
                     "notes.txt", 1, 1, 1, 0)  # fmt: skip
    record = FileRecord("notes.txt", Language.PYTHON, "", 19, FileStatus.SKIPPED_BINARY)
    publish(repo, replace(generation, files=(*generation.files, record), symbols=(*generation.symbols, planted)))
    failed, text = call(repo, "get_source", {"symbols": [{"repository": "skipped", "qualified_name": "password"}]})
    assert not failed
    assert "hunter2" not in text
    assert "notes.txt is recorded as skipped_binary, not as an indexed source file; it is never served" in text


def test_get_source_refuses_a_working_tree_file_that_grew_to_256_mb_quickly_and_without_reading_it(tmp_path: Path):
    repo = python_repo(tmp_path, "grown")
    publish(repo)
    with open(repo.path / "app.py", "r+b") as handle:
        handle.truncate(256 * 1024 * 1024)  # sparse: the size without the disk space
    tracemalloc.start()
    started = time.monotonic()
    failed, text = call(repo, "get_source", {"symbols": [{"repository": "grown", "qualified_name": "handler"}]})
    elapsed = time.monotonic() - started
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert not failed
    assert "! grown app.py handler — app.py is larger than 2097152 bytes, the limit of a served file" in text
    assert peak < 32 * 1024 * 1024 and elapsed < 5.0


def call_index_project(catalog: Catalog, arguments: dict[str, object]) -> tuple[bool, str]:
    async def go() -> tuple[bool, str]:
        async with Client(in_process(catalog)) as client:
            result = await client.call_tool("index_project", arguments)
            return bool(result.is_error), result.content[0].text  # type: ignore[union-attr]

    return anyio.run(go)


def docs_repo(tmp_path: Path, name: str) -> Repo:
    """A repository with no source file: indexing it runs no analyzer and takes a moment."""
    repo = Repo(tmp_path / name)
    repo.commit({"README.md": f"{name}\n", "docs/guide.md": "guide\n"})
    return repo


@pytest.mark.parametrize("where", ["another repository", "a plain directory", "a missing path", "the parent"])
def test_index_project_refuses_every_path_outside_the_served_repositories(tmp_path: Path, where: str):
    served = docs_repo(tmp_path, "served")
    other = docs_repo(tmp_path, "elsewhere")
    (tmp_path / "plain").mkdir()
    path = {"another repository": str(other.path), "a plain directory": str(tmp_path / "plain"),
            "a missing path": str(tmp_path / "missing"), "the parent": str(tmp_path)}[where]  # fmt: skip
    catalog = Catalog([str(served.path)])
    catalog.load()
    failed, text = call_index_project(catalog, {"path": path, "confirmed": True})
    assert failed and text.startswith(f"PERMISSION_DENIED: {path} is not in a repository this server serves")
    assert f"index_project indexes only {served.path} " in text
    assert other.git("notes", "--ref=kivgraph", "list") == "" and served.git("notes", "--ref=kivgraph", "list") == ""
    assert catalog.repositories == [str(served.path)] and catalog.session is None


@pytest.mark.parametrize("spelling", ["dot-dot", "symlink", "sub-directory", "trailing slash", "relative"])
def test_index_project_takes_any_spelling_of_a_served_repository(tmp_path: Path, monkeypatch, spelling: str):
    served = docs_repo(tmp_path, "served")
    (tmp_path / "link").symlink_to(served.path, target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    path = {"dot-dot": f"{served.path}/../served", "symlink": str(tmp_path / "link"),
            "sub-directory": str(served.path / "docs"), "trailing slash": f"{served.path}/",
            "relative": "served"}[spelling]  # fmt: skip
    catalog = Catalog([str(served.path)])
    catalog.load()
    failed, text = call_index_project(catalog, {"path": path, "confirmed": True})
    assert not failed, text
    assert json.loads(text)["repository"] == "served"
    assert served.git("notes", "--ref=kivgraph", "list") != ""
    assert catalog.repositories == [str(served.path)] and catalog.session is not None  # no second alias loaded


def test_index_project_reaches_the_local_members_of_the_served_workspace_and_nothing_else(tmp_path: Path):
    member = docs_repo(tmp_path, "member")
    outsider = docs_repo(tmp_path, "outsider")
    workspace = tmp_path / "kivgraph.toml"
    workspace.write_text('[[repository]]\npath = "member"\n', encoding="utf-8")
    catalog = Catalog([], workspace=str(workspace))
    catalog.load()
    failed, text = call_index_project(catalog, {"path": str(outsider.path), "confirmed": True})
    assert failed and text.startswith("PERMISSION_DENIED: ") and str(member.path) in text
    failed, text = call_index_project(catalog, {"confirmed": True})  # the default: the first served
    assert not failed and json.loads(text)["repository"] == "member"
    assert outsider.git("notes", "--ref=kivgraph", "list") == ""


def test_a_server_of_generation_files_alone_has_no_repository_to_index(tmp_path: Path):
    repo = docs_repo(tmp_path, "artifact")
    file = tmp_path / "artifact.kgen"
    save_to_file(index_repository(str(repo.path), run_analyzers=False), str(file))
    catalog = Catalog([], [(str(file), "")])
    catalog.load()
    for arguments in ({"confirmed": True}, {"path": str(repo.path), "confirmed": True}):
        failed, text = call_index_project(catalog, arguments)
        assert failed and text.startswith("PERMISSION_DENIED: this server serves no repository it can index")
    assert repo.git("notes", "--ref=kivgraph", "list") == ""


@pytest.mark.parametrize("kind", ["missing", "not a repository"])
def test_serve_fails_at_start_up_with_one_line_when_a_repository_is_missing_or_not_git(tmp_path: Path, kind: str):
    path = tmp_path / "folder"
    if kind == "not a repository":
        path.mkdir()
    done = subprocess.run([sys.executable, "-m", "kivgraph", "serve", "--repo", str(path)], stdin=subprocess.PIPE,
                          capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith(f"Error: {path} ") and done.stderr.count("\n") == 1  # the store's own sentence


def test_serve_fails_at_start_up_when_the_working_tree_of_generation_files_is_missing(tmp_path: Path):
    repo = docs_repo(tmp_path, "artifact")
    file = tmp_path / "artifact.kgen"
    save_to_file(index_repository(str(repo.path), run_analyzers=False), str(file))
    missing = tmp_path / "missing"
    command = [sys.executable, "-m", "kivgraph", "serve", "--generation", str(file), "--repo", str(missing)]
    done = subprocess.run(command, stdin=subprocess.PIPE, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 1
    why = "is not a directory; with --generation, --repo names the files' working tree."
    assert done.stderr == f"Error: {missing} {why}\n"


def test_serving_never_imports_the_indexing_pipeline_or_an_mcp_sdk():
    """The server starts on a stored generation: the analyzers, the indexing pipeline and the derived
    Rust library are for `kivgraph index`, and the MCP SDK (half a second of pydantic models) is not
    needed to speak JSON-RPC lines; importing either would cost a serving start most of its time."""
    heavy = ("kivgraph.indexing", "kivgraph.derived", "kivgraph.scip.run", "mcp", "pydantic", "anyio")
    code = "\n".join(("import sys, kivgraph.cli, kivgraph.server",
                       f"loaded = [m for m in {heavy!r} if m in sys.modules]",
                       "assert not loaded, loaded"))  # fmt: skip
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
