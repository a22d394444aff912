"""The working tree laid over an indexed commit's generation: the files edited, added or deleted
since that commit are re-read with the syntax layer and stand in for its rows; every other row is
the base's. Each overlaid file is also an invisible scope (WORKING_TREE_EDIT), so an answer that
could reach it says LOWER_BOUND and names it: the type checkers have not seen it."""

import contextlib
import os
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from kivgraph.indexing import index_snapshot
from kivgraph.languages import RepoLayout, adapter, language_of
from kivgraph.languages.scopes import is_file_module
from kivgraph.model import Generation, InvisibleScope, Language
from kivgraph.snapshot import MAX_FILE_BYTES, SKIPPED_DIRECTORIES, Snapshot, TreeFile, snapshot_at
from kivgraph.store.git import blob_id, open_repository, resolve_commit, worktree_changes

EDIT_REASON = "WORKING_TREE_EDIT"


@dataclass(frozen=True, slots=True)
class Edit:
    path: str
    deleted: bool
    modified_at: float
    """When the file last changed (its mtime; the moment it was seen gone, for a deletion)."""


def working_tree_edits(root: str, commit: str) -> list[Edit]:
    """The source files of the working tree whose content differs from `commit`'s tree: modified,
    added (untracked too, not ignored) and deleted."""
    repo = open_repository(root)
    workdir = repo.workdir or root
    changes = worktree_changes(repo, resolve_commit(repo, commit))
    in_base = {c.old_path for c in changes if c.old_oid}
    edits: list[Edit] = []
    for path in sorted({p for c in changes for p in (c.old_path, c.new_path) if p}):
        if language_of(path) is None or any(p in SKIPPED_DIRECTORIES for p in path.split("/")[:-1]):
            continue
        full = os.path.join(workdir, path)
        try:
            edits.append(Edit(path, False, os.stat(full).st_mtime))
        except OSError:
            # Gone from disk. Deleted, if the commit had it (its directory changed when it went: the
            # same time at every look); else a name git could not spell (not UTF-8), never indexed.
            if path in in_base:
                edits.append(Edit(path, True, _seen_gone(os.path.dirname(full))))
    return edits


def _seen_gone(directory: str) -> float:
    while True:
        try:
            return os.stat(directory).st_mtime
        except OSError:
            parent = os.path.dirname(directory)
            if parent == directory:
                return 0.0
            directory = parent


def overlaid(root: str, base: Generation, edits: list[Edit]) -> Generation:
    """`base` (the generation of an ancestor of the working tree) with the edited files re-read.

    The edited files are parsed from the working tree with the syntax layer, beside the files their
    uses resolve against (`_context`), and only the edited files' rows are taken from that. A use
    elsewhere of a declaration an edit removed or renamed is dropped with it.
    """
    if not edits:
        return base
    snap = _working_snapshot(root, base.header.commit, edits)
    edited = {e.path for e in edits}
    context = _context(snap, edited)
    part = replace(snap, files=[f for f in snap.files if f.path in context or language_of(f.path) is None])
    names = frozenset(s.name for s in base.symbols if s.file not in context and not is_file_module(s))
    fresh = index_snapshot(part, names_elsewhere=names)
    kept = [s for s in base.symbols if s.file not in edited]
    symbols = kept + [s for s in fresh.symbols if s.file in edited]
    alive = {s.key for s in symbols}
    edges = [e for e in base.edges if e.file not in edited and e.target in alive and e.source in alive]
    edges += [e for e in fresh.edges if e.file in edited]
    files = [f for f in base.files if f.path not in edited] + [f for f in fresh.files if f.path in edited]
    used = {s.package for s in symbols}
    packages = {p.id: p for p in base.packages if p.id in used} | {p.id: p for p in fresh.packages if p.id in used}
    scopes = [s for s in base.invisible_scopes if s.path not in edited] + [_scope(e, base) for e in edits]
    # The newest edit's time, not now: the same working tree gives the same snapshot (and its cursors live on).
    newest = datetime.fromtimestamp(max(e.modified_at for e in edits), UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    header = replace(base.header, created_at=newest, worktree=True)
    return Generation(
        header=header,
        files=tuple(files),
        packages=tuple(sorted(packages.values(), key=lambda p: p.id)),
        symbols=tuple(symbols),
        edges=tuple(edges),
        external_references=tuple(x for x in base.external_references if x.file not in edited and x.source in alive)
        + tuple(x for x in fresh.external_references if x.file in edited),
        unresolved=tuple(u for u in base.unresolved if u.file not in edited and (u.source is None or u.source in alive))
        + tuple(u for u in fresh.unresolved if u.file in edited),
        invisible_scopes=tuple(scopes),
    )


def _context(snap: Snapshot, edited: set[str]) -> set[str]:
    """The files an edit's uses resolve against: the edited files, the source files beside them (a Go
    package, a Python package's modules) and the files of the modules they import — not the whole
    unit, so a save in a large one is read in well under a second."""
    by_path = {f.path: f for f in snap.files if not f.symlink}

    def read(path: str) -> bytes | None:
        found = by_path.get(path)
        return found.read() if found is not None and found.size <= MAX_FILE_BYTES else None

    layout = RepoLayout(by_path, read)
    directories: dict[str, list[str]] = {}
    for path in by_path:
        if language_of(path) is not None:
            directories.setdefault(path.rpartition("/")[0], []).append(path)
    context: set[str] = set()
    for path in sorted(edited):
        language, data = language_of(path), read(path)
        if language is None or data is None:
            continue
        context |= {p for p in directories.get(path.rpartition("/")[0], []) if _same_family(p, path)}
        parser = adapter(language)
        for imported in parser.parse(path, data).imports:
            with contextlib.suppress(Exception):  # a specifier nothing in the tree answers adds nothing
                context.update(parser.resolve_module(imported.module, path, layout).files)
    return context | {p for p in edited if p in by_path}


def _same_family(path: str, other: str) -> bool:
    """Whether two files' declarations can see each other's (TypeScript and JavaScript can)."""
    a, b = language_of(path), language_of(other)
    scripts = {Language.TYPESCRIPT, Language.JAVASCRIPT}
    return a == b or (a in scripts and b in scripts)


def _scope(edit: Edit, base: Generation) -> InvisibleScope:
    language = language_of(edit.path)
    assert language is not None
    seen = datetime.fromtimestamp(edit.modified_at, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    what = "deleted" if edit.deleted else "edited"
    return InvisibleScope(EDIT_REASON, language, edit.path, edit.path,
                          f"{what} in the working tree since {base.header.commit[:12]} (at {seen}): its rows are "
                          "the syntax layer's, and uses of it elsewhere are as of that commit")  # fmt: skip


def _working_snapshot(root: str, commit: str, edits: list[Edit]) -> Snapshot:
    """The commit's tree with the edits applied from the working tree (its other files read from git)."""
    snap = snapshot_at(root, commit)
    workdir = open_repository(root).workdir or root
    edited = {e.path: e for e in edits}
    files = [f for f in snap.files if f.path not in edited]
    for edit in edits:
        if edit.deleted:
            continue
        full = os.path.join(workdir, edit.path)
        try:
            with open(full, "rb") as handle:
                data = handle.read()
        except OSError:
            continue  # gone since it was listed: the next change event re-reads the tree
        files.append(TreeFile(edit.path, len(data), blob_id(data), os.path.islink(full), lambda data=data: data))
    return replace(snap, files=files, worktree=True)
