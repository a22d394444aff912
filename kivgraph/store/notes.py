"""The git-notes home of generations: `refs/notes/kivgraph`, one binary note per indexed commit.

Owns every pygit2 call that touches notes and translates pygit2 errors into KivgraphErrors. It
writes the blob, the notes tree (in git's fan-out layout once notes are many) and the notes
commit itself, because `create_note` only takes text. Knows nothing of CBOR: it stores bytes.
"""

import random
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pygit2

from kivgraph.errors import (
    EmptyRepositoryError,
    NotARepositoryError,
    NotesError,
    UnknownRevisionError,
)

NOTES_REF = "refs/notes/kivgraph"
FANOUT_THRESHOLD = 256
"""Above this many notes, entries are written as `ab/cdef…` as git itself does."""
UPDATE_ATTEMPTS = 40
"""Compare-and-swap retries before giving up; each lost race backs off a little, with jitter."""


def open_repository(path: str) -> pygit2.Repository:
    found = pygit2.discover_repository(path)
    if found is None:
        raise NotARepositoryError(path)
    try:
        return pygit2.Repository(found)
    except pygit2.GitError as err:
        raise NotARepositoryError(path) from err


def resolve_commit(repo: pygit2.Repository, revision: str) -> pygit2.Commit:
    """The commit a revision names (`HEAD`, a branch, a tag, a SHA prefix)."""
    if repo.head_is_unborn and revision in ("HEAD", "@"):
        raise EmptyRepositoryError(repo.workdir or repo.path)
    try:
        obj = repo.revparse_single(revision)
        commit = obj.peel(pygit2.Commit)
    except (KeyError, ValueError, pygit2.GitError, pygit2.InvalidSpecError) as err:
        raise UnknownRevisionError(revision, repo.workdir or repo.path) from err
    return commit


@dataclass(frozen=True, slots=True)
class StoredNote:
    commit: str
    blob: str


class NotesStore:
    """Read and write generation blobs attached to commits under one notes ref."""

    def __init__(self, repo: pygit2.Repository, ref: str = NOTES_REF) -> None:
        self.repo = repo
        self.ref = ref

    def _tip(self) -> pygit2.Commit | None:
        try:
            reference = self.repo.references.get(self.ref)
        except pygit2.GitError as err:
            raise NotesError(f"the notes ref {self.ref} cannot be read ({err}).") from err
        if reference is None:
            return None
        try:
            return reference.peel(pygit2.Commit)
        except (pygit2.GitError, ValueError, KeyError) as err:
            raise NotesError(
                f"{self.ref} points at {reference.target}, which is not a notes commit; kivgraph will not "
                f"write over it. Inspect it with `git cat-file -t {reference.target}` and move it aside "
                f"(`git update-ref -d {self.ref}`) once nothing there is needed."
            ) from err

    def entries(self) -> Iterator[StoredNote]:
        """Every (commit, blob) under the ref, whatever its fan-out layout."""
        tip = self._tip()
        if tip is None:
            return
        yield from self._walk(tip.tree, "")

    def _walk(self, tree: pygit2.Tree, prefix: str) -> Iterator[StoredNote]:
        for entry in tree:
            name = prefix + (entry.name or "")
            obj = self.repo[entry.id]
            if isinstance(obj, pygit2.Tree):
                yield from self._walk(obj, name)
            elif isinstance(obj, pygit2.Blob) and len(name) == 40:
                yield StoredNote(name, str(entry.id))

    def blob(self, oid: str) -> bytes:
        """The bytes of a stored note by its blob id (as `entries` names it)."""
        obj = self.repo[oid]
        if not isinstance(obj, pygit2.Blob):
            raise NotesError(f"{self.ref} names {oid} as a note, but it is not a blob.")
        return obj.data

    def read(self, commit: str) -> bytes | None:
        """The note's exact bytes, or None when this commit has no note."""
        tip = self._tip()
        if tip is None:
            return None
        tree: pygit2.Tree = tip.tree
        rest = commit
        while True:
            if rest in tree:
                obj = self.repo[tree[rest].id]
                return obj.data if isinstance(obj, pygit2.Blob) else None
            head, rest = rest[:2], rest[2:]
            if not rest or head not in tree:
                return None
            sub = self.repo[tree[head].id]
            if not isinstance(sub, pygit2.Tree):
                return None
            tree = sub

    def write(self, commit: str, data: bytes, message: str = "") -> str:
        """Attach `data` to `commit`, replacing its note; returns the new notes commit id."""
        blob = self.repo.create_blob(data)
        return self.update(lambda notes: notes.update({commit: str(blob)}), message or f"kivgraph: note for {commit}")

    def update(self, change: Callable[[dict[str, str]], object], message: str, extra: list[str] | None = None) -> str:
        """Rebuild the notes tree with `change` applied and move the ref only if nobody moved it.

        `change` edits commit → blob id in place and is rerun on the new tip when a concurrent
        writer won the race; `extra` are further parents (the other side of a notes merge).
        """
        for attempt in range(UPDATE_ATTEMPTS):
            tip = self._tip()
            notes = {n.commit: n.blob for n in self.entries()}
            change(notes)
            tree = self._build_tree(notes)
            parents = ([tip.id] if tip is not None else []) + [pygit2.Oid(hex=p) for p in extra or []]
            signature = self._signature()
            new = self.repo.create_commit(None, signature, signature, message, tree, parents)
            old = str(tip.id) if tip is not None else "0" * 40
            # Compare-and-swap: a concurrent writer makes this fail, and we rebuild on its tip.
            done = subprocess.run(
                ["git", "update-ref", "-m", message, self.ref, str(new), old],
                cwd=self.repo.path,
                capture_output=True,
                text=True,
                encoding="utf-8",
                check=False,
            )
            if done.returncode == 0:
                return str(new)
            time.sleep(random.uniform(0, 0.005 * (attempt + 1)))
        raise NotesError(f"{self.ref} kept moving under concurrent writers; the note was not written, retry.")

    def _build_tree(self, notes: dict[str, str]) -> pygit2.Oid:
        index = pygit2.Index()
        fanout = len(notes) > FANOUT_THRESHOLD
        for commit, blob in notes.items():
            path = f"{commit[:2]}/{commit[2:]}" if fanout else commit
            index.add(pygit2.IndexEntry(path, pygit2.Oid(hex=blob), pygit2.enums.FileMode.BLOB))
        return index.write_tree(self.repo)

    def _signature(self) -> pygit2.Signature:
        try:
            return self.repo.default_signature
        except (KeyError, pygit2.GitError):
            return pygit2.Signature("kivgraph", "kivgraph@localhost")

    def tip(self) -> str | None:
        tip = self._tip()
        return None if tip is None else str(tip.id)


def nearest_noted_ancestor(
    repo: pygit2.Repository, commit: pygit2.Commit, noted: set[str], limit: int = 10_000
) -> tuple[str, int] | None:
    """The closest ancestor of `commit` (itself included) that has a note, and how many commits back."""
    walker = repo.walk(commit.id, pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.TIME)
    for distance, ancestor in enumerate(walker):
        if str(ancestor.id) in noted:
            return str(ancestor.id), distance
        if distance >= limit:
            break
    return None
