"""The git boundary on the repositories real users have: submodules, deep trees, partial clones,
notes refs that are not ours to write, stale locks, and a corrupt note on HEAD."""

import json
import os
import time
from pathlib import Path

import pygit2
import pytest
from click.testing import CliRunner

from kivgraph.cli import cli
from kivgraph.graph.load import load_repository
from kivgraph.store import NOTES_REF
from tests.conftest import Repo, git

PY = {
    "app.py": "from lib import helper\n\n\ndef main():\n    return helper()\n",
    "lib.py": "def helper():\n    return 1\n",
}


def run(*args: str):
    return CliRunner().invoke(cli, list(args))


@pytest.fixture(autouse=True)
def isolated_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # kivgraph runs git with the caller's environment: keep the developer's global config out.
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")


@pytest.fixture
def with_submodule(make_repo) -> tuple[Repo, Repo]:
    sub = make_repo({"vendored.py": "def inner():\n    return 2\n"}, name="sub")
    top = make_repo(PY, name="top")
    top.git("-c", "protocol.file.allow=always", "submodule", "-q", "add", str(sub.path), "third_party/sub")
    top.commit(message="add a submodule")
    return top, sub


def test_a_submodule_is_recorded_and_skipped_not_fatal(with_submodule):
    top, sub = with_submodule
    result = run("index", str(top.path), "--no-analyzers")
    assert result.exit_code == 0, result.output
    shown = json.loads(run("show", "--repo", str(top.path), "--json").stdout)
    assert shown["submodules"] == [
        {"path": "third_party/sub", "commit": sub.git("rev-parse", "HEAD"), "url": str(sub.path)}
    ]
    assert shown["languages"] == {"python": {"files": 2, "symbols": 4}}  # two modules, two functions
    text = run("show", "--repo", str(top.path)).stdout
    assert "submodules (recorded, not indexed)" in text and "third_party/sub" in text


def test_a_checked_out_submodule_is_skipped_by_worktree_indexing_and_indexes_as_its_own_repository(
    with_submodule, tmp_path: Path
):
    top, _ = with_submodule
    out = tmp_path / "wt.kgen"
    result = run("index", str(top.path), "--no-analyzers", "--worktree", "--out", str(out))
    assert result.exit_code == 0, result.output
    shown = json.loads(run("show", "--generation", str(out), "--json").stdout)
    assert [m["path"] for m in shown["submodules"]] == ["third_party/sub"]
    assert shown["counts"]["files"] == 2
    # When the user asks, the checked-out submodule is a repository of its own.
    own = run("index", str(top.path / "third_party" / "sub"), "--no-analyzers")
    assert own.exit_code == 0, own.output
    assert "Indexed sub" in own.stdout


def test_a_tree_nested_deeper_than_libgit2_walks_indexes(make_repo, tmp_path: Path):
    deep = "/".join(["d"] * 120) + "/deep.py"
    repo = make_repo({deep: "def buried():\n    return 3\n", **PY})
    result = run("index", str(repo.path), "--no-analyzers")
    assert result.exit_code == 0, result.output
    out = tmp_path / "deep.kgen"
    result = run("index", str(repo.path), "--no-analyzers", "--worktree", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert json.loads(run("show", "--generation", str(out), "--json").stdout)["counts"]["files"] == 3


@pytest.fixture
def partial_clone(make_repo, tmp_path: Path) -> tuple[Path, list[str]]:
    """A blob:none clone over file:// of a repository whose notes are on its server."""
    origin = make_repo(name="origin")
    commits = [origin.commit({"lib.py": f"def helper():\n    return {i}\n", f"m{i}.py": "import lib\n\n\n"
                              f"def use{i}():\n    return lib.helper()\n"}) for i in range(3)]  # fmt: skip
    for commit in commits[:2]:
        assert run("index", str(origin.path), "--no-analyzers", "--commit", commit).exit_code == 0
    git(tmp_path, "clone", "-q", "--bare", str(origin.path), "server.git")
    git(tmp_path / "server.git", "config", "uploadpack.allowFilter", "true")
    origin.git("push", "-q", str(tmp_path / "server.git"), NOTES_REF)
    git(tmp_path, "clone", "-q", "--filter=blob:none", f"file://{tmp_path / 'server.git'}", "partial")
    return tmp_path / "partial", commits


def missing_objects(path: Path) -> int:
    return sum(line.startswith("?") for line in git(path, "rev-list", "--objects", "--missing=print", "--all")
               .splitlines())  # fmt: skip


def test_a_partial_clone_indexes_an_old_commit_by_fetching_its_blobs(partial_clone):
    path, commits = partial_clone
    assert missing_objects(path) > 0
    result = run("index", str(path), "--no-analyzers", "--commit", commits[0], "--out", str(path.parent / "old.kgen"))
    assert result.exit_code == 0, result.output
    shown = json.loads(run("show", "--generation", str(path.parent / "old.kgen"), "--json").stdout)
    assert shown["commit"] == commits[0] and shown["counts"]["files"] == 2


def test_a_partial_clone_fetches_notes_and_answers_diff_impact(partial_clone):
    path, commits = partial_clone
    fetched = run("notes", "fetch", "--repo", str(path))
    assert fetched.exit_code == 0, fetched.output
    assert "2 notes on the remote; merged: 2 added" in fetched.stdout
    assert json.loads(run("show", commits[1], "--repo", str(path), "--json").stdout)["commit"] == commits[1]
    assert missing_objects(path) > 0  # the base's blobs are still not here: diff-impact fetches what it reads
    impact = run("diff-impact", str(path), "--base", commits[1], "--head", commits[2], "--format", "json")
    assert impact.exit_code == 0, impact.output
    changed = {s["qualified_name"] for s in json.loads(impact.stdout)["changed"]}
    assert {"helper", "use2"} <= changed


def test_a_symbolic_notes_ref_is_refused_and_the_branch_it_names_never_moves(make_repo):
    repo = make_repo(PY)
    branch = repo.git("rev-parse", "refs/heads/main")
    repo.git("symbolic-ref", NOTES_REF, "refs/heads/main")
    result = run("index", str(repo.path), "--no-analyzers")
    assert result.exit_code == 1
    assert f"{NOTES_REF} is a symbolic ref to refs/heads/main, not a notes commit" in result.output
    assert repo.git("rev-parse", "refs/heads/main") == branch
    assert repo.git("symbolic-ref", NOTES_REF) == "refs/heads/main"


def test_a_notes_ref_on_a_tag_or_on_a_branch_commit_is_refused_naming_what_it_points_at(make_repo):
    repo = make_repo(PY)
    repo.git("tag", "-a", "v1", "-m", "release")
    repo.git("update-ref", NOTES_REF, repo.git("rev-parse", "v1"))
    result = run("index", str(repo.path), "--no-analyzers")
    assert result.exit_code == 1
    assert "the annotated tag 'v1' (a tag object, not a commit)" in result.output
    repo.git("update-ref", NOTES_REF, repo.git("rev-parse", "HEAD"))
    result = run("index", str(repo.path), "--no-analyzers")
    assert result.exit_code == 1 and "whose tree is not a notes tree" in result.output
    assert repo.git("rev-parse", NOTES_REF) == repo.git("rev-parse", "HEAD")


def test_a_stale_notes_lock_is_named_with_how_to_remove_it(make_repo):
    repo = make_repo(PY)
    lock = repo.path / ".git" / "refs" / "notes" / "kivgraph.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    lock.write_text("", encoding="utf-8")
    old = time.time() - 600
    os.utime(lock, (old, old))
    result = run("index", str(repo.path), "--no-analyzers")
    assert result.exit_code == 1
    assert f"the lock file {lock} has been there for" in result.output
    assert f"rm {lock}" in result.output


def test_a_corrupt_note_on_head_falls_back_to_the_nearest_readable_ancestor(make_repo):
    repo = make_repo(PY)
    indexed = repo.git("rev-parse", "HEAD")
    assert run("index", str(repo.path), "--no-analyzers").exit_code == 0
    head = repo.commit({"more.py": "def more():\n    return 4\n"})
    blob = git(repo.path, "hash-object", "-w", "--stdin", data=b"not a generation")
    repo.git("notes", "--ref=kivgraph", "add", "-C", blob, head)
    loaded = load_repository(str(repo.path))
    assert loaded.freshness.indexed_commit == indexed and loaded.freshness.moved
    assert "1 commit later" in loaded.freshness.detail
    assert f"passed over: the generation stored for commit {head[:12]} in {NOTES_REF} is corrupt" in (
        loaded.freshness.detail
    )
    answer = run("query", "list_repositories", "--repo", str(repo.path))
    assert answer.exit_code == 0, answer.output
    listed = json.loads(answer.stdout)["results"][0]
    assert listed["indexed_commit"] == indexed and listed["moved"]
    assert "passed over: the generation stored for commit" in listed["moved_detail"]


def test_a_blob_is_read_from_the_object_database_and_anything_else_is_named(make_repo):
    """Sources are read from the object database (half the time of a Blob object's `data` on the
    monorepo bench); an object that is not a blob, or that the clone lacks, is an error naming it."""
    from kivgraph.errors import GitFailedError
    from kivgraph.store.git import open_repository, read_blob

    repo = make_repo(PY)
    handle = open_repository(str(repo.path))
    tree = handle.head.peel(pygit2.Commit).tree
    assert read_blob(handle, str(tree["lib.py"].id)) == PY["lib.py"].encode()
    with pytest.raises(GitFailedError, match=f"object {str(tree.id)[:12]} is not a blob"):
        read_blob(handle, str(tree.id))
    with pytest.raises(GitFailedError, match="object 0123456789ab is missing from the object database"):
        read_blob(handle, "0123456789ab" + "0" * 28)
