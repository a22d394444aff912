"""Moving the notes ref between clones: fetch → merge (newest generation wins per commit) → push, retried.

Owns the `git fetch` / `git push` subprocesses and the retry loop around a rejected push. Never
force-pushes, never uses `git notes merge` (its text strategies corrupt binary notes), and moves our
notes ref only by compare-and-swap, so a failed fetch or push loses nothing local. No CBOR here.
"""

import os
import random
import subprocess
import time
from dataclasses import dataclass

import pygit2

from kivgraph.errors import InvalidArgumentError, NotesError
from kivgraph.store import merge_notes
from kivgraph.store.notes import NOTES_REF, UPDATE_ATTEMPTS, NotesStore, open_repository

GIT_TIMEOUT = 300.0
"""Seconds one `git fetch` or `git push` may take before the remote is reported unreachable."""
BACKOFF_BASE = 0.05
BACKOFF_CAP = 2.0
"""A rejected push waits up to BACKOFF_BASE · 2^(attempt-1) seconds (capped), jittered, before retrying."""
RETRYABLE = ("fetch first", "non-fast-forward", "failed to update ref", "cannot lock ref", "failed to lock")
"""Push rejections that mean "the remote moved under you": fetch, merge and push again.

The first two come from our side's fast-forward check; the others from the remote's own
compare-and-swap when another push landed between its ref advertisement and its update."""
ZERO = "0" * 40


@dataclass(frozen=True, slots=True)
class SyncResult:
    remote: str
    fetched: int
    """Notes (commits) the remote had at the last fetch; 0 when nothing was fetched."""
    merged: dict[str, int]
    """merge_notes' counts (added, replaced, kept), summed over every merge this call made."""
    pushed: bool
    """True when the remote's ref moved to ours; False when it already had it, or we had no notes."""
    attempts: int
    """Push attempts: 1 when the first push landed, 0 for a fetch or when there was nothing to push."""


def tracking_ref(remote: str, ref: str = NOTES_REF) -> str:
    """Where a remote's notes land locally: `refs/notes/kivgraph` of origin → `refs/notes/remotes/origin/kivgraph`."""
    tracking = f"refs/notes/remotes/{remote}/{ref.removeprefix('refs/notes/')}"
    if not pygit2.reference_is_valid_name(tracking):
        raise NotesError(
            f"{remote!r} cannot name a remote-tracking notes ref; pass the name of a configured remote "
            f"(see `git remote -v`, add one with `git remote add NAME URL`)."
        )
    return tracking


def fetch_notes(repo_path: str, remote: str = "origin", ref: str = NOTES_REF) -> SyncResult:
    """Fetch the remote's notes into `refs/notes/remotes/<remote>/<name>` (never straight into ours),
    then merge them into `ref`, newest generation winning per commit.

    A remote without the notes ref is not an error (fetched=0). A fetch that fails (unknown remote,
    unreachable URL, refused credentials) raises NotesError and changes nothing local.
    """
    repo = open_repository(repo_path)
    NotesStore(repo, ref).tip()  # refuse a corrupt local ref before touching the network
    fetched, merged = _fetch_and_merge(repo, remote, ref)
    return SyncResult(remote, fetched, merged, pushed=False, attempts=0)


def push_notes(repo_path: str, remote: str = "origin", ref: str = NOTES_REF, attempts: int = 10) -> SyncResult:
    """Push `ref` to the same ref on the remote; when the remote moved, fetch + merge + push again.

    At most `attempts` pushes, with jittered exponential backoff between them. The pushed ref is
    always a descendant of the remote's (the merge keeps the remote tip as a parent), so a plain
    push suffices: never a force-push. A rejection that is not "the remote moved" (a hook declined,
    a protected ref) is reported at once, not retried.
    """
    if attempts < 1:
        raise InvalidArgumentError(f"attempts must be at least 1, not {attempts}.")
    repo = open_repository(repo_path)
    tracking_ref(remote, ref)  # a remote that cannot be tracked is refused before the first push
    if NotesStore(repo, ref).tip() is None:
        return SyncResult(remote, 0, _no_merge(), pushed=False, attempts=0)
    fetched, merged = 0, _no_merge()
    reason = ""
    for attempt in range(1, attempts + 1):
        outcome, reason = _push(repo, remote, ref)
        if outcome != "rejected":
            return SyncResult(remote, fetched, merged, pushed=outcome == "pushed", attempts=attempt)
        if attempt == attempts:
            break
        time.sleep(random.uniform(0, min(BACKOFF_CAP, BACKOFF_BASE * 2 ** (attempt - 1))))
        fetched, counts = _fetch_and_merge(repo, remote, ref)
        merged = {key: merged.get(key, 0) + value for key, value in counts.items()}
    raise NotesError(
        f"remote {remote!r} kept moving: the push of {ref} was still rejected after {attempts} "
        f"attempt{'s' if attempts > 1 else ''} ({reason}); nothing local was lost, run the push again."
    )


def _no_merge() -> dict[str, int]:
    # merge_notes' keys, so callers read the same shape whether or not a merge ran.
    return {"added": 0, "replaced": 0, "kept": 0}


def _fetch_and_merge(repo: pygit2.Repository, remote: str, ref: str) -> tuple[int, dict[str, int]]:
    tracking = tracking_ref(remote, ref)
    done = _git(repo, "fetch", "--no-tags", "--no-write-fetch-head", remote, f"+{ref}:{tracking}", remote=remote)
    if done.returncode != 0:
        if "couldn't find remote ref" in done.stderr:
            return 0, _no_merge()
        raise NotesError(f"cannot fetch {ref} from remote {remote!r}: {_first_line(done)}; {_ADVICE}")
    fetched = sum(1 for _ in NotesStore(repo, tracking).entries())
    return fetched, merge_into(repo, tracking, ref)


def merge_into(repo: pygit2.Repository, other_ref: str, ref: str = NOTES_REF) -> dict[str, int]:
    """Merge `other_ref` into `ref`: fast-forward when nothing was written on our side since (as
    git would, instead of a merge commit of identical content on every fetch), else merge_notes
    (newest generation wins per commit, rebuilt on the tip a concurrent local writer leaves)."""
    ours, theirs = NotesStore(repo, ref), NotesStore(repo, other_ref)
    their_tip = theirs.tip()
    if their_tip is None:
        return _no_merge()
    for attempt in range(UPDATE_ATTEMPTS):
        our_tip = ours.tip()
        if our_tip is not None and (our_tip == their_tip or repo.descendant_of(our_tip, their_tip)):
            return _no_merge()
        if our_tip is not None and not repo.descendant_of(their_tip, our_tip):
            return merge_notes(repo, other_ref, ref)
        counts = _fast_forward_counts(ours, theirs)
        if _compare_and_swap(repo, ref, their_tip, our_tip, f"kivgraph: merge {other_ref} into {ref}"):
            return counts
        time.sleep(random.uniform(0, 0.005 * (attempt + 1)))
    raise NotesError(f"{ref} kept moving under concurrent writers; {other_ref} was not merged into it, retry.")


def _fast_forward_counts(ours: NotesStore, theirs: NotesStore) -> dict[str, int]:
    mine = {note.commit: note.blob for note in ours.entries()}
    counts = _no_merge()
    for note in theirs.entries():
        if note.commit not in mine:
            counts["added"] += 1
        elif mine[note.commit] != note.blob:
            counts["replaced"] += 1
    return counts


def _compare_and_swap(repo: pygit2.Repository, ref: str, new: str, old: str | None, message: str) -> bool:
    return _git(repo, "update-ref", "-m", message, ref, new, old or ZERO).returncode == 0


def _push(repo: pygit2.Repository, remote: str, ref: str) -> tuple[str, str]:
    """("pushed" | "up to date" | "rejected", git's summary); any other failure raises NotesError."""
    done = _git(repo, "push", "--porcelain", remote, f"{ref}:{ref}", remote=remote)
    for line in done.stdout.splitlines():
        fields = line.split("\t")
        if len(fields) < 3 or fields[1] != f"{ref}:{ref}":
            continue
        flag, summary = fields[0], fields[2]
        if flag in (" ", "*"):
            return "pushed", summary
        if flag == "=":
            return "up to date", summary
        if flag == "!" and any(reason in summary for reason in RETRYABLE):
            return "rejected", summary
        raise NotesError(f"remote {remote!r} refused {ref}: {summary} ({_first_line(done)}); nothing was pushed.")
    raise NotesError(f"cannot push {ref} to remote {remote!r}: {_first_line(done)}; {_ADVICE}")


_ADVICE = "check the remote with `git remote -v` and your access to it; nothing local was changed."


def _first_line(done: subprocess.CompletedProcess[str]) -> str:
    """git's first error line (`fatal: …`, `error: …`), else its first line at all."""
    lines = [line.strip() for line in done.stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith(("fatal:", "error:"))]
    first = (errors or lines or [f"git exited with status {done.returncode}"])[0]
    return first.rstrip(".")


def _git(repo: pygit2.Repository, *args: str, remote: str = "") -> subprocess.CompletedProcess[str]:
    # C locale: the stderr we match ("couldn't find remote ref") and quote is git's English text.
    # No terminal prompt: a missing credential fails at once instead of hanging a CI job or a server.
    env = {**os.environ, "LC_ALL": "C", "GIT_TERMINAL_PROMPT": "0"}
    try:
        return subprocess.run(
            ["git", *args],
            cwd=repo.workdir or repo.path,
            env=env,
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            timeout=GIT_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired as err:
        raise NotesError(
            f"git {args[0]} {remote!r} did not finish within {GIT_TIMEOUT:.0f} s; "
            f"check that the remote is reachable. Nothing local was changed."
        ) from err
    except OSError as err:
        raise NotesError(f"cannot run git ({err.strerror}); install git and make sure it is on PATH.") from err
