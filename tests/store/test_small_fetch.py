"""The pull-request side fetches only what it reads: the notes ref without its history, and the
note blob of the base (or of its nearest indexed ancestor) alone where the server filters blobs —
else the whole ref's tip, said in one line. Real git, bare remotes over file://."""

import random
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from kivgraph.errors import NotesError
from kivgraph.store import NOTES_REF
from kivgraph.store.git import open_repository
from kivgraph.store.notes import NotesStore
from kivgraph.store.sync import fetch_notes_for
from tests.conftest import Repo, git

NOTE_SIZE = 30_000


@pytest.fixture(autouse=True)
def isolated_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")


@dataclass
class Server:
    root: Path
    bare: Path
    commits: list[str]
    """main, oldest first."""
    blobs: dict[str, str]
    """commit → the blob id of its note on the server."""

    def clone(self, name: str) -> Path:
        git(self.root, "clone", "-q", f"file://{self.bare}", name)
        return self.root / name


def noise(seed: int, size: int = NOTE_SIZE) -> bytes:
    """Bytes that do not compress, as zstd-compressed generations do not."""
    return random.Random(seed).randbytes(size)


def make_server(root: Path, noted: list[int], commits: int = 8, filters: bool = True, rewrites: int = 1) -> Server:
    """main with `commits` commits; notes on the commits at `noted`, each written `rewrites` times
    (so the notes ref's history grows while its tip stays the same size)."""
    origin = Repo(root / "origin")
    made = [origin.commit({f"f{i}.txt": str(i)}) for i in range(commits)]
    store = NotesStore(open_repository(str(origin.path)))
    for round_ in range(rewrites):
        for i in noted:
            store.write(made[i], noise(1000 * round_ + i))
    git(root, "clone", "-q", "--bare", str(origin.path), "server.git")
    bare = root / "server.git"
    git(origin.path, "push", "-q", str(bare), NOTES_REF)
    if filters:
        git(bare, "config", "uploadpack.allowFilter", "true")
    blobs = {n.commit: n.blob for n in NotesStore(open_repository(str(bare))).entries()}
    return Server(root, bare, made, blobs)


def here(clone: Path, blob: str) -> bool:
    """Whether the clone has the object, asked with every transport off (else git would fetch it)."""
    done = subprocess.run(["git", "-c", "protocol.allow=never", "cat-file", "-e", blob], cwd=clone, capture_output=True)
    return done.returncode == 0


def received(trace: Path) -> int:
    return trace.stat().st_size if trace.exists() else 0


def test_a_filtering_server_sends_the_tip_without_history_and_only_the_base_note(tmp_path: Path):
    server = make_server(tmp_path, noted=[0, 2, 4, 6, 7])
    clone = server.clone("pr")
    base = server.commits[4]

    result = fetch_notes_for(str(clone), "origin", [base])

    assert result.partial and result.fetched == 5 and result.read == (base,)
    assert here(clone, server.blobs[base])
    assert [c for c in (0, 2, 6, 7) if here(clone, server.blobs[server.commits[c]])] == []
    assert "fetched refs/notes/kivgraph from origin: 5 indexed commit(s); the ref without its history" in result.line
    assert NotesStore(open_repository(str(clone))).read(base) == noise(4)
    # Only the tip commit of the notes ref came, not its history.
    assert git(clone, "rev-list", "--count", NOTES_REF) == "1"


def test_a_base_without_a_note_brings_only_its_nearest_indexed_ancestor_note(tmp_path: Path):
    server = make_server(tmp_path, noted=[0, 2, 6])
    clone = server.clone("pr")

    result = fetch_notes_for(str(clone), "origin", [server.commits[5]])

    assert result.read == (server.commits[2],)
    assert here(clone, server.blobs[server.commits[2]])
    assert not here(clone, server.blobs[server.commits[0]]) and not here(clone, server.blobs[server.commits[6]])


def test_a_note_not_fetched_up_front_is_still_read_when_asked(tmp_path: Path):
    server = make_server(tmp_path, noted=[0, 2])
    clone = server.clone("pr")
    fetch_notes_for(str(clone), "origin", [server.commits[2]])
    assert not here(clone, server.blobs[server.commits[0]])

    assert NotesStore(open_repository(str(clone))).read(server.commits[0]) == noise(0)


def test_the_remote_and_later_fetches_from_it_are_left_complete(tmp_path: Path):
    server = make_server(tmp_path, noted=[1, 3])
    clone = server.clone("pr")
    fetch_notes_for(str(clone), "origin", [server.commits[3]])

    config = git(clone, "config", "--local", "--list")
    assert "remote.origin.promisor" not in config and "remote.origin.partialclonefilter" not in config
    assert "remote.kivgraph-origin.promisor=true" in config and "remote.kivgraph-origin.skipfetchall=true" in config
    # A new commit fetched from origin afterwards arrives with its blobs, as before.
    author = Repo(tmp_path / "author")
    git(author.path, "pull", "-q", f"file://{server.bare}", "main")
    author.commit({"later.txt": "later"})
    git(author.path, "push", "-q", f"file://{server.bare}", "HEAD:main")
    git(clone, "fetch", "-q", "origin")
    blob = git(clone, "rev-parse", "origin/main:later.txt")
    assert here(clone, blob)


def test_a_server_that_refuses_filters_sends_the_whole_tip_and_the_line_says_so(tmp_path: Path):
    server = make_server(tmp_path, noted=[0, 2, 4], filters=False)
    clone = server.clone("pr")

    result = fetch_notes_for(str(clone), "origin", [server.commits[4]])

    assert not result.partial and result.fetched == 3
    assert all(here(clone, blob) for blob in server.blobs.values())
    assert result.line == (
        "fetched refs/notes/kivgraph from origin: 3 indexed commit(s); origin does not serve partial fetches "
        "(uploadpack.allowFilter), so every note blob of the ref came, without its history"
    )
    assert "\n" not in result.line


def test_bytes_fetched_do_not_grow_with_the_notes_history(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    sizes: list[int] = []
    for rewrites in (1, 6):
        root = tmp_path / f"r{rewrites}"
        root.mkdir()
        server = make_server(root, noted=[1, 3, 5], rewrites=rewrites)
        assert int(git(server.bare, "rev-list", "--count", NOTES_REF)) == 3 * rewrites
        clone = server.clone("pr")
        trace = root / "received.pack"
        monkeypatch.setenv("GIT_TRACE_PACKFILE", str(trace))
        fetch_notes_for(str(clone), "origin", [server.commits[5]])
        monkeypatch.delenv("GIT_TRACE_PACKFILE")
        sizes.append(received(trace))
    # One note blob and a few small objects either way; the full history would be 18 blobs.
    assert NOTE_SIZE < sizes[0] < 2 * NOTE_SIZE and NOTE_SIZE < sizes[1] < 2 * NOTE_SIZE, sizes
    assert abs(sizes[1] - sizes[0]) < 2_000, sizes


def test_a_remote_without_notes_is_not_an_error(tmp_path: Path):
    origin = Repo(tmp_path / "origin")
    commit = origin.commit({"a.txt": "a"})
    git(tmp_path, "clone", "-q", "--bare", str(origin.path), "server.git")
    git(tmp_path, "clone", "-q", f"file://{tmp_path / 'server.git'}", "pr")

    result = fetch_notes_for(str(tmp_path / "pr"), "origin", [commit])

    assert result.fetched == 0 and result.read == () and result.line == f"origin has no {NOTES_REF} yet"


def test_local_notes_are_merged_with_the_fetched_tip_without_fetching_every_blob(tmp_path: Path):
    server = make_server(tmp_path, noted=[0, 2, 4])
    clone = server.clone("pr")
    NotesStore(open_repository(str(clone))).write(server.commits[5], b"local note")

    result = fetch_notes_for(str(clone), "origin", [server.commits[4]])

    assert result.merged.counts() == {"added": 3, "replaced": 0, "kept": 0}
    store = NotesStore(open_repository(str(clone)))
    assert {n.commit for n in store.entries()} == {server.commits[i] for i in (0, 2, 4, 5)}
    assert store.read(server.commits[5]) == b"local note"
    assert not here(clone, server.blobs[server.commits[0]]) and not here(clone, server.blobs[server.commits[2]])


def test_an_unconfigured_remote_is_a_notes_error_and_changes_nothing(tmp_path: Path):
    server = make_server(tmp_path, noted=[0])
    clone = server.clone("pr")
    before = git(clone, "config", "--local", "--list")
    with pytest.raises(NotesError, match="'upstream' is not a configured remote"):
        fetch_notes_for(str(clone), "upstream", [server.commits[0]])
    assert git(clone, "config", "--local", "--list") == before
