"""The working-tree overlay of `kivgraph serve`, over real stdio with the SDK's client: a call added
in a saved file is a new caller (marked overlay) within 2 s, removed again it is gone, a renamed
function is found by its new name and not its old, and once the change is committed and indexed
the overlay is empty and the rows exact again."""

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

import anyio
from click.testing import CliRunner
from mcp import Client, StdioServerParameters

from kivgraph.cli import cli
from tests.conftest import Repo

SHAPES = "def area(w, h):\n    return w * h\n\n\ndef total():\n    return area(1, 2)\n"
USER = "from shapes import area\n\n\ndef big():\n    return 1\n"
DEADLINE = 2.0
HEAD_MOVED = 10.0
"""A moved HEAD or a new note is looked for every RECHECK_SECONDS (graph/catalog.py), not watched."""


def index(repo: Repo) -> None:
    result = CliRunner().invoke(cli, ["index", str(repo.path), "--no-analyzers"])
    assert result.exit_code == 0, result.output


def test_answers_follow_the_edits_and_commit_and_index_empties_the_overlay(make_repo):
    repo = make_repo({"shapes.py": SHAPES, "user.py": USER})
    index(repo)
    params = StdioServerParameters(command=sys.executable, args=["-m", "kivgraph", "serve", "--repo", str(repo.path)])

    async def go() -> None:
        async with Client(params) as client:

            async def ask(tool: str, arguments: dict[str, object]) -> tuple[bool, str]:
                result = await client.call_tool(tool, arguments)
                return bool(result.is_error), result.content[0].text  # type: ignore[union-attr]

            async def until(tool: str, arguments: dict[str, object], done: Callable[[bool, str], bool],
                            deadline: float = DEADLINE) -> float:  # fmt: skip
                started = time.monotonic()
                while True:
                    failed, text = await ask(tool, arguments)
                    if done(failed, text):
                        return time.monotonic() - started
                    assert time.monotonic() - started < deadline, text
                    await anyio.sleep(0.05)

            def callers(text: str) -> str:
                return json.dumps(json.loads(text)["results"])

            _, text = await ask("find_references", {"name": "area"})
            assert "big" not in callers(text)

            Path(repo.path, "user.py").write_text(USER.replace("return 1", "return area(10, 10)"), encoding="utf-8")
            took = await until("find_references", {"name": "area"}, lambda _, t: "big@" in callers(t))
            _, text = await ask("find_references", {"name": "area"})
            answer = json.loads(text)
            assert any(f.get("overlay") for f in answer["results"]["files"] if f["file"] == "user.py"), text
            assert answer["completeness"]["verdict"] == "LOWER_BOUND" and "user.py" in json.dumps(
                answer["completeness"]
            )
            assert took < DEADLINE

            Path(repo.path, "user.py").write_text(USER, encoding="utf-8")
            await until("find_references", {"name": "area"}, lambda _, t: "big@" not in callers(t))

            Path(repo.path, "extra.py").write_text("from shapes import area\n\n\ndef more():\n    return area(3, 3)\n")
            await until("find_references", {"name": "area"}, lambda _, t: "more@" in callers(t))
            Path(repo.path, "extra.py").unlink()
            await until("find_references", {"name": "area"}, lambda _, t: "more@" not in callers(t))

            Path(repo.path, "shapes.py").write_text(SHAPES.replace("area", "surface"), encoding="utf-8")
            await until("get_symbol", {"qualified_name": "surface"}, lambda failed, _: not failed)
            failed, text = await ask("get_symbol", {"qualified_name": "area"})
            assert failed and text.startswith("SYMBOL_NOT_FOUND") and "working tree" in text and "shapes.py" in text
            _, status = await ask("graph_status", {})
            listed = json.loads(status)["results"]["overlay"]
            assert {row["path"] for row in listed} == {"shapes.py"} and listed[0]["age_seconds"] >= 0

            Path(repo.path, "user.py").write_text(USER.replace("area", "surface"), encoding="utf-8")
            repo.commit(message="rename area to surface")

            def laid_over_the_indexed_ancestor(_: bool, text: str) -> bool:  # HEAD moved to a commit without a note
                results = json.loads(text)["results"]
                return results["repositories_moved"] == 1 and {r["path"] for r in results["overlay"]} == {
                    "shapes.py", "user.py"}  # fmt: skip

            await until("graph_status", {}, laid_over_the_indexed_ancestor, HEAD_MOVED)
            index(repo)

            def exact(_: bool, text: str) -> bool:
                return (
                    json.loads(text)["results"]["overlay"] == []
                    and json.loads(text)["results"]["repositories_moved"] == 0
                )

            await until("graph_status", {}, exact, HEAD_MOVED)
            _, text = await ask("find_references", {"name": "surface"})
            assert "overlay" not in text and "WORKING_TREE_EDIT" not in text

    anyio.run(go)


def test_no_overlay_answers_from_the_generation_alone(make_repo):
    repo = make_repo({"shapes.py": SHAPES, "user.py": USER})
    index(repo)
    Path(repo.path, "user.py").write_text(USER.replace("return 1", "return area(10, 10)"), encoding="utf-8")
    args = ["-m", "kivgraph", "serve", "--repo", str(repo.path), "--no-overlay"]

    async def go() -> str:
        async with Client(StdioServerParameters(command=sys.executable, args=args)) as client:
            result = await client.call_tool("find_references", {"name": "area"})
            return result.content[0].text  # type: ignore[union-attr]

    text = anyio.run(go)
    assert "big@" not in text and "overlay" not in text


def test_a_name_git_cannot_spell_is_no_edit_and_a_deleted_file_is(make_repo):
    from kivgraph.graph.catalog import Catalog

    repo = make_repo(
        {"shapes.py": SHAPES, "user.py": USER, b"caf\xe9.py".decode("utf-8", "surrogateescape"): "x = 1\n"}
    )
    index(repo)
    Path(repo.path, "user.py").unlink()
    (repo.path / b"caf\xe9.py".decode("utf-8", "surrogateescape")).write_text("x = 2\n", encoding="utf-8")
    catalog = Catalog([str(repo.path)], overlay=True)
    catalog.load()
    [(name, edits)] = catalog.overlaid.items()
    assert [(e.path, e.deleted) for e in edits] == [("user.py", True)] and not catalog.problems


def test_a_name_the_watcher_cannot_decode_does_not_stop_the_overlay(make_repo):
    from kivgraph.graph.catalog import Catalog

    odd = b"caf\xe9.py".decode("utf-8", "surrogateescape")
    repo = make_repo({"shapes.py": SHAPES, "user.py": USER, odd: "x = 1\n"})
    index(repo)
    catalog = Catalog([str(repo.path)], overlay=True)
    catalog.load()
    catalog.watch()
    time.sleep(1.0)
    (repo.path / odd).write_text("x = 2\n", encoding="utf-8")  # watchfiles fails on this name's event
    time.sleep(2.0)
    Path(repo.path, "user.py").write_text(USER.replace("return 1", "return area(1, 1)"), encoding="utf-8")
    started = time.monotonic()
    while not catalog.overlaid and time.monotonic() - started < 10:
        time.sleep(0.1)
    assert [e.path for edits in catalog.overlaid.values() for e in edits] == ["user.py"]
