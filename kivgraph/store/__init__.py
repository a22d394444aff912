"""The two homes of a generation — git notes and plain files — behind one small API.

Joins the codec (bytes ↔ Generation) to the notes store (bytes ↔ commit); neither knows the
other. Every read names what it read (`commit abc123 in refs/notes/kivgraph`, a file path), so a
corrupt blob is reported where it lives.
"""

import os
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import pygit2

from kivgraph.errors import GenerationNotFoundError, KivgraphError
from kivgraph.model import Generation
from kivgraph.store import codec, envelope
from kivgraph.store.git import is_descendant
from kivgraph.store.notes import NOTES_REF, NotesStore


def note_location(commit: str, ref: str = NOTES_REF) -> str:
    return f"commit {commit[:12]} in {ref}"


def save_to_notes(repo: pygit2.Repository, generation: Generation | codec.Columns, ref: str = NOTES_REF) -> bytes:
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


def save_to_file(generation: Generation | codec.Columns, path: str) -> bytes:
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


FUTURE_TOLERANCE = timedelta(days=1)
"""A generation dated further ahead of this machine's clock than this is not trusted to be newer."""


@dataclass(frozen=True, slots=True)
class Standing:
    """What a merge knows of one stored generation, to rank it against another for the same commit."""

    readable: bool
    problem: str = ""
    format_version: tuple[int, int] = (0, 0)
    indexer_version: str = ""
    created_at: str = ""
    future: bool = False

    def rank(self) -> tuple[object, ...]:
        dated = "" if self.future else self.created_at
        return (self.readable, self.format_version, _version_key(self.indexer_version), not self.future, dated)


def standing(blob: bytes, where: str) -> Standing:
    """A blob's standing: unreadable (why), else its format, kivgraph version and creation time."""
    try:
        header = codec.decode_columns(blob, where).header
        version = envelope.read_envelope(blob, where)[0]
    except KivgraphError as err:
        return Standing(False, str(err))
    try:
        made = datetime.fromisoformat(header.created_at.replace("Z", "+00:00"))
        future = made > datetime.now(UTC) + FUTURE_TOLERANCE
    except ValueError:
        future = True  # an undatable generation is not trusted to be newer either
    return Standing(True, "", version, header.indexer_version, header.created_at, future)


def _version_key(version: str) -> tuple[tuple[int, str], ...]:
    """A dotted version as comparable parts (length, digits): numeric order without int() of
    untrusted text, which a long enough run of digits would make slow or refuse."""
    parts: list[tuple[int, str]] = []
    for part in version.split("."):
        leading = re.match(r"[0-9]+", part)
        if leading is None:
            break
        digits = leading.group()
        significant = digits.lstrip("0") or "0"
        parts.append((len(significant), significant))
    return tuple(parts)


def choose(ours: bytes, theirs: bytes, where: str) -> tuple[bool, str]:
    """(True when theirs should replace ours, why). A readable generation beats an unreadable one;
    then the newer storage format, then the newer kivgraph, then a plausible date over one in the
    future, then the later index run. Ties keep ours."""
    mine, other = standing(ours, where), standing(theirs, where)
    take = other.rank() > mine.rank()
    winner, loser = (other, mine) if take else (mine, other)
    side = "theirs" if take else "ours"
    if winner.rank() == loser.rank():
        return False, "both are the same standing; ours kept"
    if not loser.readable:
        return take, f"{side} {'taken' if take else 'kept'}: the other is unreadable ({loser.problem})"
    if winner.format_version != loser.format_version:
        return take, f"{side} won: storage format {_dotted(winner.format_version)} over {_dotted(loser.format_version)}"
    if _version_key(winner.indexer_version) != _version_key(loser.indexer_version):
        return take, f"{side} won: built by kivgraph {winner.indexer_version} over {loser.indexer_version}"
    if loser.future:
        return take, f"{side} won: the other is dated {loser.created_at}, in the future, and is not trusted"
    return take, f"{side} won: indexed later ({winner.created_at} over {loser.created_at})"


def _dotted(version: tuple[int, int]) -> str:
    return f"{version[0]}.{version[1]}"


@dataclass(slots=True)
class MergeReport:
    """What a notes merge did: counts, and one line per commit where both sides held a note."""

    added: int = 0
    replaced: int = 0
    kept: int = 0
    decisions: list[str] = field(default_factory=list[str])

    def counts(self) -> dict[str, int]:
        return {"added": self.added, "replaced": self.replaced, "kept": self.kept}

    def __add__(self, other: "MergeReport") -> "MergeReport":
        return MergeReport(self.added + other.added, self.replaced + other.replaced, self.kept + other.kept,
                           self.decisions + other.decisions)  # fmt: skip


__all__ = [
    "NOTES_REF",
    "load_from_file",
    "load_from_notes",
    "MergeReport",
    "choose",
    "merge_notes",
    "note_location",
    "read_file",
    "read_note",
    "save_to_file",
    "save_to_notes",
]


def merge_notes(repo: pygit2.Repository, other_ref: str, ref: str = NOTES_REF) -> MergeReport:
    """Merge `other_ref` (a fetched remote's notes) into `ref`, per commit: a note only one side
    holds is kept, and where both hold one, `choose` decides.

    When ours is an ancestor of theirs and nothing of ours is kept over theirs, the ref simply
    fast-forwards (as git would, instead of a merge commit of identical content on every fetch);
    otherwise a merge commit with both tips as parents, so a push of it fast-forwards the remote.
    Planned on our tip as it is when the ref is swapped, so a note written locally meanwhile is
    never dropped. Never the text strategies of `git notes merge` (they corrupt binary notes).
    """
    ours, theirs = NotesStore(repo, ref), NotesStore(repo, other_ref)
    their_tip = theirs.tip()
    report = MergeReport()
    if their_tip is None:
        return report
    incoming = list(theirs.entries())
    message = f"kivgraph: merge {other_ref} into {ref}"

    def plan(tip: pygit2.Commit | None) -> str | None:
        nonlocal report
        report = MergeReport()
        our_tip = None if tip is None else str(tip.id)
        if our_tip is not None and (our_tip == their_tip or is_descendant(repo, our_tip, their_tip)):
            return None
        notes = ours.notes_at(tip)
        for note in incoming:
            current = notes.get(note.commit)
            if current is None:
                notes[note.commit] = note.blob
                report.added += 1
            elif current != note.blob:
                take, why = choose(ours.blob(current), theirs.blob(note.blob), note_location(note.commit, other_ref))
                report.decisions.append(f"{note.commit[:12]}: {why}")
                if take:
                    notes[note.commit] = note.blob
                    report.replaced += 1
                else:
                    report.kept += 1
        if not report.kept and (our_tip is None or is_descendant(repo, their_tip, our_tip)):
            return their_tip
        return ours.commit_notes(notes, message, [p for p in (our_tip, their_tip) if p])

    ours.swap(plan, message)
    return report
