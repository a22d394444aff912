import subprocess
import threading

import pygit2
import pytest

from kivgraph.errors import CorruptGenerationError, GenerationNotFoundError, NotesError
from kivgraph.model import Generation
from kivgraph.store import NOTES_REF, load_from_notes, merge_notes, save_to_notes
from kivgraph.store.git import noted_ancestors, open_repository
from kivgraph.store.notes import FANOUT_THRESHOLD, NotesStore
from tests.store.test_codec import sample


def with_header(g: Generation, commit: str, created_at: str) -> Generation:
    from dataclasses import replace

    return replace(g, header=replace(g.header, commit=commit, created_at=created_at))


def test_a_binary_note_reads_back_byte_for_byte_through_git(make_repo):
    repo = make_repo({"a.txt": "a"})
    commit = repo.git("rev-parse", "HEAD")
    data = bytes(range(256)) * 64 + b"\x00\x00tail"
    NotesStore(open_repository(str(repo.path))).write(commit, data)
    shown = subprocess.run(
        ["git", "notes", "--ref=kivgraph", "show", commit], cwd=repo.path, capture_output=True, check=True
    ).stdout
    assert shown == data


def test_notes_stay_readable_by_git_once_they_fan_out(make_repo):
    repo = make_repo({"a.txt": "a"})
    commit = repo.git("rev-parse", "HEAD")
    store = NotesStore(open_repository(str(repo.path)))
    store.write(commit, b"\x00first")
    for i in range(FANOUT_THRESHOLD + 5):
        store.write(f"{i * 7919 + 1:040x}", f"note {i}".encode())
    tree = repo.git("ls-tree", NOTES_REF)
    assert all(line.split("\t")[1].__len__() == 2 for line in tree.splitlines())  # ab/cdef… layout
    assert store.read(commit) == b"\x00first"
    shown = subprocess.run(
        ["git", "notes", "--ref=kivgraph", "show", commit], cwd=repo.path, capture_output=True, check=True
    ).stdout
    assert shown == b"\x00first"
    assert len(list(store.entries())) == FANOUT_THRESHOLD + 6
    assert repo.git("fsck", "--no-progress") == ""


def test_a_generation_saved_to_notes_loads_back(make_repo):
    repo = make_repo({"a.txt": "a"})
    commit = repo.git("rev-parse", "HEAD")
    pyrepo = open_repository(str(repo.path))
    g = with_header(sample(), commit, "2026-01-01T00:00:00.000000Z")
    save_to_notes(pyrepo, g)
    assert load_from_notes(pyrepo, commit).header == g.header


def test_a_commit_without_a_note_is_reported_not_found(make_repo):
    repo = make_repo({"a.txt": "a"})
    with pytest.raises(GenerationNotFoundError, match="no kivgraph generation is stored for commit"):
        load_from_notes(open_repository(str(repo.path)), repo.git("rev-parse", "HEAD"))


def test_a_corrupt_note_is_reported_with_its_commit_and_ref(make_repo):
    repo = make_repo({"a.txt": "a"})
    commit = repo.git("rev-parse", "HEAD")
    pyrepo = open_repository(str(repo.path))
    NotesStore(pyrepo).write(commit, b"\x28\xb5\x2f\xfd garbage")
    with pytest.raises(CorruptGenerationError, match=f"commit {commit[:12]} in refs/notes/kivgraph"):
        load_from_notes(pyrepo, commit)


def test_a_notes_ref_pointing_at_a_blob_is_refused_and_left_alone(make_repo):
    repo = make_repo({"a.txt": "a"})
    blob = repo.git("hash-object", "-w", "a.txt")
    repo.git("update-ref", NOTES_REF, blob)
    store = NotesStore(open_repository(str(repo.path)))
    with pytest.raises(NotesError, match="not a notes commit"):
        store.write(repo.git("rev-parse", "HEAD"), b"x")
    assert repo.git("rev-parse", NOTES_REF) == blob


def test_writing_one_note_keeps_every_other_note(make_repo):
    repo = make_repo({"a.txt": "a"})
    first = repo.git("rev-parse", "HEAD")
    second = repo.commit({"b.txt": "b"})
    store = NotesStore(open_repository(str(repo.path)))
    store.write(first, b"one")
    store.write(second, b"two")
    store.write(first, b"one again")
    assert store.read(first) == b"one again"
    assert store.read(second) == b"two"


def test_concurrent_writers_both_land(make_repo):
    repo = make_repo({"a.txt": "a"})
    commits = [repo.commit({f"f{i}.txt": str(i)}) for i in range(6)]
    errors: list[BaseException] = []

    def write(commit: str) -> None:
        try:
            NotesStore(pygit2.Repository(str(repo.path))).write(commit, commit.encode())
        except BaseException as err:  # collected and asserted below
            errors.append(err)

    threads = [threading.Thread(target=write, args=(c,)) for c in commits]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    store = NotesStore(open_repository(str(repo.path)))
    assert {c: store.read(c) for c in commits} == {c: c.encode() for c in commits}


def test_merging_notes_keeps_the_newest_generation_per_commit(make_repo):
    repo = make_repo({"a.txt": "a"})
    shared = repo.git("rev-parse", "HEAD")
    only_theirs = repo.commit({"b.txt": "b"})
    pyrepo = open_repository(str(repo.path))
    other = "refs/notes/remotes/origin/kivgraph"
    save_to_notes(pyrepo, with_header(sample(), shared, "2026-01-01T00:00:00.000000Z"))
    save_to_notes(pyrepo, with_header(sample(), shared, "2026-02-01T00:00:00.000000Z"), other)
    save_to_notes(pyrepo, with_header(sample(), only_theirs, "2026-01-05T00:00:00.000000Z"), other)
    report = merge_notes(pyrepo, other)
    assert report.counts() == {"added": 1, "replaced": 1, "kept": 0}
    assert report.decisions == [
        f"{shared[:12]}: theirs won: indexed later (2026-02-01T00:00:00.000000Z over 2026-01-01T00:00:00.000000Z)"
    ]
    assert load_from_notes(pyrepo, shared).header.created_at == "2026-02-01T00:00:00.000000Z"
    assert load_from_notes(pyrepo, only_theirs).header.commit == only_theirs
    # The merge commit has both tips as parents, so pushing it is a fast-forward for the remote.
    assert repo.git("rev-parse", f"{NOTES_REF}^2") == repo.git("rev-parse", other)


def test_merging_keeps_ours_when_theirs_is_older_or_corrupt(make_repo):
    repo = make_repo({"a.txt": "a"})
    commit = repo.git("rev-parse", "HEAD")
    pyrepo = open_repository(str(repo.path))
    other = "refs/notes/other"
    save_to_notes(pyrepo, with_header(sample(), commit, "2026-03-01T00:00:00.000000Z"))
    NotesStore(pyrepo, other).write(commit, b"corrupt")
    assert merge_notes(pyrepo, other).counts() == {"added": 0, "replaced": 0, "kept": 1}
    assert load_from_notes(pyrepo, commit).header.created_at == "2026-03-01T00:00:00.000000Z"


def test_the_nearest_noted_ancestor_counts_commits_back(make_repo):
    repo = make_repo({"a.txt": "a"})
    noted = repo.git("rev-parse", "HEAD")
    repo.commit({"b.txt": "b"})
    head = repo.commit({"c.txt": "c"})
    pyrepo = open_repository(str(repo.path))
    assert next(noted_ancestors(pyrepo, pyrepo[head], {noted})) == (noted, 2)
    assert next(noted_ancestors(pyrepo, pyrepo[head], set()), None) is None
