"""diff → changed symbols → blast radius over the base generation: the answer diff-impact, the PR
comment and the Action share. The base graph comes from notes; only the changed files are parsed."""

import os
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import pygit2

from kivgraph.errors import GenerationNotFoundError, InvalidArgumentError, KivgraphError, UnknownRevisionError
from kivgraph.graph.answer import completeness
from kivgraph.graph.index import REFERENCE_KINDS, Graph, ints
from kivgraph.graph.load import Found, LoadedRepository, freshness, loaded_from, nearest_generation
from kivgraph.graph.queries import CONFORMANCE_CODE, EDGE_KINDS, Visit, visit_confidence, visit_kind, walk
from kivgraph.impact.diff import FileChange, Fingerprints, changed_files
from kivgraph.languages import adapter, language_of
from kivgraph.languages.scopes import FileScopes
from kivgraph.model import EdgeKind, GenerationHeader, Language
from kivgraph.scip.analyzers import analyzer_for
from kivgraph.store import NOTES_REF, note_location, save_to_notes
from kivgraph.store.codec import decode_columns
from kivgraph.store.git import merge_base, open_repository, resolve_commit

DEFAULT_DEPTH = 3
MAX_NODES = 5000
DEFAULT_BRANCHES = ("origin/HEAD", "origin/main", "main", "origin/master", "master")
ALL_REFERENCE_CODES = frozenset(EDGE_KINDS.index(k) for k in REFERENCE_KINDS) | {CONFORMANCE_CODE}
IMPORT_CODES = frozenset(EDGE_KINDS.index(k) for k in (EdgeKind.IMPORTS_SYMBOL, EdgeKind.EXPORTS, EdgeKind.REEXPORTS))
"""An import or an export names a declaration; it does not use it. Such edges are counted apart
(imported by N files) and never walked: a module that imports a name is not affected by it, and
neither is everything that imports that module."""
USE_CODES = ALL_REFERENCE_CODES - IMPORT_CODES
UNREAD = "REPOSITORY_UNAVAILABLE"
"""The invisible scope of a workspace repository that could not be read."""


@dataclass(frozen=True, slots=True)
class Declared:
    """One declaration of a changed file, on one side of the diff."""

    path: str
    qualified_name: str
    name: str
    kind: str
    language: str
    start_line: int
    end_line: int
    signature: str
    tokens: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Affected:
    qualified_name: str
    kind: str
    repository: str
    file_path: str
    start_line: int
    end_line: int
    depth: int
    via_kind: str
    via_confidence: str
    reached_from: str
    via_interface: str = ""
    revision: str = "base"
    """Where file_path:start_line is: "head" (the declaration as the head has it) or "base" (as the
    generation the graph was read from has it: the head no longer holds it there, or it is another
    repository's)."""


@dataclass(frozen=True, slots=True)
class Importer:
    """A file that imports (or re-exports) a changed symbol: tied to it by name, not by a use."""

    repository: str
    file_path: str
    """As the base generation has it."""


@dataclass(frozen=True, slots=True)
class Unavailable:
    """A repository of the workspace whose generation could not be read: its uses are not counted."""

    repository: str
    """Its name in the workspace, else its path or URL."""
    location: str
    """The path or URL the workspace gives."""
    code: str
    reason: str

    def scope(self) -> dict[str, Any]:
        """The invisible scope it adds to every answer a consumer could have widened."""
        return {"reason": UNREAD, "repository": self.repository, "path": ".", "detail": self.reason}


@dataclass(slots=True)
class ChangedSymbol:
    change: str
    """added, modified, signature_changed, deleted or moved."""
    qualified_name: str
    name: str
    kind: str
    language: str
    file_path: str
    """Where it is now (head), or was (deleted)."""
    start_line: int
    end_line: int
    base_path: str = ""
    signature_before: str = ""
    signature_after: str = ""
    in_base_graph: bool = False
    affected: list[Affected] = field(default_factory=list[Affected])
    """Declarations that use it, directly or through other uses: never through an import."""
    imported_by: list[Importer] = field(default_factory=list[Importer])
    truncated: bool = False
    completeness: dict[str, Any] = field(default_factory=dict[str, Any])

    @property
    def direct(self) -> int:
        return sum(1 for a in self.affected if a.depth == 1)


@dataclass(slots=True)
class Impact:
    repository: str
    base_commit: str
    head_commit: str
    """"" for the working tree."""
    generation_commit: str
    """The commit whose generation served as the base graph (the base, or an ancestor)."""
    depth: int
    changed: list[ChangedSymbol]
    files_changed: int
    notes: list[str]
    """Statements a reader must see: a stale base, a base indexed now, a default base chosen."""
    completeness: dict[str, Any]
    seconds: float = 0.0
    consumers_searched: tuple[str, ...] = ()
    """The other repositories linked in from the workspace."""
    workspace: str = ""
    """The workspace file given ("" for none)."""
    unavailable: tuple[Unavailable, ...] = ()
    """The workspace's repositories that could not be read."""

    @property
    def affected(self) -> list[Affected]:
        """Every symbol reached from any changed one, once (nearest depth first)."""
        seen: dict[tuple[str, str, str, int], Affected] = {}
        for symbol in self.changed:
            for a in symbol.affected:
                key = (a.repository, a.file_path, a.qualified_name, a.start_line)
                if key not in seen or a.depth < seen[key].depth:
                    seen[key] = a
        return sorted(seen.values(), key=lambda a: (a.depth, a.repository, a.file_path, a.start_line))

    @property
    def imported_by(self) -> list[Importer]:
        """Every file that imports a changed symbol, once."""
        return sorted({i for symbol in self.changed for i in symbol.imported_by},
                      key=lambda i: (i.repository != self.repository, i.repository, i.file_path))  # fmt: skip

    @property
    def consumers(self) -> dict[str, list[Affected]]:
        """Affected symbols of other repositories, by repository."""
        found: dict[str, list[Affected]] = {}
        for a in self.affected:
            if a.repository != self.repository:
                found.setdefault(a.repository, []).append(a)
        return dict(sorted(found.items()))


def default_base(repo: pygit2.Repository, head: pygit2.Commit | None) -> tuple[pygit2.Commit, str]:
    """The base when none is given: HEAD for the working tree; else where head left the default branch."""
    if head is None:
        return resolve_commit(repo, "HEAD"), "base: HEAD (the working tree's last commit)"
    for name in DEFAULT_BRANCHES:
        try:
            branch = resolve_commit(repo, name)
        except UnknownRevisionError:
            continue
        found = merge_base(repo, branch.id, head.id)
        if found is not None and found != str(head.id):
            return resolve_commit(repo, found), f"base: merge-base with {name}"
    if not head.parents:
        raise InvalidArgumentError("the head commit has no parent and no default branch to compare with; pass --base.")
    return head.parents[0], "base: the head commit's parent"


EXACTNESS_FIX = (
    "index the base with analyzers: the kivgraph index Action (index/action.yml, docs/action.md), or "
    "`kivgraph analyzers install . --languages auto` before `kivgraph index`"
)


def syntax_only(languages: Iterable[str], analyzers: Iterable[str]) -> list[tuple[str, str]]:
    """(language, analyzer) for each language of a generation whose type checker exists but did not
    run when it was indexed (a generation's header lists the analyzers that did): its edges there
    are the syntax layer's CANDIDATE guesses. Dart has no analyzer here, so it is never listed."""
    ran = set(analyzers)
    found: list[tuple[str, str]] = []
    for name in sorted(set(languages)):
        try:
            spec = analyzer_for(Language(name))
        except ValueError:  # a language a newer writer added: nothing is known about its analyzer
            continue
        if spec is not None and spec.name not in ran:
            found.append((name, spec.name))
    return found


def base_exactness(header: GenerationHeader) -> str:
    """One line for the report's notes when the base generation is syntax-only for a language that
    has a type checker, naming the fix; "" when every such language was type-checked."""
    missing = syntax_only((lang.value for lang in header.languages), (name for name, _ in header.analyzers))
    if not missing:
        return ""
    listed = ", ".join(f"{language} ({analyzer} did not run)" for language, analyzer in missing)
    return (
        f"base exactness: the base generation {header.commit[:12]} is syntax-only for {listed}, so uses there are "
        f"CANDIDATE guesses and the counts may be off; {EXACTNESS_FIX}"
    )


def base_generation(
    repo: pygit2.Repository, base: pygit2.Commit, index_missing: bool, ref: str, notes: list[str]
) -> tuple[LoadedRepository, str]:
    """The base graph: the note on the base commit, else (stated) a freshly indexed one or the
    nearest indexed ancestor's."""
    commit = str(base.id)
    root = repo.workdir or repo.path
    found = nearest_generation(repo, base, ref)
    if (found is None or found.behind) and index_missing:
        from kivgraph.indexing import index_repository

        blob = save_to_notes(repo, index_repository(root, commit, run_analyzers=True), ref)
        found = Found(commit, 0, blob, decode_columns(blob, note_location(commit, ref)))
        notes.append(f"the base {commit[:12]} had no generation: indexed it now and stored the note")
    elif found is None:
        raise GenerationNotFoundError(
            note_location(commit, ref),
            "neither the base nor any ancestor is indexed; pass --index-missing, or run `kivgraph index "
            f"--commit {commit[:12]}` first.",
        )
    elif found.behind:
        notes.append(
            f"the base {commit[:12]} has no generation: callers come from the nearest indexed ancestor "
            f"{found.commit[:12]}, {found.behind} commit{'s' if found.behind != 1 else ''} earlier (pass "
            "--index-missing to index the base itself)"
        )
    notes.extend(f"a nearer note was passed over: {problem}" for problem in found.passed_over)
    exactness = base_exactness(found.columns.header)
    if exactness:
        notes.append(exactness)
    return loaded_from(root, found, ref, freshness(repo, found.commit, 0)), found.commit


def declarations(path: str, source: bytes, fingerprints: Fingerprints) -> list[Declared]:
    """The declarations of one file version, with qualified names as indexing computes them."""
    language = language_of(path)
    if language is None or not source:
        return []
    lang_adapter = adapter(language)
    syntax = lang_adapter.parse(path, source)
    scopes = FileScopes.build(path, language, syntax, None, lang_adapter.separator)
    decls = syntax.declarations
    children: dict[int, list[range]] = {}
    for j, parent in enumerate(scopes.parents):
        if parent >= 0:
            children.setdefault(parent, []).append(range(decls[j].start_line, decls[j].end_line + 1))
    found: list[Declared] = []
    for i, d in enumerate(decls):
        tokens = fingerprints.tokens(path, source, range(d.start_line, d.end_line + 1), children.get(i, []))
        found.append(Declared(path, scopes.qualified_names[i], d.name, d.kind.value, language.value, d.start_line,
                              d.end_line, d.signature, tokens))  # fmt: skip
    return found


BaseKey = tuple[str, str, str, int]
"""(path, qualified name, kind, start line) of a declaration in the base."""


@dataclass(slots=True)
class HeadLines:
    """Where the head has a declaration the base graph places at path:line, so that a report names
    each declaration by one place: the same outside the files the diff touched, the paired
    declaration inside them, none (it stays where the base had it) once the head lost it."""

    touched: set[str] = field(default_factory=set[str])
    """Base paths the diff changed, renamed or deleted."""
    paired: dict[BaseKey, Declared | None] = field(default_factory=dict[BaseKey, Declared | None])
    drifted: set[str] | None = field(default_factory=set[str])
    """Paths where the generation read differs from the base commit (a nearest ancestor's): their
    lines are the generation's. None: not known, so every path may."""

    def place(
        self, path: str, qualified_name: str, kind: str, start_line: int, end_line: int
    ) -> tuple[str, int, int] | None:
        """(path, start, end) in the head, or None when the row must stay where the base graph has it."""
        if self.drifted is None or path in self.drifted:
            return None
        if path not in self.touched:
            return path, start_line, end_line
        found = self.paired.get((path, qualified_name, kind, start_line))
        return (found.path, found.start_line, found.end_line) if found is not None else None


def changed_symbols(changes: list[FileChange], lines: HeadLines | None = None) -> list[ChangedSymbol]:
    """Classify every declaration of the changed files: edits that only touch comments or layout
    are no change; a declaration that left one file for another with the same body moved. `lines`
    learns where each base declaration of those files is in the head."""
    fingerprints = Fingerprints()
    found: list[ChangedSymbol] = []
    gone: list[Declared] = []
    new: list[Declared] = []
    lines = lines if lines is not None else HeadLines()
    for change in changes:
        if change.old_path:
            lines.touched.add(change.old_path)
        if change.binary:
            continue
        before = declarations(change.old_path, change.old_source(), fingerprints) if change.old_path else []
        after = declarations(change.new_path, change.new_source(), fingerprints) if change.new_path else []
        waiting: dict[tuple[str, str], list[Declared]] = {}
        for n in after:
            waiting.setdefault((n.qualified_name, n.kind), []).append(n)
        for old in before:
            candidates = waiting.get((old.qualified_name, old.kind))
            if not candidates:
                gone.append(old)
                continue
            match = candidates.pop(0)
            lines.paired[_key(old)] = match
            if old.tokens == match.tokens:
                if change.old_path != change.new_path:
                    found.append(_changed("moved", old, match))
                continue
            kind = "signature_changed" if old.signature != match.signature else "modified"
            found.append(_changed(kind, old, match))
        new.extend(n for group in waiting.values() for n in group)
    for old in gone:
        match = next((n for n in new if (n.qualified_name, n.kind, n.tokens) == (old.qualified_name, old.kind,
                                                                              old.tokens)), None)  # fmt: skip
        lines.paired[_key(old)] = match
        if match is not None:
            new.remove(match)
            found.append(_changed("moved", old, match))
        else:
            found.append(_changed("deleted", old, None))
    found.extend(_changed("added", None, n) for n in new)
    order = {"signature_changed": 0, "deleted": 1, "modified": 2, "moved": 3, "added": 4}
    return sorted(found, key=lambda c: (order[c.change], c.file_path, c.start_line))


def _key(d: Declared) -> BaseKey:
    return d.path, d.qualified_name, d.kind, d.start_line


def _drifted(repo: pygit2.Repository, generation: str, base: pygit2.Commit) -> set[str] | None:
    """Paths that differ between the generation's commit and the base ({} when they are one)."""
    if generation == str(base.id):
        return set()
    try:
        older = repo.revparse_single(generation).peel(pygit2.Commit)
        diff = older.tree.diff_to_tree(base.tree)  # trees only: no blob is read
        return {path for d in diff.deltas for path in (d.old_file.path, d.new_file.path) if path}
    except (pygit2.GitError, KeyError, ValueError):
        return None


def _changed(kind: str, old: Declared | None, new: Declared | None) -> ChangedSymbol:
    now = new or old
    assert now is not None
    return ChangedSymbol(
        kind, now.qualified_name, now.name, now.kind, now.language, now.path, now.start_line, now.end_line,
        base_path=old.path if old else "", signature_before=old.signature if old else "",
        signature_after=new.signature if new else "",
    )  # fmt: skip


def analyze(
    path: str,
    base_rev: str | None = None,
    head_rev: str | None = "HEAD",
    depth: int = DEFAULT_DEPTH,
    index_missing: bool = False,
    ref: str = NOTES_REF,
    workspace: str | None = None,
) -> Impact:
    """The impact of head (a revision, or None for the working tree) against base; with a
    workspace, its other repositories' current generations are linked in, so the blast radius
    reaches their consumers."""
    started = time.monotonic()
    repo = open_repository(path)
    if not 1 <= depth <= 5:
        raise InvalidArgumentError("--depth must be between 1 and 5.")
    head = resolve_commit(repo, head_rev) if head_rev is not None else None
    notes: list[str] = []
    if base_rev is None:
        base, chosen = default_base(repo, head)
        notes.append(chosen)
    else:
        base = resolve_commit(repo, base_rev)
    changes = changed_files(repo, base, head)
    lines = HeadLines()
    symbols = changed_symbols(changes, lines)
    loaded, generation_commit = base_generation(repo, base, index_missing, ref, notes)
    lines.drifted = _drifted(repo, generation_commit, base)
    others, unavailable = _consumers(workspace, loaded, notes)
    graph = Graph([loaded, *others])
    for symbol in symbols:
        if symbol.change == "added":
            continue
        root = _base_id(graph, symbol)
        if root is None:
            continue
        symbol.in_base_graph = True
        visits, symbol.truncated = walk(graph, [root], True, depth, MAX_NODES, USE_CODES, None, True)
        symbol.affected = [_affected(graph, v, lines, loaded.name) for v in visits]
        symbol.imported_by = _importers(graph, root, symbol.language)
        languages = {symbol.language} | {graph.language_of(v.node) for v in visits}
        repositories = range(len(graph.repositories))
        symbol.completeness = completeness(graph, symbol.name, repositories, graph.unresolved_naming(symbol.name),
                                           languages, "incoming")  # fmt: skip
    unread = [u.scope() for u in unavailable]
    for symbol in symbols:
        if unread and symbol.change != "added":  # nothing could use an added symbol before the change
            symbol.completeness = {
                **symbol.completeness,
                "verdict": "LOWER_BOUND",
                "invisible_scopes": [*unread, *symbol.completeness.get("invisible_scopes", [])],
            }
    overall = _overall(symbols)
    return Impact(
        repository=loaded.name,
        base_commit=str(base.id),
        head_commit=str(head.id) if head is not None else "",
        generation_commit=generation_commit,
        depth=depth,
        changed=symbols,
        files_changed=len(changes),
        notes=notes,
        completeness=overall,
        seconds=time.monotonic() - started,
        consumers_searched=tuple(o.name for o in others),
        workspace=workspace or "",
        unavailable=unavailable,
    )


def _consumers(
    workspace: str | None, provider: LoadedRepository, notes: list[str]
) -> tuple[list[LoadedRepository], tuple[Unavailable, ...]]:
    """The workspace's other repositories, as generations to link, and those that could not be read
    (each said in the notes; why is in the completeness, which they make a LOWER_BOUND)."""
    if workspace is None:
        return [], ()
    from kivgraph.graph.workspace import load_members, read_workspace

    found: list[LoadedRepository] = []
    unavailable: list[Unavailable] = []
    members = [
        m for m in read_workspace(workspace)
        if not (m.path and os.path.realpath(m.path) == os.path.realpath(provider.root))
    ]  # fmt: skip
    for member, loaded in zip(members, load_members(members), strict=True):
        if isinstance(loaded, KivgraphError):
            notes.append(f"consumer {member.label} could not be read, so its uses are not counted")
            unavailable.append(Unavailable(member.label, member.path or member.url, loaded.code, str(loaded)))
            continue
        if loaded.name == provider.name:
            continue
        if loaded.freshness.moved:
            notes.append(f"consumer {loaded.name}: {loaded.freshness.detail}")
        found.append(loaded)
    return found, tuple(unavailable)


def _affected(graph: Graph, v: Visit, lines: HeadLines, repository: str) -> Affected:
    """One row of the walk, placed where the head has it when it can be."""
    i = v.node
    name, kind, where = graph.qualified_names[i], graph.kind_of(i), graph.repository_name(i)
    path, start, end, revision = graph.path_of(i), int(graph.start_line[i]), int(graph.end_line[i]), "base"
    moved = lines.place(path, name, kind, start, end) if where == repository else None
    if moved is not None:
        (path, start, end), revision = moved, "head"
    return Affected(name, kind, where, path, start, end, v.depth, visit_kind(graph, v), visit_confidence(graph, v),
                    graph.qualified_names[v.came_from], v.through, revision)  # fmt: skip


def _importers(graph: Graph, root: int, language: str) -> list[Importer]:
    """The files whose imports or exports name `root`. Where a language imports whole packages (Go),
    an import of the package names the files that declare it, so an import of `root`'s file counts."""
    targets = [root]
    try:
        by_package = adapter(Language(language)).package_scope
    except ValueError:
        by_package = False
    module = graph.file_modules.get(int(graph.file[root])) if by_package else None
    if module is not None:
        targets.append(module)
    found = {
        Importer(graph.repository_name(source), graph.path_of(source))
        for target in targets for e in ints(graph.incoming(target))
        if int(graph.edge_kind[e]) in IMPORT_CODES and (source := int(graph.edge_source[e])) != target
    }  # fmt: skip
    own = Importer(graph.repository_name(root), graph.path_of(root))
    return sorted(found - {own}, key=lambda i: (i.repository, i.file_path))


def _base_id(graph: Graph, symbol: ChangedSymbol) -> int | None:
    path = symbol.base_path or symbol.file_path
    for i in graph.by_qualified_name.get(symbol.qualified_name, []):
        if graph.path_of(i) == path and graph.kind_of(i) == symbol.kind:
            return i
    return None


def _overall(symbols: list[ChangedSymbol]) -> dict[str, Any]:
    """One verdict for the whole change: LOWER_BOUND as soon as any changed symbol's answer is."""
    bounded = [s.completeness for s in symbols if s.completeness.get("verdict") == "LOWER_BOUND"]
    if not bounded:
        return {"verdict": "COMPLETE"}
    scopes: dict[str, dict[str, Any]] = {}
    spots: dict[str, dict[str, Any]] = {}
    for verdict in bounded:
        for scope in verdict.get("invisible_scopes", []):
            key = f"{scope['reason']}|{scope.get('repository')}|{scope['path']}|{scope.get('language')}"
            scopes.setdefault(key, scope)
        for spot in verdict.get("blind_spots", []):
            key = f"{spot.get('repository')}|{spot['file_path']}:{spot['start_line']}:{spot.get('requested_symbol')}"
            spots.setdefault(key, spot)
    reasons = Counter(scope["reason"] for scope in scopes.values())
    return {
        "verdict": "LOWER_BOUND",
        "invisible_scopes": list(scopes.values()),
        "blind_spots": list(spots.values()),
        "reasons": dict(sorted(reasons.items())),
    }
