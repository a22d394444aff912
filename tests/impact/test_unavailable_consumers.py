"""diff-impact --workspace when a consumer cannot be read: a path that is no repository, a repository
without notes and an unreachable URL are each listed with why, and the answer is a LOWER_BOUND
(any of them could use what changed). The provider is a Python repository indexed with scip-python,
so its own answer is COMPLETE and only the unread consumers bound it."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from kivgraph.cli import cli
from kivgraph.indexing import index_repository
from kivgraph.store import save_to_notes
from kivgraph.store.git import open_repository
from tests.conftest import Repo
from tests.scip.analyzers import require

LIB = "def total():\n    return 1\n"
APP = "from lib import total\n\n\ndef main():\n    return total()\n"


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """lib (its base indexed, then a change to `total`), and a workspace naming it with three
    consumers that cannot be read."""
    require("scip-python")
    root = tmp_path_factory.mktemp("unread")
    lib = Repo(root / "lib")
    lib.commit({"lib.py": LIB, "app.py": APP}, message="base")
    save_to_notes(open_repository(str(lib.path)), index_repository(str(lib.path), run_analyzers=True))
    lib.commit({"lib.py": LIB.replace("1", "2")}, message="change total")
    (root / "plain").mkdir()
    Repo(root / "unindexed").commit({"a.py": "X = 1\n"}, message="never indexed")
    (root / "readable.toml").write_text('[[repository]]\npath = "lib"\n', encoding="utf-8")
    (root / "kivgraph.toml").write_text(
        '[[repository]]\npath = "lib"\n\n[[repository]]\npath = "plain"\n\n'
        '[[repository]]\npath = "unindexed"\nname = "billing"\n\n'
        f'[[repository]]\nurl = "file://{root}/nowhere.git"\n',
        encoding="utf-8",
    )
    return root


def diff_impact(root: Path, workspace: str, *args: str) -> str:
    result = CliRunner().invoke(
        cli,
        ["diff-impact", str(root / "lib"), "--base", "HEAD~1", "--workspace", str(root / workspace), *args],
        env={"XDG_CACHE_HOME": str(root / "cache"), "NO_COLOR": "1"},
    )
    assert result.exit_code == 0, result.output
    return result.stdout


def test_with_every_consumer_readable_the_answer_is_complete(root: Path):
    report = json.loads(diff_impact(root, "readable.toml", "--format", "json"))
    assert report["completeness"] == {"verdict": "COMPLETE"} and report["unavailable_repositories"] == []
    markdown = diff_impact(root, "readable.toml", "--format", "markdown")
    assert "**Other repositories:** the workspace lists no other repository." in markdown


def test_a_consumer_that_cannot_be_read_is_listed_with_why_and_bounds_the_answer(root: Path):
    report = json.loads(diff_impact(root, "kivgraph.toml", "--format", "json"))
    assert report["verdict"] == "IMPACT" and report["consumers_searched"] == []
    assert report["workspace"] == str(root / "kivgraph.toml")
    unread = {u["repository"]: u for u in report["unavailable_repositories"]}
    nowhere = f"file://{root}/nowhere.git"
    assert {name: u["code"] for name, u in unread.items()} == {
        str(root / "plain"): "NOT_A_REPOSITORY",
        "billing": "GENERATION_NOT_FOUND",
        nowhere: unread[nowhere]["code"],
    }
    assert unread["billing"]["location"] == str(root / "unindexed")
    assert unread[str(root / "plain")]["reason"] == (
        f"{root / 'plain'} is not inside a git repository; run kivgraph in a git checkout, or pass the path of one."
    )
    assert unread["billing"]["reason"].startswith(f"no kivgraph generation is stored for {root / 'unindexed'} ")
    assert nowhere in unread[nowhere]["reason"]
    completeness = report["completeness"]
    assert completeness["verdict"] == "LOWER_BOUND" and completeness["reasons"] == {"REPOSITORY_UNAVAILABLE": 3}
    assert [s["detail"] for s in completeness["invisible_scopes"]] == [u["reason"] for u in unread.values()]
    [total] = report["changed"]
    assert total["completeness"]["verdict"] == "LOWER_BOUND"
    assert report["notes"] == [f"consumer {name} could not be read, so its uses are not counted" for name in unread]


def test_text_and_markdown_name_each_unread_consumer_and_say_why_once(root: Path):
    markdown = diff_impact(root, "kivgraph.toml", "--format", "markdown")
    assert "no workspace is configured" not in markdown and "COMPLETE —" not in markdown
    assert "completeness **LOWER_BOUND**" in markdown
    assert (f"**Other repositories:** none was searched; `{root / 'plain'}`, `billing`, `file://{root}/nowhere.git` "
            "could not be read, so their uses are not counted.") in markdown  # fmt: skip
    assert "3 places could not be read, so there may be more uses: 3 `REPOSITORY_UNAVAILABLE`." in markdown
    plain_line = (f"- `REPOSITORY_UNAVAILABLE` {root / 'plain'} is not inside a git repository; run kivgraph in a git "
                  "checkout, or pass the path of one.")  # fmt: skip
    assert plain_line in markdown.splitlines()
    assert markdown.count("is not inside a git repository") == 1
    assert "run `kivgraph index` there." in markdown  # a reason's own code span stays one
    text = diff_impact(root, "kivgraph.toml")
    assert "· LOWER_BOUND" in text and "  note: consumer billing could not be read" in text
    assert f"    REPOSITORY_UNAVAILABLE {root / 'plain'} is not inside a git repository;" in text
    assert text.count(str(root / "plain")) == 2  # the note, and the reason


def test_an_unread_consumer_cannot_bound_a_change_that_only_adds(root: Path, tmp_path: Path):
    adder = Repo(tmp_path / "adder")
    adder.commit({"lib.py": LIB}, message="base")
    save_to_notes(open_repository(str(adder.path)), index_repository(str(adder.path), run_analyzers=True))
    adder.commit({"lib.py": LIB + "\n\ndef fresh():\n    return 3\n"}, message="add")
    (tmp_path / "kivgraph.toml").write_text(f'[[repository]]\npath = "{root / "plain"}"\n', encoding="utf-8")
    result = CliRunner().invoke(cli, ["diff-impact", str(adder.path), "--base", "HEAD~1", "--format", "json",
                                      "--workspace", str(tmp_path / "kivgraph.toml")])  # fmt: skip
    report = json.loads(result.stdout)
    assert [c["change"] for c in report["changed"]] == ["added"]
    assert report["completeness"] == {"verdict": "COMPLETE"}  # nothing could use `fresh` before it existed
    assert [u["code"] for u in report["unavailable_repositories"]] == ["NOT_A_REPOSITORY"]
