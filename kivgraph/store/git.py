"""The one git boundary: opening a repository, resolving revisions, walking trees, reading objects
(through git itself when a partial clone lacks them), merge-bases and indexed ancestors, the one
`run_git`, and compare-and-swap ref updates. Every git failure becomes a named KivgraphError here.

No CBOR and no policy: what to fetch, push or merge is decided by the store's notes and sync.
"""

import os
import subprocess
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from enum import StrEnum

import pygit2

from kivgraph.errors import (
    EmptyRepositoryError,
    GitFailedError,
    InvalidArgumentError,
    NotARepositoryError,
    UnknownRevisionError,
)

GIT_TIMEOUT = 300.0
"""Seconds one git command may take (a fetch from a slow remote included) before it is reported."""
ZERO = "0" * 40
GitErrors = (pygit2.GitError, KeyError, ValueError, OSError)
"""What libgit2 raises through pygit2: caught here, and nowhere else in the package."""


def open_repository(path: str) -> pygit2.Repository:
    """The repository `path` is in (a sub-directory finds its repository, as git does)."""
    try:
        found = pygit2.discover_repository(path)
    except GitErrors:
        found = None
    if found is None:
        raise NotARepositoryError(path)
    try:
        return pygit2.Repository(found)
    except GitErrors as err:
        raise NotARepositoryError(path) from err


def root_of(repo: pygit2.Repository) -> str:
    """The working tree's real path (a bare repository's git directory)."""
    return os.path.realpath(repo.workdir or repo.path)


def resolve_commit(repo: pygit2.Repository, revision: str) -> pygit2.Commit:
    """The commit a revision names (`HEAD`, a branch, a tag, a SHA prefix)."""
    if revision in ("HEAD", "@") and head_commit(repo) is None:
        raise EmptyRepositoryError(repo.workdir or repo.path)
    try:
        return repo.revparse_single(revision).peel(pygit2.Commit)
    except (*GitErrors, pygit2.InvalidSpecError) as err:
        raise UnknownRevisionError(revision, repo.workdir or repo.path) from err


def head_commit(repo: pygit2.Repository) -> pygit2.Commit | None:
    """HEAD's commit; None in a repository without commits (or whose HEAD names nothing)."""
    try:
        if repo.head_is_unborn:
            return None
        return repo.head.peel(pygit2.Commit)
    except GitErrors:
        return None


def head_state(path: str, ref: str) -> tuple[str, str]:
    """(HEAD's commit id, `ref`'s target) as text, "" where there is none: what a server watches."""
    try:
        repo = pygit2.Repository(path)
    except GitErrors:
        return "", ""
    head = head_commit(repo)
    try:
        reference = repo.references.get(ref)
        target = "" if reference is None else str(reference.target)
    except GitErrors:
        target = ""
    return ("" if head is None else str(head.id)), target


def remote_url(repo: pygit2.Repository, remote: str = "origin") -> str:
    """A remote's URL ("" when there is no such remote)."""
    try:
        return repo.remotes[remote].url or ""
    except GitErrors:
        return ""


def branch_name(repo: pygit2.Repository) -> str:
    """The checked-out branch's short name ("" on a detached HEAD)."""
    try:
        return "" if repo.head_is_detached else repo.head.shorthand
    except GitErrors:
        return ""


def merge_base(repo: pygit2.Repository, left: pygit2.Oid | str, right: pygit2.Oid | str) -> str | None:
    """The best common ancestor of two commits; None for unrelated histories."""
    try:
        found: pygit2.Oid | None = repo.merge_base(_oid(left), _oid(right))
    except GitErrors:
        return None
    # pygit2's stub says Oid, but unrelated histories give None.
    return None if found is None else str(found)  # pyright: ignore[reportUnnecessaryComparison]


def commits_between(repo: pygit2.Repository, newer: str, older: str) -> int:
    """How many commits `newer` is ahead of `older` (0 when unknown)."""
    try:
        ahead, _ = repo.ahead_behind(_oid(newer), _oid(older))
        return int(ahead)
    except GitErrors:
        return 0


def files_changed(repo: pygit2.Repository, older: str, newer: str) -> int:
    """How many files differ between two commits' trees (0 when unknown)."""
    try:
        old = repo[_oid(older)].peel(pygit2.Commit)
        new = repo[_oid(newer)].peel(pygit2.Commit)
        return len(old.tree.diff_to_tree(new.tree))
    except GitErrors:
        return 0


def noted_ancestors(
    repo: pygit2.Repository, commit: pygit2.Commit, noted: set[str], limit: int = 10_000
) -> Iterator[tuple[str, int]]:
    """The ancestors of `commit` (itself included) that have a note, nearest first, with their
    distance in commits; the walk stops `limit` commits back."""
    try:
        walker = repo.walk(commit.id, pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.TIME)
        for distance, ancestor in enumerate(walker):
            if str(ancestor.id) in noted:
                yield str(ancestor.id), distance
            if distance >= limit:
                return
    except GitErrors as err:
        raise GitFailedError(
            f"the history of {str(commit.id)[:12]} cannot be walked ({err}); a shallow or partial clone may "
            "lack the commits: fetch more history (`git fetch --deepen=200`)."
        ) from err


def lookup(repo: pygit2.Repository, oid: pygit2.Oid | str) -> object:
    """The object with this id (commit, tree, blob or tag; typed loosely, as pygit2's stubs type
    commits apart from other objects), or None when it is not in the object database."""
    try:
        return repo.get(_oid(oid))
    except GitErrors:
        return None


def _oid(value: pygit2.Oid | str) -> pygit2.Oid:
    return value if isinstance(value, pygit2.Oid) else pygit2.Oid(hex=value)


# -- the git command line ------------------------------------------------------------------------


def run_git(
    cwd: str | None, *args: str, timeout: float = GIT_TIMEOUT, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run `git ARGS` and return what it said, whatever its exit status; a git that cannot run or
    does not finish in time is a GitFailedError.

    C locale, so the stderr callers match and quote is git's English; no terminal prompt, so a
    missing credential fails at once instead of hanging a CI job or a server.
    """
    done = _run(cwd, args, timeout, None if stdin is None else stdin.encode())
    text = [stream.decode("utf-8", errors="replace") for stream in (done.stdout, done.stderr)]
    return subprocess.CompletedProcess(done.args, done.returncode, text[0], text[1])


def _run(
    cwd: str | None, args: tuple[str, ...], timeout: float, stdin: bytes | None
) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "LC_ALL": "C", "GIT_TERMINAL_PROMPT": "0"}
    try:
        return subprocess.run(["git", *args], cwd=cwd, env=env, input=stdin, capture_output=True, timeout=timeout,
                              check=False)  # fmt: skip
    except subprocess.TimeoutExpired as err:
        raise GitFailedError(
            f"git {args[0]} did not finish within {timeout:.0f} s; check that the remote is reachable. "
            "Nothing local was changed."
        ) from err
    except OSError as err:
        raise GitFailedError(f"cannot run git ({err.strerror}); install git and make sure it is on PATH.") from err


def first_line(done: subprocess.CompletedProcess[str]) -> str:
    """git's first error line (`fatal: …`, `error: …`), else its first line at all."""
    lines = [line.strip() for line in done.stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith(("fatal:", "error:"))]
    return (errors or lines or [f"git exited with status {done.returncode}"])[0].rstrip(".")


def git_dir(repo: pygit2.Repository) -> str:
    return repo.workdir or repo.path


def init_bare(path: str) -> pygit2.Repository:
    """A bare repository at `path`, made if it is not there yet (a cache of another repository's notes)."""
    try:
        if not os.path.exists(os.path.join(path, "HEAD")):
            os.makedirs(path, exist_ok=True)
            return pygit2.init_repository(path, bare=True)
        return pygit2.Repository(path)
    except GitErrors as err:
        raise GitFailedError(f"cannot open or create the bare repository {path} ({err}).") from err


# -- objects, with partial clones in mind ----------------------------------------------------------


def promisor_remote(repo: pygit2.Repository) -> str:
    """The remote a partial clone fetches missing objects from ("" for a complete clone)."""
    try:
        config = repo.config
        for entry in config:
            name: str = entry.name
            if name.startswith("remote.") and name.endswith(".promisor") and config.get_bool(name):
                return name[len("remote.") : -len(".promisor")]
        if "extensions.partialclone" in config:
            return str(config["extensions.partialclone"])
    except GitErrors:
        return ""
    return ""


def prefetch(repo: pygit2.Repository, oids: Iterable[str]) -> None:
    """Bring the objects a partial clone lacks in one fetch from its promisor remote (as git's own
    lazy fetch does, but batched); a complete clone needs nothing."""
    remote = promisor_remote(repo)
    if not remote:
        return
    missing = sorted({oid for oid in oids if not has_object(repo, oid)})
    if not missing:
        return
    done = run_git(
        git_dir(repo), "-c", "fetch.negotiationAlgorithm=noop", "fetch", remote, "--no-tags",
        "--no-write-fetch-head", "--recurse-submodules=no", "--filter=blob:none", "--stdin",
        stdin="".join(f"{oid}\n" for oid in missing),
    )  # fmt: skip
    if done.returncode != 0:
        raise GitFailedError(
            f"this partial clone lacks {len(missing)} object(s) and they could not be fetched from {remote!r}: "
            f"{first_line(done)}; fetch them (`git fetch {remote}`, or clone without --filter) and retry."
        )


def blob_id(data: bytes) -> str:
    """The id git gives these bytes as a blob (what the file table records as a file's digest)."""
    return str(pygit2.hash(data))


def has_object(repo: pygit2.Repository, oid: str) -> bool:
    """Whether this clone's database has the object (never fetched to answer: a partial clone's missing blob is not)."""
    try:
        return _oid(oid) in repo.odb
    except GitErrors:
        return False


def read_blob(repo: pygit2.Repository, oid: str | pygit2.Oid) -> bytes:
    """A blob's bytes; in a partial clone a missing blob is fetched from the promisor remote.
    Read from the object database, not as a Blob object: half the time for a tree's sources."""
    try:
        kind, data = repo.odb.read(_oid(oid))
    except GitErrors:
        kind, data = None, b""
    if kind == pygit2.enums.ObjectType.BLOB:
        return data
    if kind is None and promisor_remote(repo):
        prefetch(repo, [str(oid)])
        done = _run(git_dir(repo), ("cat-file", "blob", str(oid)), GIT_TIMEOUT, None)
        if done.returncode == 0:
            return done.stdout
    what = "is not a blob" if kind is not None else "is missing from the object database"
    raise GitFailedError(f"object {str(oid)[:12]} {what}; the clone may be incomplete (`git fsck` tells).")


class EntryKind(StrEnum):
    BLOB = "blob"
    LINK = "link"
    SUBMODULE = "submodule"


@dataclass(frozen=True, slots=True)
class TreeEntry:
    path: str
    oid: str
    kind: EntryKind


def tree_entries(repo: pygit2.Repository, tree: pygit2.Tree, skipped: frozenset[str]) -> Iterator[TreeEntry]:
    """Every file of a tree, depth-first in path order, without reading a blob; directories named in
    `skipped` are not entered. Submodules (gitlinks) are entries of their own: their commit lives in
    another repository. Iterative, so no nesting depth is too deep."""
    stack: list[tuple[pygit2.Tree, str]] = [(tree, "")]
    while stack:
        current, prefix = stack.pop()
        subtrees: list[tuple[pygit2.Tree, str]] = []
        for entry in current:
            name = entry.name or ""
            mode = entry.filemode
            if mode == pygit2.enums.FileMode.TREE:
                if name not in skipped:
                    subtrees.append((_tree(repo, entry.id), f"{prefix}{name}/"))
            elif mode == pygit2.enums.FileMode.COMMIT:
                yield TreeEntry(prefix + name, str(entry.id), EntryKind.SUBMODULE)
            elif mode == pygit2.enums.FileMode.LINK:
                yield TreeEntry(prefix + name, str(entry.id), EntryKind.LINK)
            else:
                yield TreeEntry(prefix + name, str(entry.id), EntryKind.BLOB)
        stack.extend(reversed(subtrees))


def _tree(repo: pygit2.Repository, oid: pygit2.Oid) -> pygit2.Tree:
    try:
        obj = repo[oid]
    except GitErrors:
        prefetch(repo, [str(oid)])
        try:
            obj = repo[oid]
        except GitErrors as err:
            raise GitFailedError(f"tree {str(oid)[:12]} is missing; the clone may be incomplete.") from err
    if not isinstance(obj, pygit2.Tree):
        raise GitFailedError(f"object {str(oid)[:12]} should be a tree and is not; the repository is damaged.")
    return obj


def blob_size(repo: pygit2.Repository, oid: str) -> int:
    size = stored_size(repo, oid)
    return len(read_blob(repo, oid)) if size is None else size


def stored_size(repo: pygit2.Repository, oid: str) -> int | None:
    """An object's size when this clone has it; None when it does not (never fetched to be measured)."""
    try:
        return int(repo.odb.read_header(_oid(oid))[1])
    except GitErrors:
        return None


def write_tree_missing_ok(repo: pygit2.Repository, files: dict[str, str]) -> str:
    """A tree of blobs by path (at most one directory deep, as a notes fan-out is), written by
    `git mktree --missing`: libgit2 refuses to name a blob it does not have, and a partial clone's
    notes tree names blobs its promisor remote keeps until someone reads them."""
    folders: dict[str, list[str]] = {}
    top: list[str] = []
    for path, oid in files.items():
        folder, _, name = path.rpartition("/")
        (folders.setdefault(folder, []) if folder else top).append(f"100644 blob {oid}\t{name}\n")
    names = sorted(folders)
    if names:
        subtrees = _mktree(repo, "\n".join("".join(folders[name]) for name in names), "--batch").split()
        top += [f"040000 tree {oid}\t{name}\n" for name, oid in zip(names, subtrees, strict=True)]
    return _mktree(repo, "".join(top)).strip()


def _mktree(repo: pygit2.Repository, listing: str, *options: str) -> str:
    done = run_git(git_dir(repo), "mktree", "--missing", *options, stdin=listing)
    if done.returncode != 0:
        raise GitFailedError(f"git cannot write a notes tree in {git_dir(repo)}: {first_line(done)}.")
    return done.stdout


def submodule_urls(repo: pygit2.Repository, commit: str | None) -> dict[str, str]:
    """path → URL from the `.gitmodules` of a commit (None: of the working tree); empty when there
    is none or it does not parse."""
    source = ["--blob", f"{commit}:.gitmodules"] if commit else ["--file", os.path.join(git_dir(repo), ".gitmodules")]
    done = run_git(git_dir(repo), "config", "-z", *source, "--get-regexp", r"^submodule\..*\.(path|url)$")
    if done.returncode != 0:
        return {}
    paths: dict[str, str] = {}
    urls: dict[str, str] = {}
    for record in done.stdout.split("\0"):
        key, _, value = record.partition("\n")
        name, _, field = key.rpartition(".")
        (paths if field == "path" else urls)[name] = value
    return {path: urls.get(name, "") for name, path in paths.items()}


# -- the working tree ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class WorktreeListing:
    files: list[str]
    """Tracked and untracked (not ignored) files present on disk, sorted."""
    submodules: list[tuple[str, str]]
    """(path, recorded commit) of each submodule in the index."""


def worktree_listing(repo: pygit2.Repository) -> WorktreeListing:
    """What `--worktree` indexes, asked of git itself (libgit2's status gives up past 100 nested
    directories)."""
    root = repo.workdir
    if not root:
        raise InvalidArgumentError(f"{repo.path} is a bare repository; --worktree needs a working tree.")
    staged = _ls_files(root, "--stage")
    submodules: list[tuple[str, str]] = []
    tracked: set[str] = set()
    for record in staged:
        meta, _, path = record.partition("\t")
        mode, oid, _stage = meta.split(" ")
        if mode == "160000":
            submodules.append((path, oid))
        else:
            tracked.add(path)
    deleted = set(_ls_files(root, "--deleted"))
    untracked = set(_ls_files(root, "--others", "--exclude-standard"))
    return WorktreeListing(sorted((tracked - deleted) | untracked), sorted(set(submodules)))


def _ls_files(root: str, *args: str) -> list[str]:
    """Paths as the file system names them: bytes that are not UTF-8 kept by surrogateescape (as
    the tree's own entries are), so such a file is found and reported, never silently replaced."""
    done = _run(root, ("--no-optional-locks", "ls-files", "-z", *args), GIT_TIMEOUT, None)
    if done.returncode != 0:
        stderr = done.stderr.decode("utf-8", errors="replace")
        said = subprocess.CompletedProcess(done.args, done.returncode, "", stderr)
        raise GitFailedError(f"git cannot list the working tree at {root}: {first_line(said)}.")
    return [record for record in done.stdout.decode("utf-8", "surrogateescape").split("\0") if record]


def clean_at(repo: pygit2.Repository, commit: pygit2.Oid) -> bool:
    """Whether the working tree is checked out at `commit` with no tracked file changed.

    Untracked and ignored files (installed dependencies, build output) do not count: they are
    what an analyzer running in place is there to find.
    """
    head = head_commit(repo)
    if head is None or head.id != commit or not repo.workdir:
        return False
    done = run_git(repo.workdir, "--no-optional-locks", "status", "--porcelain", "-z", "--untracked-files=no")
    return done.returncode == 0 and not done.stdout.strip("\0")


# -- refs --------------------------------------------------------------------------------------------


def compare_and_swap(repo: pygit2.Repository, ref: str, new: str, old: str | None, message: str) -> bool:
    """Move `ref` to `new` only if it still points at `old` (None: only if it does not exist yet).

    False when another writer moved it first (the caller rebuilds on the new tip and retries); a
    lock that stays held is a GitFailedError naming the lock file and how to clear it.
    """
    lock = os.path.join(repo.path, *ref.split("/")) + ".lock"
    try:
        if old is None:
            repo.create_reference_direct(ref, pygit2.Oid(hex=new), False, message=message)
            return True
        reference = repo.references.get(ref)
        if reference is None or reference.type != pygit2.enums.ReferenceType.DIRECT or str(reference.target) != old:
            return False
        reference.set_target(pygit2.Oid(hex=new), message)
        return True
    except pygit2.AlreadyExistsError:
        return False
    except GitErrors as err:
        if os.path.exists(lock) or "lock" in str(err):
            return False
        raise GitFailedError(f"cannot move {ref} ({err}).") from err


def stale_lock(repo: pygit2.Repository, ref: str) -> str:
    """A sentence about `ref`'s lock file when one is there (a writer died holding it), else ""."""
    lock = os.path.join(repo.path, *ref.split("/")) + ".lock"
    try:
        age = time.time() - os.path.getmtime(lock)
    except OSError:
        return ""
    return (
        f"the lock file {lock} has been there for {age:.0f} s: a git process is writing {ref}, or one died "
        f"holding it. If no git or kivgraph process is running, remove it (`rm {lock}`) and retry."
    )


def is_descendant(repo: pygit2.Repository, commit: str, ancestor: str) -> bool:
    """Whether `ancestor` is in the history of `commit` (a commit is not its own descendant)."""
    try:
        return bool(repo.descendant_of(_oid(commit), _oid(ancestor)))
    except GitErrors:
        return False


def first_parents(repo: pygit2.Repository, tip: str, limit: int) -> tuple[list[str], str]:
    """Up to `limit` commits from `tip` back along first parents, tip first, and why the walk ended
    before `limit` and the root: "shallow" (a shallow clone's boundary), "missing" (a commit that is
    not here), else ""."""
    shallow: set[str] = set()
    try:
        with open(os.path.join(repo.path, "shallow"), encoding="utf-8") as handle:
            shallow = {line.strip() for line in handle}
    except OSError:
        pass  # a complete clone has no shallow file
    chain: list[str] = []
    current = tip
    while len(chain) < limit:
        commit = lookup(repo, current)
        if not isinstance(commit, pygit2.Commit):
            return chain, "missing"
        chain.append(current)
        if current in shallow or (not commit.parent_ids and _has_parents(repo, commit)):
            return chain, "shallow" if len(chain) < limit else ""
        if not commit.parent_ids:
            break
        current = str(commit.parent_ids[0])
    return chain, ""


def _has_parents(repo: pygit2.Repository, commit: pygit2.Commit) -> bool:
    """Whether the commit object itself names parents, whatever shallow grafts say (libgit2 keeps
    the grafts it read when the repository was opened, even after a fetch deepened it)."""
    try:
        header = repo.odb.read(commit.id)[1].partition(b"\n\n")[0]
    except GitErrors:
        return False
    return b"\nparent " in header


def branch_tip(repo: pygit2.Repository, name: str) -> tuple[str, str] | None:
    """(the ref `name` resolves to, symbolic refs followed, and its commit); None when there is no
    such ref or it names no commit."""
    try:
        reference = repo.references.get(name)
        if reference is None:
            return None
        resolved = reference.resolve()
        return resolved.name, str(resolved.peel(pygit2.Commit).id)
    except (*GitErrors, pygit2.InvalidSpecError):
        return None


def tagged_commits(repo: pygit2.Repository) -> set[str]:
    """The commits this clone's tags point at, annotated tags peeled (a tag of a tree or blob is skipped)."""
    found: set[str] = set()
    for name in repo.references:
        if name.startswith("refs/tags/"):
            try:
                found.add(str(repo.references[name].peel(pygit2.Commit).id))
            except (*GitErrors, pygit2.InvalidSpecError):
                continue
    return found


def set_local_config(repo: pygit2.Repository, name: str, value: str) -> None:
    """Set a setting in this repository's own config file (not the user's or the system's)."""
    done = run_git(git_dir(repo), "config", "--local", name, value)
    if done.returncode != 0:
        raise GitFailedError(f"cannot set {name} in the config of {git_dir(repo)}: {first_line(done)}.")


# -- what changed between two trees, or a tree and the working tree -------------------------------


@dataclass(frozen=True, slots=True)
class ChangedPath:
    status: str
    """added, deleted, modified or renamed."""
    old_path: str
    """"" when the file is new."""
    new_path: str
    """"" when the file was deleted."""
    old_oid: str
    new_oid: str
    """"" on the side where the file does not exist, and for a working-tree file."""


_DELTA_STATUS = {
    pygit2.enums.DeltaStatus.ADDED: "added",
    pygit2.enums.DeltaStatus.DELETED: "deleted",
    pygit2.enums.DeltaStatus.MODIFIED: "modified",
    pygit2.enums.DeltaStatus.RENAMED: "renamed",
    pygit2.enums.DeltaStatus.COPIED: "added",
    pygit2.enums.DeltaStatus.TYPECHANGE: "modified",
}


def tree_changes(repo: pygit2.Repository, base: pygit2.Commit, head: pygit2.Commit) -> list[ChangedPath]:
    """Files that differ between two commits, renames found as git finds them."""
    try:
        diff = base.tree.diff_to_tree(head.tree)
        zero = pygit2.Oid(hex=ZERO)
        # Rename detection reads both sides' blobs: a partial clone fetches them in one go first.
        prefetch(repo, [str(f.id) for d in diff.deltas for f in (d.old_file, d.new_file) if f.id != zero])
        diff.find_similar()
        changes: list[ChangedPath] = []
        for delta in diff.deltas:
            status = _DELTA_STATUS.get(delta.status)
            if status is None or pygit2.enums.FileMode.COMMIT in (delta.old_file.mode, delta.new_file.mode):
                continue  # a submodule's pointer moved: its code is another repository's
            old = (delta.old_file.path, str(delta.old_file.id)) if status != "added" else ("", "")
            new = (delta.new_file.path, str(delta.new_file.id)) if status != "deleted" else ("", "")
            changes.append(ChangedPath(status, old[0], new[0], old[1], new[1]))
        return changes
    except GitErrors as err:
        raise GitFailedError(f"git cannot compare {str(base.id)[:12]} with {str(head.id)[:12]} ({err}).") from err


_NAME_STATUS = {"A": "added", "D": "deleted", "M": "modified", "T": "modified", "R": "renamed", "C": "added"}


def worktree_changes(repo: pygit2.Repository, base: pygit2.Commit) -> list[ChangedPath]:
    """Files of the working tree (tracked changes, staged or not, and untracked files that are not
    ignored) that differ from `base`, asked of git itself: it has no nesting limit."""
    root = repo.workdir
    if not root:
        raise InvalidArgumentError("a bare repository has no working tree to compare; pass --head REV.")
    done = run_git(root, "--no-optional-locks", "diff", "--name-status", "-z", "-M", "--no-ext-diff",
                   "--ignore-submodules=all", str(base.id))  # fmt: skip
    if done.returncode != 0:
        raise GitFailedError(f"git cannot compare the working tree at {root} with {str(base.id)[:12]}: "
                             f"{first_line(done)}.")  # fmt: skip
    fields = done.stdout.split("\0")
    changes: list[ChangedPath] = []
    at = 0
    while at < len(fields) and fields[at]:
        letter = fields[at][0]
        status = _NAME_STATUS.get(letter)
        if letter in "RC":
            old_path, new_path, at = fields[at + 1], fields[at + 2], at + 3
        else:
            old_path = new_path = fields[at + 1]
            at += 2
        if status is None:
            continue
        old_oid = _path_oid(base.tree, old_path) if status != "added" else ""
        changes.append(ChangedPath(status, old_path if status != "added" else "",
                                   new_path if status != "deleted" else "", old_oid, ""))  # fmt: skip
    changes += [ChangedPath("added", "", path, "", "") for path in _ls_files(root, "--others", "--exclude-standard")]
    return changes


def _path_oid(tree: pygit2.Tree, path: str) -> str:
    try:
        return str(tree[path].id)
    except GitErrors:
        return ""


def changed_lines(old: bytes, new: bytes) -> tuple[set[int], set[int], bool]:
    """(1-based lines removed or rewritten on the old side, added or rewritten on the new side,
    whether git calls the content binary)."""
    patch = pygit2.Patch.create_from(old, new)
    removed: set[int] = set()
    added: set[int] = set()
    for hunk in patch.hunks:
        for line in hunk.lines:
            if line.origin == "-" and line.old_lineno > 0:
                removed.add(line.old_lineno)
            elif line.origin == "+" and line.new_lineno > 0:
                added.add(line.new_lineno)
    return removed, added, bool(patch.delta.is_binary)
