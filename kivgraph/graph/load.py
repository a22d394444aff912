"""Which generation answers for a repository: the note on HEAD, else the nearest noted ancestor
(reported stale, never silently), or a generation file. Returns decoded columns and freshness."""

import os
from collections.abc import Iterator
from dataclasses import dataclass

import pygit2

from kivgraph.errors import CorruptGenerationError, GenerationNotFoundError, KivgraphError, UnsupportedFormatError
from kivgraph.model import is_derived
from kivgraph.store import NOTES_REF, note_location, read_file
from kivgraph.store.codec import Columns, decode_columns
from kivgraph.store.git import (
    branch_name,
    commits_between,
    files_changed,
    head_commit,
    noted_ancestors,
    open_repository,
    root_of,
)
from kivgraph.store.notes import NotesStore


@dataclass(frozen=True, slots=True)
class Freshness:
    """The indexed commit against the working tree's HEAD, read at load (and again on demand)."""

    indexed_commit: str
    current_commit: str
    current_branch: str
    moved: bool
    detail: str
    commits_behind: int = 0
    """How many commits HEAD is past the indexed one (0 when it is HEAD, or unknown)."""
    files_changed: int = 0
    passed_over: tuple[str, ...] = ()
    """Nearer notes that could not be read, each said in one sentence (also at the end of `detail`)."""


@dataclass(frozen=True, slots=True)
class LoadedRepository:
    name: str
    root: str
    """Absolute working-tree path on this machine ("" when unknown: a bare generation file)."""
    location: str
    """Where the generation was read from (notes location or file path)."""
    columns: Columns
    size: int
    freshness: Freshness

    @property
    def derived(self) -> bool:
        return is_derived(self.name)


@dataclass(frozen=True, slots=True)
class Found:
    """The generation that answers for a commit: on it, or on its nearest readable indexed ancestor."""

    commit: str
    behind: int
    """Commits between the asked commit and the indexed one (0: the commit itself)."""
    blob: bytes
    columns: Columns
    passed_over: tuple[str, ...] = ()
    """Nearer notes that could not be read, each said in one sentence."""


def notes_along(
    repo: pygit2.Repository, commit: pygit2.Commit, ref: str = NOTES_REF
) -> Iterator[tuple[str, int, bytes]]:
    """(commit, commits back, blob) of the note on `commit`, then of its indexed ancestors, nearest first."""
    store = NotesStore(repo, ref)
    asked = str(commit.id)
    blob = store.read(asked)
    if blob is not None:
        yield asked, 0, blob
    noted = {n.commit for n in store.entries()} - {asked}
    if noted:
        for ancestor, behind in noted_ancestors(repo, commit, noted):
            found = store.read(ancestor)
            if found is not None:
                yield ancestor, behind, found


def nearest_generation(repo: pygit2.Repository, commit: pygit2.Commit, ref: str = NOTES_REF) -> Found | None:
    """The readable generation nearest to `commit` (itself first); a corrupt or unreadable note is
    passed over, and said, rather than hiding the good ones behind it. None when there is none."""
    passed: list[str] = []
    for indexed, behind, blob in notes_along(repo, commit, ref):
        try:
            columns = decode_columns(blob, note_location(indexed, ref))
        except (CorruptGenerationError, UnsupportedFormatError) as err:
            passed.append(str(err))
            continue
        return Found(indexed, behind, blob, columns, tuple(passed))
    if passed:
        raise CorruptGenerationError(note_location(str(commit.id), ref),
                                     f"no readable generation is on it or its ancestors ({passed[0]})")  # fmt: skip
    return None


def load_repository(path: str, ref: str = NOTES_REF) -> LoadedRepository:
    """The generation of HEAD of the repository at `path`, or of its nearest readable indexed ancestor."""
    repo = open_repository(path)
    root = root_of(repo)
    head = head_commit(repo)
    if head is None:
        raise GenerationNotFoundError(root, "the repository has no commits yet; commit and run `kivgraph index`.")
    found = nearest_generation(repo, head, ref)
    if found is None:
        raise GenerationNotFoundError(
            f"{root} (HEAD {str(head.id)[:12]})",
            "neither HEAD nor any ancestor is indexed; run `kivgraph index` there.",
        )
    return loaded_from(root, found, ref, freshness(repo, found.commit, found.behind, found.passed_over))


def loaded_from(root: str, found: Found, ref: str, state: "Freshness") -> LoadedRepository:
    """The LoadedRepository of a generation found in notes."""
    location = note_location(found.commit, ref)
    return LoadedRepository(found.columns.header.repository, root, location, found.columns, len(found.blob), state)


def load_file(path: str, root: str = "") -> LoadedRepository:
    """A generation file (CI artifact, derived repository); `root` is its working tree if known."""
    blob = read_file(path)
    columns = decode_columns(blob, path)
    root = os.path.realpath(root) if root else ""
    name = columns.header.repository
    indexed = columns.header.commit
    if is_derived(name):
        state = Freshness("", "", "", False, "derived from the toolchain, not a registered repository: "
                          "it has no commit to compare")  # fmt: skip
    elif root:
        try:
            state = freshness(open_repository(root), indexed, -1)
        except KivgraphError as err:
            state = Freshness(indexed, "", "", False, f"the working tree could not be compared with the graph: {err}")
    else:
        state = Freshness(indexed, "", "", False, "no working tree is known for this generation file")
    return LoadedRepository(name, root, path, columns, len(blob), state)


def freshness(repo: pygit2.Repository, indexed: str, behind: int, passed_over: tuple[str, ...] = ()) -> Freshness:
    """Compare the indexed commit with HEAD now (`behind` < 0: count the commits between)."""
    if not indexed:
        return Freshness("", "", "", False, "the generation records no commit (a working-tree index); "
                         "it cannot be compared")  # fmt: skip
    head = head_commit(repo)
    if head is None:
        return Freshness(indexed, "", "", False, "the working tree could not be compared with the graph: it has "
                         "no HEAD commit")  # fmt: skip
    branch = branch_name(repo)
    current = str(head.id)
    skipped = "".join(f"; passed over: {problem}" for problem in passed_over)
    if current == indexed:
        return Freshness(indexed, current, branch, bool(passed_over), skipped.removeprefix("; "),
                         passed_over=passed_over)  # fmt: skip
    if behind < 0:
        behind = commits_between(repo, current, indexed)
    changed = files_changed(repo, indexed, current)
    where = f"on {branch}" if branch else "on a detached HEAD"
    detail = (
        f"indexed at commit {indexed[:7]}, the tree is now at {current[:7]} {where}"
        + (f", {behind} commit{'s' if behind != 1 else ''} later" if behind else "")
        + (f", {changed} file{'s' if changed != 1 else ''} changed since" if changed else "")
        + skipped
    )
    return Freshness(indexed, current, branch, True, detail, behind, changed, passed_over)


def refresh(loaded: LoadedRepository) -> Freshness:
    """Freshness now, for list_repositories and graph_status (HEAD may have moved since load)."""
    if loaded.derived or not loaded.root:
        return loaded.freshness
    try:
        state = loaded.freshness
        return freshness(open_repository(loaded.root), state.indexed_commit, -1, state.passed_over)
    except KivgraphError as err:
        indexed = loaded.freshness.indexed_commit
        return Freshness(indexed, "", "", False, f"the working tree could not be compared with the graph: {err}")
