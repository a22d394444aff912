"""From a tree at a commit (or a working tree) to one Generation: parse, resolve, key.

Takes the tree's files as kivgraph/snapshot.py reads them (the commit's, never the working tree
unless asked), runs each language adapter, resolves names across files, assigns stable keys and
assembles the generation. It stores nothing: the caller hands the result to `store`.
"""

import multiprocessing
import os
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from importlib import metadata

from kivgraph import __version__
from kivgraph.heap import collector_paused
from kivgraph.languages import LanguageAdapter, RepoLayout, adapter, language_of
from kivgraph.languages.go.modules import homonym_roots
from kivgraph.languages.resolve import DeclRef, Held, Resolver
from kivgraph.languages.scopes import FileScopes, module_qualified_name
from kivgraph.languages.syntax import FileSyntax
from kivgraph.model import (
    FileRecord,
    FileRole,
    FileStatus,
    Generation,
    GenerationHeader,
    InvisibleScope,
    Language,
    Package,
    Symbol,
    SymbolKind,
    Unresolved,
    canonical_identity,
    stable_key,
)
from kivgraph.model.roles import CONFIG_FILE, HEAD_BYTES, RoleRules, role_by_convention, role_rules
from kivgraph.scip.index import ScipIndex
from kivgraph.scip.ingest import ingest, replace_covered
from kivgraph.scip.late import LateGo, LateSites
from kivgraph.scip.run import Analysis, AnalyzerRun
from kivgraph.snapshot import MAX_FILE_BYTES, Snapshot, TreeFile, snapshot_at, utf8_path

BINARY_SNIFF = 8192
PARALLEL_MIN_BYTES = 2 * 1024 * 1024
"""Below this much source, starting worker processes costs more than it saves."""
GRAMMAR_PACKAGES = (
    "tree-sitter",
    "tree-sitter-python",
    "tree-sitter-go",
    "tree-sitter-rust",
    "tree-sitter-typescript",
    "tree-sitter-javascript",
    "tree-sitter-dart",
)

Progress = Callable[[str, int, int], None]
"""(stage, done, total): called as work advances, for the CLI's progress line."""


@collector_paused()
def index_snapshot(
    snap: Snapshot,
    languages: frozenset[Language] | None = None,
    progress: Progress | None = None,
    jobs: int | None = None,
    scip_indexes: tuple[ScipIndex, ...] = (),
    run_analyzers: bool = False,
    analysis: Analysis | None = None,
    names_elsewhere: frozenset[str] = frozenset(),
    keep_held: Held | None = None,
    facts_of: frozenset[str] | None = None,
    go_homonyms: frozenset[str] | None = None,
    late: LateGo | None = None,
    tree_files: frozenset[str] | None = None,
) -> Generation:
    """Parse, resolve and key every file of a known language in the snapshot.

    `analysis`: the type checkers, already started by the caller over this tree (kivgraph/units.py
    starts those of a few units): their results are taken as `run_analyzers` would take its own.
    `names_elsewhere`: the names declared in the tree's files left out of `snap` (see Resolver).
    `keep_held`: receives the rows held for a name no declaration in sight has (Held), which are
    otherwise dropped: the caller indexing part of a tree decides them once it knows every name.
    `facts_of`: the files whose uses are resolved (None: every one); the rest are parsed and keyed
    for their declarations, which the caller's files use, and their rows left to another part.
    `go_homonyms`: the whole tree's `tree_go_homonyms` when `snap` is part of it (None: `snap`'s).
    `late` (a shard, kivgraph/scip/late.py): receives the Go uses of modules `analysis` did not run
    on, which a merge binds, with the definitions of `late.exported` modules; otherwise those uses
    are external references. `tree_files`: the whole tree's `parsed_paths` when `snap` is part of
    it, for what must be named as the whole tree names it (RepoLayout.whole).

    Each SCIP index (a type checker's output over this tree, supplied or produced here when
    `run_analyzers`) replaces the fallback resolver's facts for the files it covers with exact
    ones; an analyzer that fails leaves its files to the fallback and records an invisible scope.

    `jobs` processes parse in parallel (default: one per core, once the sources are large enough
    for a pool to pay for itself); resolution then runs in this process over all files at once.
    """
    named = [f for f in snap.files if utf8_path(f.path)]
    wanted = [(f, lang) for f in named if (lang := language_of(f.path)) and (languages is None or lang in languages)]
    unnamed = [
        InvisibleScope(
            "PATH_NOT_UTF8",
            lang,
            shown,
            shown,
            "a file name that is not UTF-8 cannot be stored or answered about; its uses are not seen: rename it",
        )  # fmt: skip
        for f in snap.files
        if not utf8_path(f.path) and (lang := language_of(f.path)) and (languages is None or lang in languages)
        for shown in [f.path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")]
    ]
    by_path = {f.path: f for f in named}

    def read(p: str) -> bytes | None:
        f = by_path.get(p)
        if f is None or f.symlink or f.size > MAX_FILE_BYTES:
            return None
        return f.read()

    layout = RepoLayout(by_path, read)
    if tree_files is not None:
        layout.whole = RepoLayout(tree_files, lambda _: None)
    tree = [(f.path, f.read) for f in named if not f.symlink and f.size <= MAX_FILE_BYTES]
    if run_analyzers and analysis is None:
        analysis = Analysis(tree, frozenset(lang for _, lang in wanted), snap.worktree_path, snap.worktree_matches)
    try:
        homonyms = tree_go_homonyms(snap) if go_homonyms is None else go_homonyms
        generation, held = _index_parsed(snap, wanted, jobs, layout, read, progress, scip_indexes, analysis,
                                         names_elsewhere, facts_of, homonyms, late)  # fmt: skip
    finally:
        if analysis is not None:
            analysis.finish()  # idempotent: cleans up even when indexing failed
    if unnamed:
        generation = replace(generation, invisible_scopes=generation.invisible_scopes + tuple(unnamed))
    if keep_held is not None:
        keep_held.extend(held)
    return generation


def parsed_paths(snap: Snapshot) -> frozenset[str]:
    """The paths of the files indexing parses (not symlinks, nor files too large, nor names that are not UTF-8)."""
    return frozenset(f.path for f in snap.files if utf8_path(f.path) and not f.symlink and f.size <= MAX_FILE_BYTES)


def tree_go_homonyms(snap: Snapshot) -> frozenset[str]:
    """The roots of the tree's Go modules that share a module path (see `_assign_keys`)."""
    manifests = {f.path: f for f in snap.files if f.path.rpartition("/")[2] == "go.mod" and utf8_path(f.path)}

    def read(path: str) -> bytes | None:
        f = manifests[path]
        return None if f.symlink or f.size > MAX_FILE_BYTES else f.read()

    return homonym_roots(RepoLayout(manifests, read))


def _index_parsed(
    snap: Snapshot,
    wanted: list[tuple[TreeFile, Language]],
    jobs: int | None,
    layout: RepoLayout,
    read: Callable[[str], bytes | None],
    progress: Progress | None,
    scip_indexes: tuple[ScipIndex, ...],
    analysis: Analysis | None,
    names_elsewhere: frozenset[str] = frozenset(),
    facts_of: frozenset[str] | None = None,
    go_homonyms: frozenset[str] = frozenset(),
    late: LateGo | None = None,
) -> tuple[Generation, Held]:
    records: list[FileRecord] = []
    unresolved: list[Unresolved] = []
    parsed: dict[str, tuple[Language, FileSyntax]] = {}
    line_counts: dict[str, int] = {}
    config = read(CONFIG_FILE)
    rules = (
        role_rules(config.decode("utf-8", "replace"), f"{CONFIG_FILE} at {snap.commit[:12]}") if config else RoleRules()
    )
    for done, (record, syntax, lines) in enumerate(parse_files(wanted, jobs), 1):
        record = replace(record, role=rules.role_of(record.path, record.role))
        records.append(record)
        if syntax is not None:
            parsed[record.path] = (record.language, syntax)
            line_counts[record.path] = lines
            unresolved.extend(
                Unresolved("PARSE_ERROR", record.language, record.path, p.line, detail=p.detail)
                for p in syntax.problems
            )
        if progress is not None:
            progress("parse", done, len(wanted))

    adapters: dict[Language, LanguageAdapter] = {lang: adapter(lang) for lang in {lang for _, lang in wanted}}
    packages: dict[str, Package] = {}
    for lang, lang_adapter in sorted(adapters.items()):
        paths = sorted(p for p, (lg, _) in parsed.items() if lg is lang)
        packages.update(lang_adapter.packages(layout, paths))

    scopes = {
        path: FileScopes.build(path, lang, syntax, packages.get(path), adapters[lang].separator)
        for path, (lang, syntax) in sorted(parsed.items())
    }
    _assign_keys(snap.repository, scopes, go_homonyms)
    if progress is not None:
        progress("resolve", 0, 1)
    resolver = Resolver(scopes, layout, adapters, names_elsewhere, facts_of)
    facts = resolver.run()
    runs: list[AnalyzerRun] = []
    left_out: list[InvisibleScope] = []
    if analysis is not None:
        if progress is not None:
            progress("analyzers", 0, 1)
        runs, left_out = analysis.finish()
    indexes = [(i, "") for i in scip_indexes]
    indexes += [(r.index, r.project.documents_root) for r in runs if r.index is not None]
    declared = _declared_at(scopes) if indexes else {}
    sites = LateSites(analysis.unmerged, late) if late is not None and analysis is not None else None
    for scip_index, root in indexes:
        go = sites is not None and any(scip_index is r.index for r in runs if r.project.spec.name == "scip-go")
        held = sites if go else None
        ingested = ingest(scip_index, scopes, read, root, layout, facts_of, held)
        facts = replace_covered(facts, ingested, declared.get, late if held is not None else None)
    if sites is not None:
        sites.finish()
    if progress is not None:
        progress("resolve", 1, 1)

    symbols = _symbols(scopes, resolver, line_counts, {r.path: r.role for r in records})
    header = GenerationHeader(
        repository=snap.repository,
        commit=snap.commit,
        tree=snap.tree,
        indexer_version=__version__,
        created_at=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
        remote_url=snap.remote_url,
        languages=tuple(sorted(adapters)),
        analyzers=tuple(sorted({*grammar_versions(), *((i.tool, i.tool_version) for i, _ in indexes)})),
        worktree=snap.worktree,
        submodules=tuple(sorted(snap.submodules, key=lambda m: m.path)),
    )
    generation = Generation(
        header=header,
        files=tuple(records),
        # Of two packages of one id (crates named alike), the last file's in path order: store/join.py too.
        packages=tuple(sorted({p.id: p for p in packages.values()}.values(), key=lambda p: p.id)),
        symbols=tuple(symbols),
        edges=tuple(facts.edges),
        external_references=tuple(facts.external_references),
        unresolved=tuple(unresolved + facts.unresolved),
        invisible_scopes=tuple(scope for r in runs for scope in r.invisible) + tuple(left_out),
    )
    return generation, facts.held


@dataclass(frozen=True, slots=True)
class ParseJob:
    """One file to parse, with its bytes: what crosses to a worker process."""

    path: str
    language: Language
    digest: str
    size: int
    status: FileStatus | None
    """Set when the file is skipped without parsing (symlink, too large)."""
    source: bytes = b""


def _jobs(wanted: list[tuple[TreeFile, Language]]) -> Iterator[ParseJob]:
    for tree_file, lang in wanted:
        skipped = (
            FileStatus.SKIPPED_SYMLINK
            if tree_file.symlink
            else FileStatus.SKIPPED_TOO_LARGE
            if tree_file.size > MAX_FILE_BYTES
            else None
        )
        source = b"" if skipped else tree_file.read()
        yield ParseJob(tree_file.path, lang, tree_file.digest, tree_file.size, skipped, source)


def parse_files(
    wanted: list[tuple[TreeFile, Language]], jobs: int | None
) -> Iterator[tuple[FileRecord, FileSyntax | None, int]]:
    workers = jobs if jobs is not None else (os.cpu_count() or 1)
    total = sum(f.size for f, _ in wanted if not f.symlink and f.size <= MAX_FILE_BYTES)
    fork = "fork" in multiprocessing.get_all_start_methods()
    if workers <= 1 or total < PARALLEL_MIN_BYTES or not fork or multiprocessing.parent_process() is not None:
        yield from map(parse_job, _jobs(wanted))
        return
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        yield from pool.map(parse_job, _jobs(wanted), chunksize=8)


def parse_job(job: ParseJob) -> tuple[FileRecord, FileSyntax | None, int]:
    """Parse one file (in this process or a worker): its record, its syntax, its line count."""

    source = job.source

    def record(status: FileStatus) -> FileRecord:
        role = role_by_convention(job.path, job.language, source[:HEAD_BYTES])
        return FileRecord(job.path, job.language, job.digest, job.size, status, role)

    if job.status is not None:
        return record(job.status), None, 0
    if b"\x00" in source[:BINARY_SNIFF]:
        return record(FileStatus.SKIPPED_BINARY), None, 0
    syntax = adapter(job.language).parse(job.path, source)
    if syntax.timed_out:
        return record(FileStatus.SKIPPED_PARSE_TIMEOUT), syntax, 0
    try:
        source.decode("utf-8")
        status = FileStatus.PARSE_ERRORS if syntax.problems else FileStatus.INDEXED
    except UnicodeDecodeError:
        status = FileStatus.INVALID_UTF8
    return record(status), syntax, source.count(b"\n") + (0 if source.endswith(b"\n") else 1)


def _assign_keys(repository: str, scopes: dict[str, FileScopes], go_homonyms: frozenset[str]) -> None:
    """Stable keys from canonical identity; rare collisions add signature, then file, then ordinal.

    Which declaration of a colliding pair gets the plainer key depends on the files in sight, so
    identities must not collide across files that different parts of a run key (shards, reuse):
    elsewhere a file is its own module; a Go package is a directory, named by its import path —
    which the packages of two modules of one module path share (`go_homonyms`, their roots), and
    files no module holds lack, so theirs carry the directory too."""
    taken: set[str] = set()

    def unique(lang: Language, package: str, module: str, qn: str, kind: str, signature: str, path: str) -> str:
        for discriminator in ("", signature, f"{signature}@{path}"):
            key = stable_key(canonical_identity(lang, repository, package, module, qn, kind, discriminator))
            if key not in taken:
                taken.add(key)
                return key
        ordinal = 2
        while True:
            key = stable_key(
                canonical_identity(lang, repository, package, module, qn, kind, f"{signature}@{path}#{ordinal}")
            )
            if key not in taken:
                taken.add(key)
                return key
            ordinal += 1

    for path, f in scopes.items():
        package = f.package.name if f.package else ""
        # Go's scope is the package (a directory); elsewhere a file is a module of its own.
        module = path if f.language is not Language.GO else _go_scope(f, go_homonyms)
        f.module_key = unique(f.language, package, path, module_qualified_name(path), SymbolKind.MODULE, "", path)
        order = sorted(range(len(f.syntax.declarations)), key=lambda i: f.syntax.declarations[i].start_byte)
        keys = [""] * len(order)
        for i in order:
            d = f.syntax.declarations[i]
            keys[i] = unique(f.language, package, module, f.qualified_names[i], d.kind, d.signature, path)
        f.keys = keys


def _declared_at(scopes: dict[str, FileScopes]) -> dict[str, tuple[str, str]]:
    """Each key → the file declaring it and its name ("" for a file's module)."""
    declared = {f.module_key: (f.path, "") for f in scopes.values()}
    for f in scopes.values():
        declared.update((key, (f.path, d.name)) for key, d in zip(f.keys, f.syntax.declarations, strict=True))
    return declared


def _go_scope(f: FileScopes, go_homonyms: frozenset[str]) -> str:
    """What scopes a Go file's declarations besides its package: nothing when its import path names
    the package alone; its directory when no module names it, or another module shares its path."""
    shared = f.package is None or f.package.manifest.rpartition("/")[0] in go_homonyms
    return f"{f.path.rpartition('/')[0]}/" if shared else ""


def _symbols(
    scopes: dict[str, FileScopes], resolver: Resolver, line_counts: dict[str, int], roles: dict[str, FileRole]
) -> list[Symbol]:
    symbols: list[Symbol] = []
    for path, f in scopes.items():
        package_id = f.package.id if f.package else ""
        file_role = roles.get(path, FileRole.SOURCE)
        regions = f.syntax.test_regions

        line_count = max(line_counts.get(path, 1), 1)
        name = path.rpartition("/")[2]
        symbols.append(
            Symbol(
                f.module_key,
                name.partition(".")[0] or name,
                module_qualified_name(path),
                SymbolKind.MODULE,
                f.language,
                path,
                1,
                line_count,
                1,
                0,
                "",
                True,
                None,
                package_id,
                "",
                file_role,
            )
        )
        for i, d in enumerate(f.syntax.declarations):
            parent = f.parents[i]
            container: str | None = f.keys[parent] if parent >= 0 else None
            if d.owner:
                owner: DeclRef | None = resolver.owning_type(f, i)
                container = resolver.key(owner) if owner is not None else None
            symbols.append(
                Symbol(
                    key=f.keys[i],
                    name=d.name,
                    qualified_name=f.qualified_names[i],
                    kind=d.kind,
                    language=f.language,
                    file=path,
                    start_line=d.start_line,
                    end_line=d.end_line,
                    name_line=d.name_line,
                    name_column=d.name_column,
                    signature=d.signature,
                    exported=d.exported,
                    container=container,
                    package=package_id,
                    doc=d.doc,
                    role=FileRole.TEST if _within(d.start_line, regions) else file_role,
                )
            )
    return symbols


def _within(line: int, regions: tuple[tuple[int, int], ...]) -> bool:
    return any(first <= line <= last for first, last in regions)


def grammar_versions() -> tuple[tuple[str, str], ...]:
    """(package, version) of the parser and each grammar installed: part of every generation's recipe."""
    versions: list[tuple[str, str]] = []
    for package in GRAMMAR_PACKAGES:
        try:
            versions.append((package, metadata.version(package)))
        except metadata.PackageNotFoundError:
            continue
    return tuple(sorted(versions))


def index_repository(
    path: str,
    revision: str = "HEAD",
    worktree: bool = False,
    languages: frozenset[Language] | None = None,
    progress: Progress | None = None,
    jobs: int | None = None,
    scip_indexes: tuple[ScipIndex, ...] = (),
    run_analyzers: bool = False,
) -> Generation:
    snap = snapshot_at(path, revision, worktree)
    return index_snapshot(snap, languages, progress, jobs, scip_indexes, run_analyzers)
