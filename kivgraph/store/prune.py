"""Keeping the notes ref small: the notes of the default branch's last N first-parent commits (and,
when asked, of tagged commits) stay and every other goes, in one notes commit without parents, so
neither the ref nor anything fetched through it carries the dropped blobs any more.

Policy only: git through store.git, notes through NotesStore, merging by store.merge_notes, and the
push by sync.push_ref with a lease — the remote's ref moves only while it is what was merged.
"""

import random
import time
from dataclasses import dataclass, field
from typing import Any

import pygit2

from kivgraph.errors import InvalidArgumentError, NotesError
from kivgraph.store import MergeReport, merge_notes
from kivgraph.store.git import (
    branch_tip,
    first_line,
    first_parents,
    git_dir,
    is_descendant,
    open_repository,
    run_git,
    stored_size,
    tagged_commits,
)
from kivgraph.store.notes import NOTES_REF, NotesStore
from kivgraph.store.sync import BACKOFF_BASE, BACKOFF_CAP, push_ref, tracking_ref

DEFAULT_KEEP = 200
"""First-parent commits whose notes a prune keeps by default: a pull request's base is almost
always among the default branch's last 200 commits, and 200 notes of 200–400 KB are 40–80 MB."""
LOCAL_DEFAULTS = ("refs/remotes/origin/HEAD", "refs/heads/main", "refs/heads/master", "HEAD")
"""Without a remote or --branch, the branch whose history decides: origin's default, else main or
master, else whatever HEAD is."""


@dataclass(frozen=True, slots=True)
class PrunedNote:
    commit: str
    size: int | None
    """Bytes of its blob; None when this (partial) clone does not have it, and nothing is fetched to say."""


@dataclass(frozen=True, slots=True)
class PruneResult:
    remote: str
    """"" when only this clone's ref was pruned."""
    ref: str
    branch: str
    """The ref whose first-parent history decided (`refs/remotes/origin/main`)."""
    branch_commit: str
    keep: int
    kept: tuple[PrunedNote, ...]
    dropped: tuple[PrunedNote, ...]
    tagged: int
    """Notes kept only because a tag points at their commit."""
    newer: int
    """Notes kept because their commit descends from the branch's tip: newer than the branch we saw."""
    dry_run: bool
    notes_commit: str | None = None
    """The parentless notes commit the ref was moved to; None when nothing changed (and on a dry run)."""
    pushed: bool = False
    attempts: int = 0
    """Pushes made: 1 when the first landed, 0 when there was nothing to push."""
    deepened: bool = False
    """True when a shallow clone's branch history was fetched deeper to see N commits."""
    merged: MergeReport = field(default_factory=MergeReport)

    def to_json(self) -> dict[str, Any]:
        return {
            "remote": self.remote or None,
            "ref": self.ref,
            "branch": self.branch,
            "branch_commit": self.branch_commit,
            "keep": self.keep,
            "dry_run": self.dry_run,
            "kept": {"notes": len(self.kept), "bytes": _bytes(self.kept), "tagged": self.tagged, "newer": self.newer},
            "dropped": {
                "notes": len(self.dropped),
                "bytes": _bytes(self.dropped),
                "commits": [{"commit": n.commit, "bytes": n.size} for n in self.dropped],
            },
            "notes_commit": self.notes_commit,
            "pushed": self.pushed,
            "attempts": self.attempts,
            "deepened": self.deepened,
            "merged": self.merged.counts(),
        }


def _bytes(notes: tuple[PrunedNote, ...]) -> int:
    return sum(note.size or 0 for note in notes)


@dataclass(frozen=True, slots=True)
class _Window:
    """What decides which notes stay."""

    branch: str
    tip: str
    commits: frozenset[str]
    tagged: frozenset[str]


@dataclass(frozen=True, slots=True)
class _Decision:
    kept: dict[str, str]
    dropped: dict[str, str]
    tagged: int
    newer: int


def prune_notes(
    repo_path: str,
    remote: str = "",
    keep: int = DEFAULT_KEEP,
    *,
    keep_tags: bool = False,
    dry_run: bool = False,
    branch: str = "",
    ref: str = NOTES_REF,
    attempts: int = 10,
) -> PruneResult:
    """Keep the notes of the last `keep` first-parent commits of the default branch (and of tagged
    commits with `keep_tags`, and of commits newer than the branch's tip); drop the rest in one
    notes commit without parents.

    With a remote: one fetch brings its notes and its branch (one snapshot, so a note pushed for a
    commit of the branch comes with that commit), the notes are merged into ours by the rules of
    `notes fetch`, ours are pruned by compare-and-swap, and the result is pushed with a lease on the
    remote tip we merged. When another push landed meanwhile the lease fails, and it all runs again
    on the new tip: a note written concurrently for a kept commit is merged in, never lost. A
    shallow clone's branch is fetched deeper first. Without a remote, only this clone's ref changes.
    """
    if keep < 1:
        raise InvalidArgumentError(f"--keep must be at least 1 (first-parent commits whose notes stay), not {keep}.")
    if attempts < 1:
        raise InvalidArgumentError(f"attempts must be at least 1, not {attempts}.")
    repo = open_repository(repo_path)
    store = NotesStore(repo, ref)
    store.tip()  # refuse a corrupt local ref before touching the network
    if not remote:
        return _prune_here(repo, store, keep, keep_tags, dry_run, branch)
    tracking = tracking_ref(remote, ref)
    name = _remote_branch(repo, remote, branch)
    merged = MergeReport()
    reason = ""
    deepened = False
    for attempt in range(1, attempts + 1):
        expected = _fetch(repo, remote, ref, tracking, name)
        if expected is None and store.tip() is None:
            raise NotesError(f"neither remote {remote!r} nor this clone has {ref}: there is nothing to prune "
                             f"(`kivgraph notes push {remote}` publishes notes).")  # fmt: skip
        window, deepening = _remote_window(repo, remote, name, keep, keep_tags, deepen=True)
        if deepening:  # a deepened clone is read afresh: libgit2 keeps the shallow grafts it opened with
            deepened = True
            repo = open_repository(repo_path)
            store = NotesStore(repo, ref)
            window, _ = _remote_window(repo, remote, name, keep, keep_tags, deepen=False)
        if dry_run:
            notes = {} if expected is None else _notes(NotesStore(repo, tracking))
            notes.update(_notes(store))
            decision = _decide(repo, window, notes)
            return _result(repo, remote, ref, window, keep, decision, dry_run=True, deepened=deepened)
        if expected is not None:
            merged = merged + merge_notes(repo, tracking, ref)
        decision, moved = _rewrite(repo, store, window, keep)
        result = _result(repo, remote, ref, window, keep, decision, dry_run=False, deepened=deepened,
                         notes_commit=moved, merged=merged)  # fmt: skip
        if store.tip() == expected:
            return result
        outcome, reason = push_ref(repo, remote, ref, lease=expected or "")
        if outcome != "rejected":
            return _replace(result, pushed=outcome == "pushed", attempts=attempt)
        if attempt < attempts:
            time.sleep(random.uniform(0, min(BACKOFF_CAP, BACKOFF_BASE * 2 ** (attempt - 1))))
    raise NotesError(
        f"remote {remote!r} kept moving: the pruned {ref} was still rejected after {attempts} attempt"
        f"{'s' if attempts > 1 else ''} ({reason}); the remote keeps every note it had, run the prune again."
    )


def _prune_here(
    repo: pygit2.Repository, store: NotesStore, keep: int, keep_tags: bool, dry_run: bool, branch: str
) -> PruneResult:
    if store.tip() is None:
        raise NotesError(f"there is no {store.ref} in {git_dir(repo)}: nothing to prune (index commits with "
                         "`kivgraph index`, or prune the shared notes: `kivgraph notes prune origin`).")  # fmt: skip
    found = _local_branch(repo, branch)
    chain, cut = first_parents(repo, found[1], keep)
    if cut:
        raise NotesError(_cut_short(found[0], len(chain), keep, cut) + " (`git fetch --deepen=" + str(keep)
                         + "`), or prune against the remote (`kivgraph notes prune origin`).")  # fmt: skip
    window = _Window(found[0], found[1], frozenset(chain), frozenset(tagged_commits(repo) if keep_tags else ()))
    if dry_run:
        return _result(repo, "", store.ref, window, keep, _decide(repo, window, _notes(store)), dry_run=True)
    decision, moved = _rewrite(repo, store, window, keep)
    return _result(repo, "", store.ref, window, keep, decision, dry_run=False, notes_commit=moved)


def _cut_short(branch: str, seen: int, keep: int, cut: str) -> str:
    why = "the clone is shallow" if cut == "shallow" else "a commit of it is missing"
    return (f"only {seen} of the {keep} first-parent commits of {branch} to keep are here ({why}), so which notes "
            "are recent cannot be told; fetch more history")  # fmt: skip


def _notes(store: NotesStore) -> dict[str, str]:
    return {note.commit: note.blob for note in store.entries()}


def _decide(repo: pygit2.Repository, window: _Window, notes: dict[str, str]) -> _Decision:
    kept: dict[str, str] = {}
    dropped: dict[str, str] = {}
    tagged = newer = 0
    for commit, blob in sorted(notes.items()):
        if commit in window.commits:
            kept[commit] = blob
        elif commit in window.tagged:
            kept[commit] = blob
            tagged += 1
        elif is_descendant(repo, commit, window.tip):
            kept[commit] = blob
            newer += 1
        else:
            dropped[commit] = blob
    return _Decision(kept, dropped, tagged, newer)


def _rewrite(repo: pygit2.Repository, store: NotesStore, window: _Window, keep: int) -> tuple[_Decision, str | None]:
    """Move our ref to a parentless commit of the kept notes, planned on its tip as it is at the swap
    (a note saved meanwhile is planned in); None when it already is one and nothing goes."""
    decisions: list[_Decision] = []

    def plan(tip: pygit2.Commit | None) -> str | None:
        decision = _decide(repo, window, store.notes_at(tip))
        decisions.append(decision)
        if tip is None or (not decision.dropped and not tip.parent_ids):
            return None
        message = (f"kivgraph: prune to the notes of the last {keep} first-parent commits of {window.branch} "
                   f"({window.tip[:12]}): {len(decision.kept)} kept, {len(decision.dropped)} dropped")  # fmt: skip
        return store.commit_notes(decision.kept, message, [])

    moved = store.swap(plan, "kivgraph: prune")
    return decisions[-1], moved


def _result(
    repo: pygit2.Repository,
    remote: str,
    ref: str,
    window: _Window,
    keep: int,
    decision: _Decision,
    *,
    dry_run: bool,
    deepened: bool = False,
    notes_commit: str | None = None,
    merged: MergeReport | None = None,
) -> PruneResult:
    def sized(notes: dict[str, str]) -> tuple[PrunedNote, ...]:
        return tuple(PrunedNote(commit, stored_size(repo, blob)) for commit, blob in notes.items())

    return PruneResult(remote, ref, window.branch, window.tip, keep, sized(decision.kept), sized(decision.dropped),
                       decision.tagged, decision.newer, dry_run, notes_commit, deepened=deepened,
                       merged=merged or MergeReport())  # fmt: skip


def _replace(result: PruneResult, pushed: bool, attempts: int) -> PruneResult:
    return PruneResult(result.remote, result.ref, result.branch, result.branch_commit, result.keep, result.kept,
                       result.dropped, result.tagged, result.newer, result.dry_run, result.notes_commit, pushed,
                       attempts, result.deepened, result.merged)  # fmt: skip


# -- which branch, and its history ---------------------------------------------------------------


def _local_branch(repo: pygit2.Repository, branch: str) -> tuple[str, str]:
    """(ref, commit) of the branch whose history decides, in this clone."""
    candidates = (f"refs/heads/{branch}", f"refs/remotes/{branch}", branch) if branch else LOCAL_DEFAULTS
    for candidate in candidates:
        found = branch_tip(repo, candidate) if candidate.startswith("refs/") or candidate == "HEAD" else None
        if found is not None:
            return found
    if branch:
        raise InvalidArgumentError(f"there is no branch {branch!r} in {git_dir(repo)}; name one that "
                                   "`git branch -a` lists with --branch.")  # fmt: skip
    raise NotesError(f"{git_dir(repo)} has no branch to keep the notes of (no origin/HEAD, main, master or "
                     "HEAD commit); name one with --branch.")  # fmt: skip


def _remote_branch(repo: pygit2.Repository, remote: str, branch: str) -> str:
    """The remote's branch whose history decides: --branch, else its HEAD, else main or master."""
    if branch:
        return branch.removeprefix("refs/heads/")
    done = run_git(git_dir(repo), "ls-remote", "--symref", remote, "HEAD")
    if done.returncode != 0:
        raise NotesError(f"cannot reach remote {remote!r}: {first_line(done)}; check it with `git remote -v`. "
                         "Nothing was changed.")  # fmt: skip
    for line in done.stdout.splitlines():
        if line.startswith("ref: refs/heads/") and line.endswith("\tHEAD"):
            return line[len("ref: refs/heads/") : -len("\tHEAD")]
    heads = run_git(git_dir(repo), "ls-remote", "--heads", remote, "main", "master").stdout
    names = {line.partition("\t")[2] for line in heads.splitlines()}
    for name in ("main", "master"):
        if f"refs/heads/{name}" in names:
            return name
    raise InvalidArgumentError(f"remote {remote!r} names no default branch (HEAD) and has neither main nor master; "
                               "name the branch whose notes to keep with --branch.")  # fmt: skip


def _fetch(repo: pygit2.Repository, remote: str, ref: str, tracking: str, name: str) -> str | None:
    """One fetch, so one snapshot of the remote: its notes into the tracking ref and its branch into
    refs/remotes/REMOTE/NAME. Returns the remote's notes tip (None when it has no notes)."""
    branch_spec = f"+refs/heads/{name}:refs/remotes/{remote}/{name}"
    fetch = ("fetch", "--no-tags", "--no-write-fetch-head", remote)
    done = run_git(git_dir(repo), *fetch, f"+{ref}:{tracking}", branch_spec)
    has_notes = True
    if done.returncode != 0 and f"couldn't find remote ref {ref}" in done.stderr:
        has_notes = False
        done = run_git(git_dir(repo), *fetch, branch_spec)
    if done.returncode != 0:
        if f"couldn't find remote ref refs/heads/{name}" in done.stderr:
            raise InvalidArgumentError(f"remote {remote!r} has no branch {name!r}; name one that "
                                       f"`git ls-remote --heads {remote}` lists with --branch.")  # fmt: skip
        raise NotesError(f"cannot fetch {ref} and {name} from remote {remote!r}: {first_line(done)}; check it with "
                         "`git remote -v`. Nothing was changed.")  # fmt: skip
    return NotesStore(repo, tracking).tip() if has_notes else None


def _remote_window(
    repo: pygit2.Repository, remote: str, name: str, keep: int, keep_tags: bool, deepen: bool
) -> tuple[_Window, bool]:
    """The window on the remote's branch as just fetched, and False; when a shallow clone's branch
    is too short and `deepen`, it is fetched `keep` commits deep instead, and True (read it again)."""
    branch_ref = f"refs/remotes/{remote}/{name}"
    found = branch_tip(repo, branch_ref)
    if found is None:
        raise NotesError(f"{branch_ref} was fetched but cannot be read; run `git fsck` in {git_dir(repo)}.")
    chain, cut = first_parents(repo, found[1], keep)
    if cut == "shallow" and deepen:
        done = run_git(git_dir(repo), "fetch", "--no-tags", "--no-write-fetch-head", f"--depth={keep}", remote,
                       f"+refs/heads/{name}:{branch_ref}")  # fmt: skip
        if done.returncode != 0:
            raise NotesError(f"cannot fetch {keep} commits of {name} from remote {remote!r}: {first_line(done)}.")
        return _Window(branch_ref, found[1], frozenset(), frozenset()), True
    if cut:
        raise NotesError(_cut_short(branch_ref, len(chain), keep, cut) + f" (`git fetch --depth={keep} {remote} "
                         f"{name}`) and run the prune again.")  # fmt: skip
    tagged: set[str] = set()
    if keep_tags:
        tagged = tagged_commits(repo) | _remote_tags(repo, remote)
    return _Window(branch_ref, found[1], frozenset(chain), frozenset(tagged)), False


def _remote_tags(repo: pygit2.Repository, remote: str) -> set[str]:
    """The commits the remote's tags point at (annotated tags peeled), without fetching them."""
    done = run_git(git_dir(repo), "ls-remote", "--tags", remote)
    if done.returncode != 0:
        raise NotesError(f"cannot list the tags of remote {remote!r}: {first_line(done)}.")
    targets: dict[str, str] = {}
    for line in done.stdout.splitlines():
        sha, _, name = line.partition("\t")
        if name.endswith("^{}"):
            targets[name[:-3]] = sha  # the peeled commit wins over the tag object
        else:
            targets.setdefault(name, sha)
    return set(targets.values())
