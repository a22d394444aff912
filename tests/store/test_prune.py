"""`kivgraph notes prune`: the notes of the default branch's last N first-parent commits (and of
tags) stay, the rest go in one parentless notes commit, pushed with a lease so that a note pushed
meanwhile is merged in, never lost. Real git, bare remotes over file://."""

import json
import random
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pygit2
import pytest
from click.testing import CliRunner

import kivgraph.store.prune as prune
from kivgraph.cli import cli
from kivgraph.errors import InvalidArgumentError, NotesError
from kivgraph.store import NOTES_REF
from kivgraph.store.git import open_repository
from kivgraph.store.notes import NotesStore
from kivgraph.store.prune import DEFAULT_KEEP, prune_notes
from kivgraph.store.sync import push_notes
from tests.conftest import Repo, git

SIZE = 20_000


@pytest.fixture(autouse=True)
def isolated_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")


def noise(seed: int) -> bytes:
    return random.Random(seed).randbytes(SIZE)


@dataclass
class Hub:
    """A bare origin whose main is c0 … c4, a merge of f0 f1 (branched at c2), then c5 c6; every
    commit but c6 noted."""

    root: Path
    bare: Path
    main: list[str]
    """First-parent history of main, newest first: c6 c5 merge c4 c3 c2 c1 c0."""
    side: list[str]
    """f0, f1: reached from main only through the merge's second parent."""

    def clone(self, name: str, *options: str) -> Path:
        git(self.root, "clone", "-q", *options, f"file://{self.bare}", name)
        return self.root / name

    def notes(self, path: Path | None = None) -> dict[str, bytes]:
        store = NotesStore(open_repository(str(path or self.bare)))
        return {n.commit: store.blob(n.blob) for n in store.entries()}


@pytest.fixture
def hub(tmp_path: Path) -> Hub:
    origin = Repo(tmp_path / "origin")
    c = [origin.commit({f"c{i}.txt": str(i)}, f"c{i}") for i in range(3)]
    origin.git("checkout", "-q", "-b", "feature")
    f = [origin.commit({f"f{i}.txt": str(i)}, f"f{i}") for i in range(2)]
    origin.git("checkout", "-q", "main")
    c += [origin.commit({f"c{i}.txt": str(i)}, f"c{i}") for i in (3, 4)]
    origin.git("merge", "-q", "--no-ff", "-m", "merge feature", "feature")
    merge = origin.git("rev-parse", "HEAD")
    c += [origin.commit({f"c{i}.txt": str(i)}, f"c{i}") for i in (5, 6)]
    store = NotesStore(open_repository(str(origin.path)))
    for seed, commit in enumerate([*c[:6], merge, *f]):
        store.write(commit, noise(seed))
    git(tmp_path, "clone", "-q", "--bare", str(origin.path), "hub.git")
    origin.git("push", "-q", str(tmp_path / "hub.git"), NOTES_REF)
    main = [c[6], c[5], merge, c[4], c[3], c[2], c[1], c[0]]
    return Hub(tmp_path, tmp_path / "hub.git", main, f)


def parents(path: Path, ref: str = NOTES_REF) -> list[str]:
    return git(path, "rev-list", "--parents", "-n1", ref).split()[1:]


def tip(path: Path, ref: str = NOTES_REF) -> str:
    return git(path, "rev-parse", ref)


def test_prune_keeps_the_notes_of_the_last_n_first_parent_commits_only(hub: Hub):
    clone = hub.clone("ci")
    before = hub.notes()

    result = prune_notes(str(clone), "origin", keep=4)

    # c6 (no note), c5, the merge, c4: the feature commits are not first-parent and go too.
    kept = set(hub.main[1:4])
    assert set(hub.notes()) == kept
    assert {note.commit for note in result.dropped} == set(before) - kept
    assert all(note.size == SIZE for note in result.dropped) and len(result.kept) == 3
    assert hub.notes() == {commit: before[commit] for commit in kept}
    assert result.pushed and result.attempts == 1 and result.branch == "refs/remotes/origin/main"
    # One notes commit without parents, here and on the remote.
    assert parents(hub.bare) == [] and tip(hub.bare) == tip(clone) == result.notes_commit
    assert git(hub.bare, "rev-list", "--count", NOTES_REF) == "1"


def test_pruning_again_with_nothing_to_drop_changes_nothing(hub: Hub):
    clone = hub.clone("ci")
    prune_notes(str(clone), "origin", keep=4)
    pruned = tip(hub.bare)

    again = prune_notes(str(clone), "origin", keep=4)

    assert again.dropped == () and again.notes_commit is None and not again.pushed and again.attempts == 0
    assert tip(hub.bare) == pruned


def test_keep_tags_keeps_the_notes_of_tagged_commits_too(hub: Hub):
    author = hub.clone("author")
    git(author, "tag", "-a", "v0.1", "-m", "release", hub.main[6])  # c1, annotated
    git(author, "tag", "side", hub.side[0])  # f0, lightweight
    git(author, "push", "-q", "origin", "v0.1", "side")
    clone = hub.clone("ci")
    git(clone, "tag", "-d", "v0.1", "side")  # the remote's tags count even when this clone lacks them

    result = prune_notes(str(clone), "origin", keep=2, keep_tags=True)

    assert set(hub.notes()) == {hub.main[1], hub.main[6], hub.side[0]}
    assert result.tagged == 2


def test_a_dry_run_lists_what_would_go_with_sizes_and_changes_no_notes(hub: Hub):
    clone = hub.clone("ci")
    git(clone, "fetch", "-q", "origin", f"{NOTES_REF}:{NOTES_REF}")
    local, remote = tip(clone), tip(hub.bare)

    run = CliRunner().invoke(cli, ["notes", "prune", "origin", "--keep", "3", "--dry-run", "--repo", str(clone)])

    assert run.exit_code == 0, run.output
    lines = run.output.splitlines()
    assert lines[0].startswith(f"would drop 7 note(s) ({7 * SIZE:,} bytes) of {NOTES_REF} on origin, keeping 2 ")
    assert sorted(lines[1:]) == sorted(f"  {commit}  {SIZE:,} bytes" for commit in [*hub.main[3:], *hub.side])
    assert (tip(clone), tip(hub.bare)) == (local, remote)


def test_the_action_spelling_prunes_and_prints_json(hub: Hub):
    clone = hub.clone("ci")
    run = CliRunner().invoke(cli, ["notes", "prune", "origin", "--keep", "2", "--json", "--repo", str(clone)])
    assert run.exit_code == 0, run.output
    printed = json.loads(run.output)
    assert printed["kept"] == {"notes": 1, "bytes": SIZE, "tagged": 0, "newer": 0}
    assert printed["dropped"]["notes"] == 8 and printed["dropped"]["bytes"] == 8 * SIZE
    assert printed["pushed"] is True and printed["remote"] == "origin"
    text = CliRunner().invoke(cli, ["notes", "prune", "--remote", "origin", "--keep", "2", "--repo", str(clone)])
    assert text.exit_code == 0 and text.output.startswith(f"nothing to prune in {NOTES_REF} on origin: 1 note(s)")


def test_a_note_pushed_for_a_kept_commit_while_pruning_is_merged_in_not_lost(hub: Hub, monkeypatch: pytest.MonkeyPatch):
    clone, writer = hub.clone("ci"), hub.clone("writer")
    real_push = prune.push_ref
    pushes: list[str | None] = []

    def push_after_another_writer(
        repo: pygit2.Repository, remote: str, ref: str, lease: str | None = None
    ) -> tuple[str, str]:
        # Between the prune's fetch and its push, an index job notes the tip (c6) and pushes.
        if not pushes:
            NotesStore(open_repository(str(writer))).write(hub.main[0], b"written meanwhile")
            assert push_notes(str(writer)).pushed
        pushes.append(lease)
        return real_push(repo, remote, ref, lease)

    monkeypatch.setattr(prune, "push_ref", push_after_another_writer)
    result = prune_notes(str(clone), "origin", keep=3)

    assert result.attempts == 2 and result.pushed and pushes[0] != pushes[1]
    assert hub.notes()[hub.main[0]] == b"written meanwhile"
    assert set(hub.notes()) == set(hub.main[:3])
    assert parents(hub.bare) == []


def test_a_pruned_remote_makes_a_fresh_fetch_small(hub: Hub, monkeypatch: pytest.MonkeyPatch):
    def fetched_bytes(name: str) -> tuple[Path, int]:
        trace = hub.root / f"{name}.pack"
        clone = hub.clone(name)
        monkeypatch.setenv("GIT_TRACE_PACKFILE", str(trace))
        git(clone, "fetch", "-q", "origin", f"{NOTES_REF}:{NOTES_REF}")
        monkeypatch.delenv("GIT_TRACE_PACKFILE")
        return clone, trace.stat().st_size

    dropped = {n.blob for n in NotesStore(open_repository(str(hub.bare))).entries()}
    _, before = fetched_bytes("before")
    prune_notes(str(hub.clone("ci")), "origin", keep=3)
    kept = {n.blob for n in NotesStore(open_repository(str(hub.bare))).entries()}
    fresh, after = fetched_bytes("after")

    assert before > 9 * SIZE and 2 * SIZE < after < 3 * SIZE, (before, after)
    present = {blob for blob in dropped if subprocess.run(["git", "cat-file", "-e", blob], cwd=fresh).returncode == 0}
    assert present == kept


def test_a_shallow_checkout_is_deepened_to_see_n_commits(hub: Hub):
    clone = hub.clone("ci", "--depth", "1")

    result = prune_notes(str(clone), "origin", keep=4)

    assert result.deepened and set(hub.notes()) == set(hub.main[1:4])


def test_pruning_only_this_clone_follows_origin_head_whatever_is_checked_out(hub: Hub):
    clone = hub.clone("dev")
    git(clone, "fetch", "-q", "origin", f"{NOTES_REF}:{NOTES_REF}")
    git(clone, "checkout", "-q", "-b", "elsewhere", hub.side[1])
    remote = tip(hub.bare)

    result = prune_notes(str(clone), keep=3)

    assert result.branch == "refs/remotes/origin/main" and result.remote == "" and not result.pushed
    assert set(hub.notes(clone)) == set(hub.main[1:3])
    assert parents(clone) == [] and tip(hub.bare) == remote


def test_a_repository_without_origin_prunes_by_main(tmp_path: Path):
    repo = Repo(tmp_path / "solo")
    commits = [repo.commit({"a.txt": str(i)}) for i in range(4)]
    repo.git("checkout", "-q", "-b", "topic", commits[1])
    store = NotesStore(open_repository(str(repo.path)))
    for seed, commit in enumerate(commits):
        store.write(commit, noise(seed))

    result = prune_notes(str(repo.path), keep=2)

    assert result.branch == "refs/heads/main"
    assert {n.commit for n in NotesStore(open_repository(str(repo.path))).entries()} == set(commits[2:])


def test_notes_of_commits_newer_than_the_branch_tip_stay(tmp_path: Path):
    repo = Repo(tmp_path / "solo")
    commits = [repo.commit({"a.txt": str(i)}) for i in range(3)]
    repo.git("checkout", "-q", "-b", "ahead")
    ahead = repo.commit({"b.txt": "b"})
    store = NotesStore(open_repository(str(repo.path)))
    for seed, commit in enumerate([*commits, ahead]):
        store.write(commit, noise(seed))

    result = prune_notes(str(repo.path), keep=1, branch="main")

    assert result.newer == 1
    assert {n.commit for n in NotesStore(open_repository(str(repo.path))).entries()} == {commits[2], ahead}


@pytest.mark.parametrize("keep", [0, -3])
def test_a_keep_below_one_is_a_usage_error(hub: Hub, keep: int):
    clone = hub.clone("ci")
    with pytest.raises(InvalidArgumentError, match=f"--keep must be at least 1 .*not {keep}"):
        prune_notes(str(clone), "origin", keep=keep)
    run = CliRunner().invoke(cli, ["notes", "prune", "origin", "--keep", str(keep), "--repo", str(clone)])
    assert run.exit_code == 2 and "--keep must be at least 1" in run.output
    assert len(hub.notes()) == 9


def test_an_unknown_branch_is_named_in_the_error(hub: Hub):
    clone = hub.clone("ci")
    git(clone, "fetch", "-q", "origin", f"{NOTES_REF}:{NOTES_REF}")
    with pytest.raises(InvalidArgumentError, match="remote 'origin' has no branch 'nope'"):
        prune_notes(str(clone), "origin", branch="nope")
    with pytest.raises(InvalidArgumentError, match="there is no branch 'nope' in"):
        prune_notes(str(clone), branch="nope")
    assert len(hub.notes()) == 9


def test_no_notes_ref_anywhere_is_an_error_saying_so(tmp_path: Path):
    origin = Repo(tmp_path / "origin")
    origin.commit({"a.txt": "a"})
    git(tmp_path, "clone", "-q", "--bare", str(origin.path), "hub.git")
    git(tmp_path, "clone", "-q", str(tmp_path / "hub.git"), "ci")
    with pytest.raises(NotesError, match="neither remote 'origin' nor this clone has refs/notes/kivgraph"):
        prune_notes(str(tmp_path / "ci"), "origin")
    with pytest.raises(NotesError, match="there is no refs/notes/kivgraph in .*: nothing to prune"):
        prune_notes(str(tmp_path / "ci"))


def test_a_shallow_clone_pruned_without_a_remote_refuses_instead_of_guessing(hub: Hub):
    clone = hub.clone("ci", "--depth", "2")
    git(clone, "fetch", "-q", "origin", f"{NOTES_REF}:{NOTES_REF}")
    with pytest.raises(NotesError, match=r"only 2 of the 5 first-parent commits .*\(the clone is shallow\)"):
        prune_notes(str(clone), keep=5)
    assert len(hub.notes(clone)) == 9


def test_the_default_keep_is_documented():
    assert DEFAULT_KEEP == 200
    text = (Path(__file__).parent.parent.parent / "docs" / "cli.md").read_text(encoding="utf-8")
    assert "`--keep N`" in text and "default 200" in text


def test_a_partial_clone_prunes_without_fetching_the_blobs_it_drops(hub: Hub):
    git(hub.bare, "config", "uploadpack.allowFilter", "true")
    dropped = {n.blob for n in NotesStore(open_repository(str(hub.bare))).entries()}
    clone = hub.clone("ci", "--filter=blob:none")

    result = prune_notes(str(clone), "origin", keep=4)

    assert set(hub.notes()) == set(hub.main[1:4]) and parents(hub.bare) == []
    assert all(note.size is None for note in (*result.kept, *result.dropped))
    dropped -= {n.blob for n in NotesStore(open_repository(str(hub.bare))).entries()}
    missing = git(clone, "rev-list", "--objects", "--missing=print", "--all", "refs/notes/remotes/origin/kivgraph")
    assert len(dropped) == 6 and dropped <= {line[1:] for line in missing.splitlines() if line.startswith("?")}
