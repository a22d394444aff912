import subprocess
import threading
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from click.testing import CliRunner

import kivgraph.store.sync as sync
from kivgraph.cli import cli
from kivgraph.errors import InvalidArgumentError, NotesError
from kivgraph.model import Generation
from kivgraph.store import NOTES_REF, MergeReport, load_from_notes, save_to_notes
from kivgraph.store.git import open_repository
from kivgraph.store.notes import NotesStore
from kivgraph.store.sync import SyncResult, fetch_notes, push_notes, tracking_ref
from tests.conftest import Repo, git
from tests.store.test_codec import sample

JAN, FEB, MAR = (f"2026-0{m}-01T00:00:00.000000Z" for m in (1, 2, 3))
TRACKING = "refs/notes/remotes/origin/kivgraph"


def generation(commit: str, created_at: str = JAN) -> Generation:
    g = sample()
    return replace(g, header=replace(g.header, commit=commit, created_at=created_at))


def save(clone: Path, commit: str, created_at: str = JAN) -> bytes:
    return save_to_notes(open_repository(str(clone)), generation(commit, created_at))


def shown(path: Path, commit: str) -> bytes | None:
    """What `git notes --ref=kivgraph show` prints, byte for byte; None when git finds no note."""
    done = subprocess.run(["git", "notes", "--ref=kivgraph", "show", commit], cwd=path, capture_output=True)
    return done.stdout if done.returncode == 0 else None


def tip(path: Path, ref: str = NOTES_REF) -> str | None:
    done = subprocess.run(["git", "rev-parse", "--verify", "-q", ref], cwd=path, capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else None


@dataclass
class Remote:
    """A bare repository holding a few commits, and the clones made of it."""

    root: Path
    bare: Path
    commits: list[str]

    def clone(self, name: str) -> Path:
        git(self.root, "clone", "-q", str(self.bare), name)
        return self.root / name

    def hook(self, name: str, script: str) -> None:
        path = self.bare / "hooks" / name
        path.write_text("#!/bin/sh\n" + script, encoding="utf-8")
        path.chmod(0o755)


@pytest.fixture(autouse=True)
def isolated_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # sync.py runs git with the caller's environment: keep the developer's global config out.
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")


@pytest.fixture
def remote(tmp_path: Path) -> Remote:
    origin = Repo(tmp_path / "origin")
    commits = [origin.commit({f"f{i}.txt": str(i)}) for i in range(8)]
    git(tmp_path, "clone", "-q", "--bare", str(origin.path), "remote.git")
    return Remote(tmp_path, tmp_path / "remote.git", commits)


def test_fetch_into_an_empty_clone_brings_the_notes_byte_for_byte(remote: Remote):
    a, b = remote.clone("a"), remote.clone("b")
    blob = save(a, remote.commits[0])
    push_notes(str(a))
    result = fetch_notes(str(b))
    assert result == SyncResult("origin", 1, MergeReport(1, 0, 0), pushed=False, attempts=0)
    assert shown(b, remote.commits[0]) == blob
    # Nothing was written on b's side, so its ref fast-forwards to the remote's: no extra commit.
    assert tip(b) == tip(b, TRACKING) == tip(remote.bare)


def test_fetch_keeps_the_notes_of_both_sides_for_different_commits(remote: Remote):
    a, b = remote.clone("a"), remote.clone("b")
    theirs = save(a, remote.commits[0])
    push_notes(str(a))
    ours = save(b, remote.commits[1])
    result = fetch_notes(str(b))
    assert (result.fetched, result.merged.counts()) == (1, {"added": 1, "replaced": 0, "kept": 0})
    assert (shown(b, remote.commits[0]), shown(b, remote.commits[1])) == (theirs, ours)
    git(b, "merge-base", "--is-ancestor", str(tip(remote.bare)), NOTES_REF)  # raises unless a descendant


@pytest.mark.parametrize(
    ("ours_at", "theirs_at", "counts"),
    [(JAN, FEB, {"added": 0, "replaced": 1, "kept": 0}), (MAR, FEB, {"added": 0, "replaced": 0, "kept": 1})],
    ids=["theirs-newer", "ours-newer"],
)
def test_fetch_keeps_the_newer_generation_when_both_sides_noted_one_commit(
    remote: Remote, ours_at: str, theirs_at: str, counts: dict[str, int]
):
    a, b = remote.clone("a"), remote.clone("b")
    commit = remote.commits[0]
    save(a, commit, theirs_at)
    push_notes(str(a))
    save(b, commit, ours_at)
    assert fetch_notes(str(b)).merged.counts() == counts
    assert load_from_notes(open_repository(str(b)), commit).header.created_at == max(ours_at, theirs_at)


def test_a_push_rejected_because_the_remote_moved_lands_after_fetch_and_merge(remote: Remote):
    a, b = remote.clone("a"), remote.clone("b")
    first = save(a, remote.commits[0])
    assert push_notes(str(a)) == SyncResult("origin", 0, MergeReport(0, 0, 0), True, 1)
    second = save(b, remote.commits[1])
    result = push_notes(str(b))
    assert result == SyncResult("origin", 1, MergeReport(1, 0, 0), pushed=True, attempts=2)
    assert (shown(remote.bare, remote.commits[0]), shown(remote.bare, remote.commits[1])) == (first, second)
    assert tip(remote.bare) == tip(b)


def push_together(clones: list[Path]) -> list[SyncResult]:
    """push_notes from every clone at once, each in its own thread released by one barrier."""
    barrier = threading.Barrier(len(clones))
    results: list[SyncResult] = []
    errors: list[BaseException] = []

    def push(clone: Path) -> None:
        try:
            barrier.wait()
            results.append(push_notes(str(clone)))
        except BaseException as err:  # collected and asserted below
            errors.append(err)

    threads = [threading.Thread(target=push, args=(clone,)) for clone in clones]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    return results


def test_two_clones_pushing_at_once_both_land(remote: Remote):
    # The remote holds every push a moment before updating its ref, so both pushes are in flight
    # together and one of them loses the remote's compare-and-swap.
    remote.hook("pre-receive", "cat >/dev/null\nsleep 0.3\n")
    clones = [remote.clone("a"), remote.clone("b")]
    attempts: list[int] = []
    for round_ in range(3):
        commits = remote.commits[2 * round_ : 2 * round_ + 2]
        blobs = [save(clone, commit) for clone, commit in zip(clones, commits, strict=True)]
        results = push_together(clones)
        assert [result.pushed for result in results] == [True, True]
        attempts += [result.attempts for result in results]
        assert [shown(remote.bare, commit) for commit in commits] == blobs
        assert all(shown(remote.bare, commit) is not None for commit in remote.commits[: 2 * round_])
    assert max(attempts) > 1


def test_a_remote_without_notes_fetches_nothing_and_a_push_creates_them(remote: Remote):
    clone = remote.clone("a")
    assert fetch_notes(str(clone)) == SyncResult("origin", 0, MergeReport(0, 0, 0), False, 0)
    assert tip(clone) is None and tip(clone, TRACKING) is None
    blob = save(clone, remote.commits[0])
    result = push_notes(str(clone))
    assert (result.pushed, result.attempts) == (True, 1)
    assert shown(remote.bare, remote.commits[0]) == blob


def test_pushing_what_the_remote_already_has_changes_nothing(remote: Remote):
    clone = remote.clone("a")
    save(clone, remote.commits[0])
    push_notes(str(clone))
    again = push_notes(str(clone))
    assert (again.pushed, again.attempts) == (False, 1)


def test_pushing_without_local_notes_contacts_no_remote(remote: Remote):
    clone = remote.clone("a")
    git(clone, "remote", "set-url", "origin", str(remote.root / "missing.git"))
    assert push_notes(str(clone)) == SyncResult("origin", 0, MergeReport(0, 0, 0), False, 0)


@pytest.mark.parametrize("name", ["nope", "broken"])
@pytest.mark.parametrize("operation", [fetch_notes, push_notes], ids=["fetch", "push"])
def test_a_missing_or_unreachable_remote_is_reported_and_local_notes_are_untouched(remote: Remote, name, operation):
    clone = remote.clone("a")
    git(clone, "remote", "add", "broken", str(remote.root / "missing.git"))
    blob = save(clone, remote.commits[0])
    before = tip(clone)
    with pytest.raises(NotesError, match=f"remote '{name}': fatal: .* does not appear to be a git repository") as err:
        operation(str(clone), name)
    assert "\n" not in str(err.value)
    assert tip(clone) == before
    assert shown(clone, remote.commits[0]) == blob


def test_a_url_in_place_of_a_remote_name_is_refused(remote: Remote):
    clone = remote.clone("a")
    with pytest.raises(NotesError, match="pass the name of a configured remote"):
        fetch_notes(str(clone), "https://example.invalid/demo.git")


def test_a_push_declined_by_a_hook_is_reported_at_once_not_retried(remote: Remote):
    remote.hook("pre-receive", "cat >/dev/null\necho run >> hook-runs\nexit 1\n")
    clone = remote.clone("a")
    save(clone, remote.commits[0])
    with pytest.raises(NotesError, match=r"remote 'origin' refused refs/notes/kivgraph: \[remote rejected\]"):
        push_notes(str(clone))
    assert (remote.bare / "hook-runs").read_text(encoding="utf-8").splitlines() == ["run"]
    assert tip(remote.bare) is None


def test_a_push_still_rejected_after_its_last_attempt_loses_nothing(remote: Remote):
    a, b = remote.clone("a"), remote.clone("b")
    save(a, remote.commits[0])
    push_notes(str(a))
    blob = save(b, remote.commits[1])
    before = tip(b)
    with pytest.raises(NotesError, match=r"rejected after 1 attempt \(\[rejected\] \(fetch first\)\)"):
        push_notes(str(b), attempts=1)
    assert tip(b) == before and shown(b, remote.commits[1]) == blob
    assert shown(remote.bare, remote.commits[1]) is None


def test_attempts_below_one_are_refused(remote: Remote):
    with pytest.raises(InvalidArgumentError, match="attempts must be at least 1"):
        push_notes(str(remote.clone("a")), attempts=0)


def test_a_corrupt_local_notes_ref_is_refused_and_left_alone(remote: Remote):
    clone = remote.clone("a")
    blob = git(clone, "hash-object", "-w", "f0.txt")
    git(clone, "update-ref", NOTES_REF, blob)
    for operation in (fetch_notes, push_notes):
        with pytest.raises(NotesError, match="not a notes commit"):
            operation(str(clone))
    assert tip(clone) == blob
    assert tip(remote.bare) is None


def test_a_note_saved_locally_while_the_merge_runs_survives_it(remote: Remote, monkeypatch: pytest.MonkeyPatch):
    a, b = remote.clone("a"), remote.clone("b")
    theirs = save(a, remote.commits[0])
    push_notes(str(a))
    ours = save(b, remote.commits[1])
    during: list[bytes] = []
    real_merge = sync.merge_notes

    def merge_while_indexing(repo, other_ref: str, ref: str = NOTES_REF) -> dict[str, int]:
        # A concurrent `kivgraph index` in the same clone saves a note after the merge has begun.
        if not during:
            during.append(save(b, remote.commits[2], FEB))
        return real_merge(repo, other_ref, ref)

    monkeypatch.setattr(sync, "merge_notes", merge_while_indexing)
    fetch_notes(str(b))
    assert [shown(b, commit) for commit in remote.commits[:3]] == [theirs, ours, during[0]]
    assert git(b, "for-each-ref", "refs/kivgraph/") == ""  # the scratch ref is gone


def test_merging_into_an_unrelated_ref_keeps_both_tips_as_parents(remote: Remote):
    clone = remote.clone("a")
    repo = open_repository(str(clone))
    other = tracking_ref("upstream")
    save(clone, remote.commits[0])
    NotesStore(repo, other).write(remote.commits[1], b"\x00binary")
    ours_before, theirs_tip = tip(clone), tip(clone, other)
    assert sync.merge_notes(repo, other).counts() == {"added": 1, "replaced": 0, "kept": 0}
    assert git(clone, "rev-list", "--parents", "-n1", NOTES_REF).split()[1:] == [ours_before, theirs_tip]
    assert shown(clone, remote.commits[1]) == b"\x00binary"


def test_fetch_never_replaces_a_readable_note_with_a_corrupt_one_even_on_a_fast_forward(remote: Remote):
    a, b = remote.clone("a"), remote.clone("b")
    commit = remote.commits[0]
    good = save(a, commit, JAN)
    push_notes(str(a))
    fetch_notes(str(b))
    NotesStore(open_repository(str(a)), NOTES_REF).write(commit, b"corrupt")
    push_notes(str(a))
    result = fetch_notes(str(b))
    assert result.merged.counts() == {"added": 0, "replaced": 0, "kept": 1}
    assert "ours kept: the other is unreadable" in result.merged.decisions[0]
    assert shown(b, commit) == good
    # Our tip now holds the remote's as a parent, so the next push is still a fast-forward.
    assert git(b, "rev-parse", f"{NOTES_REF}^2") == tip(b, TRACKING)


def test_a_note_dated_in_the_future_loses_to_a_plausible_one_on_both_sides(remote: Remote):
    a, b = remote.clone("a"), remote.clone("b")
    commit = remote.commits[0]
    save(a, commit, "9999-01-01T00:00:00.000000Z")
    push_notes(str(a))
    fresh = save(b, commit, FEB)
    result = CliRunner().invoke(cli, ["notes", "fetch", "--repo", str(b)])
    assert result.exit_code == 0, result.output
    assert "merged: 1 kept" in result.stdout
    dated = "ours won: the other is dated 9999-01-01T00:00:00.000000Z, in the future, and is not trusted"
    assert dated in result.stdout
    assert shown(b, commit) == fresh
    push_notes(str(b))
    assert fetch_notes(str(a)).merged.counts() == {"added": 0, "replaced": 1, "kept": 0}
    assert shown(a, commit) == fresh


def test_the_generation_built_by_the_newer_kivgraph_wins_over_a_later_date(remote: Remote):
    a, b = remote.clone("a"), remote.clone("b")
    commit = remote.commits[0]
    newer = generation(commit, JAN)
    newer = replace(newer, header=replace(newer.header, indexer_version="0.2.0"))
    blob = save_to_notes(open_repository(str(a)), newer)
    push_notes(str(a))
    save(b, commit, MAR)
    result = fetch_notes(str(b))
    assert result.merged.decisions == [f"{commit[:12]}: theirs won: built by kivgraph 0.2.0 over 0.1.0"]
    assert shown(b, commit) == blob


def test_pushing_to_a_remote_that_does_not_exist_is_an_error(remote: Remote):
    clone = remote.clone("a")
    result = CliRunner().invoke(cli, ["notes", "push", "nope", "--repo", str(clone)])
    assert result.exit_code == 1
    assert "'nope' is not a configured remote nor a reachable repository" in result.output
