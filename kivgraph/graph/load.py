"""Which generation answers for a repository: the note on HEAD, else the nearest noted ancestor
(reported stale, never silently), or a generation file. Returns decoded columns and freshness."""

import os
from dataclasses import dataclass

import pygit2

from kivgraph.derived import is_derived
from kivgraph.errors import GenerationNotFoundError, KivgraphError
from kivgraph.store import NOTES_REF, note_location, read_file, read_note
from kivgraph.store.codec import Columns, decode_columns
from kivgraph.store.notes import NotesStore, nearest_noted_ancestor, open_repository


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


def nearest_generation(
    repo: pygit2.Repository, commit: pygit2.Commit, ref: str = NOTES_REF
) -> tuple[str, int, bytes] | None:
    """(commit, commits back, blob) of the generation on `commit`, else on its nearest indexed
    ancestor; None when neither it nor any ancestor is indexed."""
    try:
        return str(commit.id), 0, read_note(repo, str(commit.id), ref)
    except GenerationNotFoundError:
        noted = {n.commit for n in NotesStore(repo, ref).entries()}
        nearest = nearest_noted_ancestor(repo, commit, noted) if noted else None
        if nearest is None:
            return None
        return nearest[0], nearest[1], read_note(repo, nearest[0], ref)


def load_repository(path: str, ref: str = NOTES_REF) -> LoadedRepository:
    """The generation of HEAD of the repository at `path`, or of its nearest indexed ancestor."""
    repo = open_repository(path)
    root = os.path.realpath(repo.workdir or repo.path)
    if repo.head_is_unborn:
        raise GenerationNotFoundError(root, "the repository has no commits yet; commit and run `kivgraph index`.")
    head = repo.head.peel(pygit2.Commit)
    found = nearest_generation(repo, head, ref)
    if found is None:
        raise GenerationNotFoundError(
            f"{root} (HEAD {str(head.id)[:12]})",
            "neither HEAD nor any ancestor is indexed; run `kivgraph index` there.",
        )
    commit, behind, blob = found
    return loaded_from(root, commit, blob, ref, freshness(repo, commit, behind))


def loaded_from(root: str, commit: str, blob: bytes, ref: str, state: Freshness) -> LoadedRepository:
    """A generation read from the note on `commit`, decoded."""
    location = note_location(commit, ref)
    columns = decode_columns(blob, location)
    return LoadedRepository(columns.header.repository, root, location, columns, len(blob), state)


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


def freshness(repo: pygit2.Repository, indexed: str, behind: int) -> Freshness:
    """Compare the indexed commit with HEAD now (`behind` < 0: count the commits between)."""
    if not indexed:
        return Freshness("", "", "", False, "the generation records no commit (a working-tree index); "
                         "it cannot be compared")  # fmt: skip
    try:
        head = repo.head.peel(pygit2.Commit)
        branch = "" if repo.head_is_detached else repo.head.shorthand
    except (pygit2.GitError, KeyError, ValueError) as err:
        return Freshness(indexed, "", "", False, f"the working tree could not be compared with the graph: {err}")
    current = str(head.id)
    if current == indexed:
        return Freshness(indexed, current, branch, False, "")
    if behind < 0:
        try:
            ahead, _ = repo.ahead_behind(head.id, pygit2.Oid(hex=indexed))
            behind = ahead
        except (pygit2.GitError, ValueError, KeyError):
            behind = 0
    try:
        old = repo[pygit2.Oid(hex=indexed)].peel(pygit2.Commit)
        changed = len(old.tree.diff_to_tree(head.tree))
    except (pygit2.GitError, ValueError, KeyError):
        changed = 0
    where = f"on {branch}" if branch else "on a detached HEAD"
    detail = (
        f"indexed at commit {indexed[:7]}, the tree is now at {current[:7]} {where}"
        + (f", {behind} commit{'s' if behind != 1 else ''} later" if behind else "")
        + (f", {changed} file{'s' if changed != 1 else ''} changed since" if changed else "")
    )
    return Freshness(indexed, current, branch, True, detail, behind, changed)


def refresh(loaded: LoadedRepository) -> Freshness:
    """Freshness now, for list_repositories and graph_status (HEAD may have moved since load)."""
    if loaded.derived or not loaded.root:
        return loaded.freshness
    try:
        return freshness(open_repository(loaded.root), loaded.freshness.indexed_commit, -1)
    except KivgraphError as err:
        indexed = loaded.freshness.indexed_commit
        return Freshness(indexed, "", "", False, f"the working tree could not be compared with the graph: {err}")
