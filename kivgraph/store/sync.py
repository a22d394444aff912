"""Git over the network: moving the notes ref between clones (fetch → merge per commit → push,
retried), fetching only the notes a pull request reads (the tip without history, one blob or two),
and reading another repository's notes without cloning it (ls-remote + a notes fetch).

Never force-pushes without a lease (only a prune rewrites the remote's ref, and only while it is
still what was merged), never uses `git notes merge` (its text strategies corrupt binary notes),
and moves our notes ref only by compare-and-swap, so a failed fetch or push loses nothing local.
"""

import hashlib
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pygit2

from kivgraph.errors import GenerationNotFoundError, GitFailedError, InvalidArgumentError, NotesError
from kivgraph.store import MergeReport, merge_notes, note_location
from kivgraph.store.git import (
    first_line,
    git_dir,
    init_bare,
    lookup,
    noted_ancestors,
    open_repository,
    prefetch,
    remote_url,
    run_git,
    set_local_config,
)
from kivgraph.store.notes import NOTES_REF, NotesStore

BACKOFF_BASE = 0.05
BACKOFF_CAP = 2.0
"""A rejected push waits up to BACKOFF_BASE · 2^(attempt-1) seconds (capped), jittered, before retrying."""
RETRYABLE = ("fetch first", "non-fast-forward", "stale info", "failed to update ref", "cannot lock ref",
             "failed to lock")  # fmt: skip
"""Push rejections that mean "the remote moved under you": fetch, merge and push again.

The first two come from our side's fast-forward check, "stale info" from a lease (a prune's
forced push) that no longer holds; the others from the remote's own compare-and-swap when another
push landed between its ref advertisement and its update."""
HISTORY_DEPTH = 200
"""Commits of a remote branch fetched (only when its head has no note) to find the nearest indexed one."""
_ADVICE = "check the remote with `git remote -v` and your access to it; nothing local was changed."


@dataclass(frozen=True, slots=True)
class SyncResult:
    remote: str
    fetched: int
    """Notes (commits) the remote had at the last fetch; 0 when nothing was fetched."""
    merged: MergeReport = field(default_factory=MergeReport)
    """What the merges of this call did: counts and, per commit held on both sides, who won and why."""
    pushed: bool = False
    """True when the remote's ref moved to ours; False when it already had it, or we had no notes."""
    attempts: int = 0
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
    then merge them into `ref` (store.choose decides per commit held on both sides).

    A remote without the notes ref is not an error (fetched=0). A fetch that fails (unknown remote,
    unreachable URL, refused credentials) raises NotesError and changes nothing local.
    """
    repo = open_repository(repo_path)
    NotesStore(repo, ref).tip()  # refuse a corrupt local ref before touching the network
    fetched, merged = _fetch_and_merge(repo, remote, ref)
    return SyncResult(remote, fetched, merged)


@dataclass(frozen=True, slots=True)
class NarrowFetch:
    """What the pull-request side fetched of a remote's notes (`fetch_notes_for`)."""

    remote: str
    fetched: int
    """Notes on the remote's ref (0: it has none)."""
    partial: bool
    """True when the server left the blobs out and only those of `read` came; False when it does
    not filter, and every note blob of the ref's tip came."""
    read: tuple[str, ...] = ()
    """The indexed commits whose note blob was brought: each asked commit's, else its nearest indexed ancestor's."""
    merged: MergeReport = field(default_factory=MergeReport)
    line: str = ""
    """One line saying what came (and, when the server does not filter, that the whole ref did)."""


def fetch_notes_for(repo_path: str, remote: str, commits: Sequence[str], ref: str = NOTES_REF) -> NarrowFetch:
    """Fetch only what reading `commits`' generations needs, then merge it into `ref` as
    `fetch_notes` does: the remote's notes commit without its history (`--depth=1`) and its trees
    without blobs (`--filter=blob:none`), then, in one batch, the note blob of each commit or of its
    nearest indexed ancestor. Bytes moved follow the notes on the tip, never the history's length.

    A server that does not filter (`uploadpack.allowFilter` unset) sends every blob of the tip:
    still no history, and `line` says so. The partial fetch goes through a remote of its own,
    `kivgraph-REMOTE` (same URL, skipped by `git fetch --all`), which git records as the promisor
    of the missing blobs — any other note is fetched from it when read — so REMOTE's settings, and
    the checkout's later fetches from it, stay as they were.
    """
    repo = open_repository(repo_path)
    NotesStore(repo, ref).tip()  # refuse a corrupt local ref before touching the network
    tracking = tracking_ref(remote, ref)
    url = remote_url(repo, remote)
    if not url:
        raise NotesError(f"{remote!r} is not a configured remote (see `git remote -v`); {_ADVICE}")
    promisor = promisor_for(repo, remote, url)
    args = ["fetch", "--no-tags", "--no-write-fetch-head", "--depth=1", "--filter=blob:none", promisor,
            f"+{ref}:{tracking}"]  # fmt: skip
    done = run_git(git_dir(repo), *args)
    if done.returncode != 0 and "support shallow" in done.stderr:  # a dumb server: the tip with its history
        done = run_git(git_dir(repo), *(a for a in args if a != "--depth=1"))
    if done.returncode != 0:
        if "couldn't find remote ref" in done.stderr:
            return NarrowFetch(remote, 0, False, line=f"{remote} has no {ref} yet")
        raise NotesError(f"cannot fetch {ref} from remote {remote!r}: {first_line(done)}; {_ADVICE}")
    partial = "filtering not recognized" not in done.stderr
    repo = open_repository(repo_path)  # again: the fetch may have made it shallow, and a partial clone
    fetched = sum(1 for _ in NotesStore(repo, tracking).entries())
    merged = merge_notes(repo, tracking, ref)
    read = _read_for(repo, ref, commits)
    head = f"fetched {ref} from {remote}: {fetched} indexed commit(s)"
    if not partial:
        line = (f"{head}; {remote} does not serve partial fetches (uploadpack.allowFilter), so every note blob of "
                "the ref came, without its history")  # fmt: skip
    elif read:
        line = f"{head}; the ref without its history or blobs, then the note of {', '.join(c[:12] for c in read)}"
    else:
        line = f"{head}; the ref without its history or blobs (no note on the asked commits or their ancestors)"
    return NarrowFetch(remote, fetched, partial, tuple(read), merged, line)


def promisor_for(repo: pygit2.Repository, remote: str, url: str) -> str:
    """The remote `kivgraph-REMOTE` with REMOTE's URL, made once: a filtered fetch makes the remote it
    names a promisor whose later fetches are filtered too, and that must not be the user's own."""
    name = f"kivgraph-{remote}"
    if remote_url(repo, name) != url:
        set_local_config(repo, f"remote.{name}.url", url)
        set_local_config(repo, f"remote.{name}.skipFetchAll", "true")
    return name


def _read_for(repo: pygit2.Repository, ref: str, commits: Sequence[str]) -> list[str]:
    """Bring, in one fetch, the note blob of each commit or of its nearest indexed ancestor."""
    notes = {note.commit: note.blob for note in NotesStore(repo, ref).entries()}
    chosen: list[str] = []
    try:
        for commit in commits:
            found = lookup(repo, commit)
            if not notes or not isinstance(found, pygit2.Commit):
                continue
            nearest = next(noted_ancestors(repo, found, set(notes)), None)
            if nearest is not None and nearest[0] not in chosen:
                chosen.append(nearest[0])
        prefetch(repo, [notes[commit] for commit in chosen])
    except GitFailedError as err:
        raise NotesError(f"the notes of {ref} that this pull request reads could not be fetched: {err}") from err
    return chosen


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
        _known_remote(repo, remote)
        return SyncResult(remote, 0)
    fetched, merged = 0, MergeReport()
    reason = ""
    for attempt in range(1, attempts + 1):
        outcome, reason = push_ref(repo, remote, ref)
        if outcome != "rejected":
            return SyncResult(remote, fetched, merged, pushed=outcome == "pushed", attempts=attempt)
        if attempt == attempts:
            break
        time.sleep(random.uniform(0, min(BACKOFF_CAP, BACKOFF_BASE * 2 ** (attempt - 1))))
        fetched, report = _fetch_and_merge(repo, remote, ref)
        merged = merged + report
    raise NotesError(
        f"remote {remote!r} kept moving: the push of {ref} was still rejected after {attempts} "
        f"attempt{'s' if attempts > 1 else ''} ({reason}); nothing local was lost, run the push again."
    )


def _known_remote(repo: pygit2.Repository, remote: str) -> None:
    """With nothing to push no network is needed, but a remote that is neither configured nor a
    repository URL answering at that address is still a mistake worth saying."""
    if remote in repo.remotes.names():
        return
    done = run_git(git_dir(repo), "ls-remote", "--exit-code", remote, "HEAD")
    if done.returncode not in (0, 2):  # 2: it answered, and has no HEAD
        raise NotesError(f"{remote!r} is not a configured remote nor a reachable repository ({first_line(done)}); "
                         "see `git remote -v`.")  # fmt: skip


def _fetch_and_merge(repo: pygit2.Repository, remote: str, ref: str) -> tuple[int, MergeReport]:
    tracking = tracking_ref(remote, ref)
    done = run_git(git_dir(repo), "fetch", "--no-tags", "--no-write-fetch-head", remote, f"+{ref}:{tracking}")
    if done.returncode != 0:
        if "couldn't find remote ref" in done.stderr:
            return 0, MergeReport()
        raise NotesError(f"cannot fetch {ref} from remote {remote!r}: {first_line(done)}; {_ADVICE}")
    fetched = sum(1 for _ in NotesStore(repo, tracking).entries())
    return fetched, merge_notes(repo, tracking, ref)


def push_ref(repo: pygit2.Repository, remote: str, ref: str, lease: str | None = None) -> tuple[str, str]:
    """("pushed" | "up to date" | "rejected", git's summary); any other failure raises NotesError.

    Without `lease`, a plain push (the remote fast-forwards). With one — the remote tip we merged,
    "" for none — a forced push that lands only while the remote's ref is still exactly that: a
    compare-and-swap on the remote, so nothing pushed after our fetch is overwritten unseen."""
    forced = () if lease is None else (f"--force-with-lease={ref}:{lease}",)
    done = run_git(git_dir(repo), "push", "--porcelain", *forced, remote, f"{ref}:{ref}")
    for line in done.stdout.splitlines():
        fields = line.split("\t")
        if len(fields) < 3 or fields[1] != f"{ref}:{ref}":
            continue
        flag, summary = fields[0], fields[2]
        if flag in (" ", "*", "+"):
            return "pushed", summary
        if flag == "=":
            return "up to date", summary
        if flag == "!" and any(reason in summary for reason in RETRYABLE):
            return "rejected", summary
        raise NotesError(f"remote {remote!r} refused {ref}: {summary} ({first_line(done)}); nothing was pushed.")
    raise NotesError(f"cannot push {ref} to remote {remote!r}: {first_line(done)}; {_ADVICE}")


# -- another repository's notes, without a clone ---------------------------------------------------


class RemoteUnreadableError(NotesError):
    code = "REMOTE_UNREADABLE"


@dataclass(frozen=True, slots=True)
class RemoteNote:
    """The generation a remote branch answers with: the note on its head, else on the nearest
    indexed commit of its recent history."""

    commit: str
    head: str
    branch_ref: str
    behind: int
    blob: bytes
    location: str


def remote_note(url: str, branch: str, store_dir: Path, ref: str = NOTES_REF) -> RemoteNote:
    """Read `url`'s notes into a small bare cache (`store_dir`) and pick the note for `branch`'s head."""
    repo = init_bare(str(store_dir))
    head, branch_ref = remote_head(url, branch)
    fetched = run_git(str(store_dir), "fetch", "--no-tags", "--quiet", url, f"+{ref}:{ref}")
    if fetched.returncode != 0:
        if "couldn't find remote ref" in fetched.stderr:
            raise GenerationNotFoundError(f"{url} ({branch_ref})", "the repository publishes no generations "
                                          f"({ref}); index it there and push the notes.")  # fmt: skip
        raise RemoteUnreadableError(f"cannot fetch {ref} from {url}: {first_line(fetched)}.")
    notes = NotesStore(repo, ref)
    blob = notes.read(head)
    if blob is not None:
        return RemoteNote(head, head, branch_ref, 0, blob, f"{url} {note_location(head, ref)}")
    local_ref = f"refs/kivgraph/heads/{hashlib.sha1(branch_ref.encode()).hexdigest()[:8]}"
    history = run_git(str(store_dir), "fetch", "--no-tags", "--quiet", f"--depth={HISTORY_DEPTH}", url,
                      f"+{branch_ref}:{local_ref}")  # fmt: skip
    if history.returncode != 0:
        raise RemoteUnreadableError(f"cannot fetch the history of {branch_ref} from {url}: {first_line(history)}.")
    tip = lookup(repo, head)
    noted = {n.commit for n in notes.entries()}
    if isinstance(tip, pygit2.Commit) and noted:
        for commit, behind in noted_ancestors(repo, tip, noted):
            blob = notes.read(commit)
            if blob is not None:
                return RemoteNote(commit, head, branch_ref, behind, blob, f"{url} {note_location(commit, ref)}")
    raise GenerationNotFoundError(f"{url} ({branch_ref} at {head[:12]})", "neither the branch head nor "
                                  f"its last {HISTORY_DEPTH} commits are indexed.")  # fmt: skip


def remote_head(url: str, branch: str) -> tuple[str, str]:
    """(commit, full ref) of the branch on the remote; without one, its default branch (HEAD), else
    its only branch, else `main` or `master`."""
    done = run_git(None, "ls-remote", "--symref", url, *([f"refs/heads/{branch}"] if branch else []))
    if done.returncode != 0:
        raise RemoteUnreadableError(f"cannot reach {url}: {first_line(done)}.")
    heads: dict[str, str] = {}
    default = ""
    for line in done.stdout.splitlines():
        if line.startswith("ref: ") and line.endswith("\tHEAD"):
            default = line.split()[1]
        elif "\t" in line:
            sha, _, name = line.partition("\t")
            heads[name] = sha
    if branch:
        wanted = f"refs/heads/{branch}"
        if wanted not in heads:
            raise RemoteUnreadableError(f"{url} has no branch {branch!r}.")
        return heads[wanted], wanted
    branches = {name: sha for name, sha in heads.items() if name.startswith("refs/heads/")}
    for name in (default, *(list(branches) if len(branches) == 1 else []), "refs/heads/main", "refs/heads/master"):
        if name in branches:
            return branches[name], name
    raise RemoteUnreadableError(f'{url} has no default branch; name one with branch = "…".')
