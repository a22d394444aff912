"""The two homes of a generation — git notes and plain files — behind one small API.

Joins the codec (bytes ↔ Generation) to the notes store (bytes ↔ commit); neither knows the
other. Every read names what it read (`commit abc123 in refs/notes/kivgraph`, a file path), so a
corrupt blob is reported where it lives.
"""

import os

import pygit2

from kivgraph.errors import CorruptGenerationError, GenerationNotFoundError, KivgraphError
from kivgraph.model import Generation
from kivgraph.store import codec
from kivgraph.store.notes import NOTES_REF, NotesStore


def note_location(commit: str, ref: str = NOTES_REF) -> str:
    return f"commit {commit[:12]} in {ref}"


def save_to_notes(repo: pygit2.Repository, generation: Generation, ref: str = NOTES_REF) -> bytes:
    """Encode and attach to the generation's commit; returns the stored bytes."""
    if not generation.header.commit:
        raise KivgraphError("a working-tree generation has no commit to attach a note to; use --out FILE.")
    blob = codec.encode(generation)
    NotesStore(repo, ref).write(generation.header.commit, blob, f"kivgraph: generation for {generation.header.commit}")
    return blob


def read_note(repo: pygit2.Repository, commit: str, ref: str = NOTES_REF) -> bytes:
    blob = NotesStore(repo, ref).read(commit)
    if blob is None:
        raise GenerationNotFoundError(note_location(commit, ref))
    return blob


def load_from_notes(repo: pygit2.Repository, commit: str, ref: str = NOTES_REF) -> Generation:
    return codec.decode(read_note(repo, commit, ref), note_location(commit, ref))


def save_to_file(generation: Generation, path: str) -> bytes:
    """Write atomically: a reader never sees half a file, and a failed write keeps the old one."""
    blob = codec.encode(generation)
    temporary = f"{path}.tmp-{os.getpid()}"
    try:
        with open(temporary, "wb") as handle:
            handle.write(blob)
        os.replace(temporary, path)
    except OSError as err:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise KivgraphError(f"cannot write the generation to {path}: {err.strerror}.") from err
    return blob


def read_file(path: str) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except FileNotFoundError as err:
        raise GenerationNotFoundError(path, "the file does not exist.") from err
    except OSError as err:
        raise KivgraphError(f"cannot read the generation file {path}: {err.strerror}.") from err


def load_from_file(path: str) -> Generation:
    return codec.decode(read_file(path), path)


def newer(left: bytes, right: bytes, where: str) -> bool:
    """True when `left` was created after `right`; a corrupt side always loses."""
    try:
        left_at = codec.created_at(left, where)
    except CorruptGenerationError:
        return False
    try:
        right_at = codec.created_at(right, where)
    except CorruptGenerationError:
        return True
    return left_at > right_at


__all__ = [
    "NOTES_REF",
    "load_from_file",
    "load_from_notes",
    "merge_notes",
    "newer",
    "note_location",
    "read_file",
    "read_note",
    "save_to_file",
    "save_to_notes",
]


def merge_notes(repo: pygit2.Repository, other_ref: str, ref: str = NOTES_REF) -> dict[str, int]:
    """Merge `other_ref` into `ref` per commit; where both hold a note, the newest generation wins.

    Never the text strategies of `git notes merge` (they concatenate, which corrupts binary
    notes). Returns counts: added, replaced, kept.
    """
    ours, theirs = NotesStore(repo, ref), NotesStore(repo, other_ref)
    their_tip = theirs.tip()
    counts = {"added": 0, "replaced": 0, "kept": 0}
    if their_tip is None:
        return counts
    our_tip = ours.tip()
    if our_tip is not None and (our_tip == their_tip or repo.descendant_of(our_tip, their_tip)):
        return counts
    incoming = list(theirs.entries())

    def merge(notes: dict[str, str]) -> None:
        # Applied to our notes as they are when the ref is swapped (rerun if a writer moved it), so
        # a note written locally meanwhile is never dropped.
        counts.update(added=0, replaced=0, kept=0)
        for note in incoming:
            current = notes.get(note.commit)
            if current is None:
                notes[note.commit] = note.blob
                counts["added"] += 1
            elif current != note.blob:
                if newer(theirs.blob(note.blob), ours.blob(current), note_location(note.commit, other_ref)):
                    notes[note.commit] = note.blob
                    counts["replaced"] += 1
                else:
                    counts["kept"] += 1

    ours.update(merge, f"kivgraph: merge {other_ref} into {ref}", [their_tip])
    return counts
