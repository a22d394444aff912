"""The tree being indexed: a commit's files (or a working tree's, or a plain directory's), each
read only when asked for, through pygit2 — what indexing, a plan and a merge of shards all read.

Apart from indexing (kivgraph/indexing.py), so that what only lists a tree (a plan, a merge)
loads no parser.
"""

import os
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pygit2

from kivgraph.errors import InvalidArgumentError
from kivgraph.languages import language_of
from kivgraph.model import Language, Submodule
from kivgraph.store.git import (
    EntryKind,
    blob_id,
    blob_size,
    clean_at,
    head_commit,
    open_repository,
    prefetch,
    read_blob,
    remote_url,
    resolve_commit,
    submodule_urls,
    tree_entries,
    worktree_listing,
)

MAX_FILE_BYTES = 2 * 1024 * 1024
"""Larger files are generated or vendored far more often than written: skipped and recorded."""
KEPT_BLOB_BYTES = 256 << 20
"""What a snapshot keeps of the blobs it has read, for their next read (_Blobs)."""
SKIPPED_DIRECTORIES = frozenset({"node_modules", ".git"})


@dataclass(frozen=True, slots=True)
class TreeFile:
    path: str
    size: int
    digest: str
    symlink: bool
    read: Callable[[], bytes]


@dataclass(slots=True)
class Snapshot:
    """The tree being indexed: where it came from and its files."""

    repository: str
    remote_url: str
    commit: str
    tree: str
    worktree: bool
    files: list[TreeFile] = field(default_factory=list[TreeFile])
    submodules: list[Submodule] = field(default_factory=list[Submodule])
    """Gitlinks of the tree: recorded in the generation, never read (their objects are elsewhere)."""
    worktree_path: str | None = None
    """The repository's working tree, where installed dependencies (node_modules) live."""
    worktree_matches: bool = False
    """The working tree holds exactly these files (clean at this commit, or --worktree itself),
    so analyzers can run there rather than on a copy."""


def repository_name(repo: pygit2.Repository) -> str:
    """The repository's name: its origin's last path segment, else its folder's name."""
    url = remote_url(repo)
    if url:
        last = url.rstrip("/").rpartition("/")[2].rpartition(":")[2]
        if last.endswith(".git"):
            last = last[:-4]
        if last:
            return last
    workdir = repo.workdir or os.path.dirname(repo.path.rstrip("/"))
    return os.path.basename(os.path.normpath(workdir)) or "repository"


def snapshot_at(path: str, revision: str = "HEAD", worktree: bool = False) -> Snapshot:
    repo = open_repository(path)
    name = repository_name(repo)
    if worktree:
        if not repo.workdir:
            raise InvalidArgumentError(f"{path} is a bare repository; --worktree needs a working tree.")
        head = head_commit(repo)
        commit = "" if head is None else str(head.id)
        snap = Snapshot(name, remote_url(repo), commit, "", True, worktree_path=repo.workdir, worktree_matches=True)
        listing = worktree_listing(repo)
        urls = submodule_urls(repo, None)
        snap.submodules = [Submodule(p, sha, urls.get(p, "")) for p, sha in listing.submodules]
        snap.files = list(_worktree_files(repo.workdir, listing.files, {p for p, _ in listing.submodules}))
        return snap
    commit = resolve_commit(repo, revision)
    snap = Snapshot(name, remote_url(repo), str(commit.id), str(commit.tree_id), False,
                    worktree_path=repo.workdir or None)  # fmt: skip
    snap.worktree_matches = bool(repo.workdir) and clean_at(repo, commit.id)
    entries = list(tree_entries(repo, commit.tree, SKIPPED_DIRECTORIES))
    prefetch(repo, [e.oid for e in entries if e.kind is not EntryKind.SUBMODULE])
    gitlinks = [e for e in entries if e.kind is EntryKind.SUBMODULE]
    urls = submodule_urls(repo, str(commit.id)) if gitlinks else {}
    snap.submodules = [Submodule(e.path, e.oid, urls.get(e.path, "")) for e in gitlinks]
    blobs = _Blobs(repo)
    snap.files = [
        TreeFile(e.path, blob_size(repo, e.oid), e.oid, e.kind is EntryKind.LINK, blobs.reader(e.oid))
        for e in entries
        if e.kind is not EntryKind.SUBMODULE
    ]
    return snap


def languages_at(path: str, revision: str = "HEAD") -> frozenset[Language]:
    """The languages of the files in the revision's tree: what `kivgraph doctor`, `analyzers install
    --languages auto` and the index Action look at."""
    return frozenset(lang for f in snapshot_at(path, revision).files if (lang := language_of(f.path)) is not None)


class _Blobs:
    """A commit's blobs, each read only when asked for, and kept for the next read of it up to
    KEPT_BLOB_BYTES in all (the oldest go first), so a large tree is never held in memory at once.
    A shard reads each of its files three times — their imports, to plan; the type checkers' copy;
    the parse — and one job twice: inflating them again took a shard of 6 MB of Go 0.08 s."""

    def __init__(self, repo: pygit2.Repository) -> None:
        self.repo = repo
        self.kept: dict[str, bytes] = {}
        self.kept_bytes = 0
        self.lock = threading.Lock()  # the copy for the type checkers may be written from a thread

    def reader(self, oid: str) -> Callable[[], bytes]:
        return lambda: self.read(oid)

    def read(self, oid: str) -> bytes:
        with self.lock:
            data = self.kept.get(oid)
        if data is not None:
            return data
        data = read_blob(self.repo, oid)
        with self.lock:
            if oid not in self.kept and len(data) <= KEPT_BLOB_BYTES:
                self.kept[oid] = data
                self.kept_bytes += len(data)
                while self.kept_bytes > KEPT_BLOB_BYTES:
                    self.kept_bytes -= len(self.kept.pop(next(iter(self.kept))))
        return data


def _worktree_files(root: str, paths: list[str], submodules: set[str]) -> Iterator[TreeFile]:
    for path in paths:
        if any(part in SKIPPED_DIRECTORIES for part in path.split("/")[:-1]) or path in submodules:
            continue
        full = os.path.join(root, path)
        if os.path.islink(full):
            yield TreeFile(path, 0, "", True, lambda: b"")
            continue
        if not os.path.isfile(full):
            continue  # a checked-out submodule, or gone since git listed it
        try:
            size = os.path.getsize(full)
            with open(full, "rb") as handle:
                data = handle.read()
        except OSError:
            continue
        yield TreeFile(path, size, blob_id(data), False, lambda data=data: data)


def directory_files(root: Path) -> Iterator[TreeFile]:
    """The files under a plain directory (not a repository): what a derived generation is made of.

    Build output (`target/`) and installed dependencies are left out, and so are symlinks.
    """
    for directory, names, files in os.walk(root):
        names[:] = sorted(n for n in names if n not in SKIPPED_DIRECTORIES and n != "target")
        for name in sorted(files):
            full = Path(directory) / name
            path = full.relative_to(root).as_posix()
            if full.is_symlink():
                yield TreeFile(path, 0, "", True, lambda: b"")
                continue
            size = full.stat().st_size
            digest = blob_id(full.read_bytes()) if size <= MAX_FILE_BYTES else ""
            yield TreeFile(path, size, digest, False, full.read_bytes)


def utf8_path(path: str) -> bool:
    """Whether git's bytes for the path were UTF-8 (they are decoded with surrogateescape)."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def readable(snap: Snapshot) -> list[TreeFile]:
    """The files indexing reads: named in UTF-8, not links, not too large."""
    return [f for f in snap.files if utf8_path(f.path) and not f.symlink and f.size <= MAX_FILE_BYTES]


def present(snap: Snapshot, languages: frozenset[Language] | None) -> frozenset[Language]:
    found = {lang for f in snap.files if utf8_path(f.path) and (lang := language_of(f.path)) is not None}
    return frozenset(found if languages is None else found & languages)
