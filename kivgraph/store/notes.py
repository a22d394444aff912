"""The git-notes home of generations: `refs/notes/kivgraph`, one binary note per indexed commit.

Owns every pygit2 call that touches notes and translates pygit2 errors into KivgraphErrors. It
writes the blob, the notes tree (in git's fan-out layout once notes are many) and the notes
commit itself, because `create_note` only takes text. Knows nothing of CBOR: it stores bytes.
"""

import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pygit2

from kivgraph.errors import GitFailedError, NotesError
from kivgraph.store.git import (
    GitErrors,
    compare_and_swap,
    has_object,
    lookup,
    promisor_remote,
    read_blob,
    stale_lock,
    write_tree_missing_ok,
)

NOTES_REF = "refs/notes/kivgraph"
FANOUT_THRESHOLD = 256
"""Above this many notes, entries are written as `ab/cdef…` as git itself does."""
UPDATE_ATTEMPTS = 40
"""Compare-and-swap retries before giving up; each lost race backs off a little, with jitter."""
HEX = frozenset("0123456789abcdef")


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
        """The notes commit the ref points at; anything else there is refused and left alone."""
        try:
            reference = self.repo.references.get(self.ref)
        except GitErrors as err:
            raise NotesError(f"the notes ref {self.ref} cannot be read ({err}).") from err
        if reference is None:
            return None
        leave = (
            f"kivgraph will neither read nor write through it. Inspect it with `git show-ref {self.ref}` and move it "
            f"aside (`git update-ref -d --no-deref {self.ref}`) once nothing there is needed."
        )
        if reference.type == pygit2.enums.ReferenceType.SYMBOLIC:
            raise NotesError(f"{self.ref} is a symbolic ref to {reference.target}, not a notes commit; {leave}")
        target = lookup(self.repo, reference.target)
        if not isinstance(target, pygit2.Commit):
            what = "a missing object" if target is None else f"a {type(target).__name__.lower()}"
            if isinstance(target, pygit2.Tag):
                what = f"the annotated tag {target.name!r} (a tag object, not a commit)"
            raise NotesError(f"{self.ref} points at {reference.target}, {what}, not a notes commit; {leave}")
        if not _is_notes_tree(target.tree):
            raise NotesError(
                f"{self.ref} points at commit {str(target.id)[:12]}, whose tree is not a notes tree (it holds files "
                f"that do not name commits); {leave}"
            )
        return target

    def entries(self) -> Iterator[StoredNote]:
        """Every (commit, blob) under the ref, whatever its fan-out layout."""
        tip = self._tip()
        if tip is None:
            return
        yield from self._walk(tip.tree, "")

    def _walk(self, tree: pygit2.Tree, prefix: str) -> Iterator[StoredNote]:
        # By file mode, not by reading objects: a partial clone may not have the blobs yet.
        for entry in tree:
            name = prefix + (entry.name or "")
            if entry.filemode == pygit2.enums.FileMode.TREE:
                sub = self.repo.get(entry.id)
                if isinstance(sub, pygit2.Tree):
                    yield from self._walk(sub, name)
            elif len(name) == 40:
                yield StoredNote(name, str(entry.id))

    def blob(self, oid: str) -> bytes:
        """The bytes of a stored note by its blob id (as `entries` names it)."""
        try:
            return read_blob(self.repo, oid)
        except GitFailedError as err:
            raise NotesError(f"{self.ref} names {oid[:12]} as a note, but it cannot be read: {err}") from err

    def read(self, commit: str) -> bytes | None:
        """The note's exact bytes, or None when this commit has no note."""
        tip = self._tip()
        if tip is None:
            return None
        tree: pygit2.Tree = tip.tree
        rest = commit
        while True:
            if rest in tree:
                entry = tree[rest]
                return None if entry.filemode == pygit2.enums.FileMode.TREE else self.blob(str(entry.id))
            head, rest = rest[:2], rest[2:]
            if not rest or head not in tree:
                return None
            sub = self.repo.get(tree[head].id)
            if not isinstance(sub, pygit2.Tree):
                return None
            tree = sub

    def write(self, commit: str, data: bytes, message: str = "") -> str:
        """Attach `data` to `commit`, replacing its note; returns the new notes commit id."""
        blob = self.repo.create_blob(data)
        return self.update(lambda notes: notes.update({commit: str(blob)}), message or f"kivgraph: note for {commit}")

    def update(self, change: Callable[[dict[str, str]], object], message: str) -> str:
        """Rebuild the notes tree with `change` applied (commit → blob id, edited in place, rerun on
        the new tip when a concurrent writer won the race) and move the ref to it."""

        def plan(tip: pygit2.Commit | None) -> str:
            notes = self.notes_at(tip)
            change(notes)
            return self.commit_notes(notes, message, [] if tip is None else [str(tip.id)])

        moved = self.swap(plan, message)
        assert moved is not None  # this plan always makes a commit
        return moved

    def swap(self, plan: Callable[[pygit2.Commit | None], str | None], message: str) -> str | None:
        """The one compare-and-swap loop: move the ref to the commit `plan` makes of its current tip,
        only if nobody moved it meanwhile, else plan again on the new tip. None when `plan` says
        there is nothing to do."""
        for attempt in range(UPDATE_ATTEMPTS):
            tip = self._tip()
            new = plan(tip)
            if new is None:
                return None
            if compare_and_swap(self.repo, self.ref, new, str(tip.id) if tip is not None else None, message):
                return new
            time.sleep(random.uniform(0, 0.005 * (attempt + 1)))
        lock = stale_lock(self.repo, self.ref)
        if lock:
            raise NotesError(f"{self.ref} could not be updated: {lock}")
        raise NotesError(f"{self.ref} kept moving under concurrent writers; nothing was written, retry.")

    def notes_at(self, tip: pygit2.Commit | None) -> dict[str, str]:
        """commit → note blob id as of a notes commit (empty for none)."""
        return {} if tip is None else {n.commit: n.blob for n in self._walk(tip.tree, "")}

    def commit_notes(self, notes: dict[str, str], message: str, parents: list[str]) -> str:
        """A notes commit holding exactly `notes` (not yet on any ref)."""
        tree = self._build_tree(notes)
        signature = self._signature()
        oids = [pygit2.Oid(hex=p) for p in parents]
        return str(self.repo.create_commit(None, signature, signature, message, tree, oids))

    def _build_tree(self, notes: dict[str, str]) -> pygit2.Oid:
        fanout = len(notes) > FANOUT_THRESHOLD
        paths = {(f"{commit[:2]}/{commit[2:]}" if fanout else commit): blob for commit, blob in notes.items()}
        if promisor_remote(self.repo) and not all(has_object(self.repo, blob) for blob in notes.values()):
            # A partial clone fetched the notes tree without its blobs: name them, fetch none.
            return pygit2.Oid(hex=write_tree_missing_ok(self.repo, paths))
        index = pygit2.Index()
        for path, blob in paths.items():
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


def _is_notes_tree(tree: pygit2.Tree) -> bool:
    """Every top-level entry names a commit (40 hex) or a fan-out directory (2 hex), as git writes them."""
    for entry in tree:
        name = entry.name or ""
        if len(name) not in (2, 40) or not set(name) <= HEX:
            return False
    return True
