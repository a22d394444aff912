"""What is served: the repositories and generation files asked for, the graph loaded from them, and
one entry point that validates a tool's arguments and runs it (MCP and `kivgraph query` share it)."""

import contextlib
import json
import os
import sys
import threading
import time
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, cast

from kivgraph.errors import GenerationNotFoundError, InvalidArgumentError, KivgraphError, SymbolNotFoundError
from kivgraph.graph.arguments import validate
from kivgraph.graph.index import Graph
from kivgraph.graph.load import LoadedRepository, load_file, load_repository
from kivgraph.graph.queries import Session
from kivgraph.graph.tools import Tool
from kivgraph.graph.workspace import load_members, read_workspace
from kivgraph.store import NOTES_REF
from kivgraph.store.git import head_state

if TYPE_CHECKING:
    from kivgraph.model import Generation
    from kivgraph.overlay import Edit

WATCH_RETRIES = 5
"""Watches that fail before they are in place, one after another, before the overlay stops following edits."""
RECHECK_SECONDS = 2.0
"""How often a served graph looks for a moved HEAD or a newly published note."""


@dataclass
class Catalog:
    """What is served: the repositories and generation files asked for, and the graph loaded from them.

    A source that cannot be loaded (no generation, a corrupt note, not a repository) is recorded in
    `problems` and the others are served. `refresh` reloads when a repository's HEAD or its notes
    ref moved, so a running server answers from the newest generation (and old cursors expire).
    """

    repositories: list[str]
    generation_files: list[tuple[str, str]] = field(default_factory=list[tuple[str, str]])
    workspace: str | None = None
    """A kivgraph.toml whose repositories are served too (local paths and git URLs)."""
    session: Session | None = None
    problems: list[str] = field(default_factory=list[str])
    """Why each source that could not be loaded was not, one sentence each (graph_status.unavailable)."""
    failures: list[KivgraphError] = field(default_factory=list[KivgraphError])
    """The same, as the errors themselves."""
    overlay: bool = False
    """Lay each served repository's working tree over its generation (kivgraph/overlay.py)."""
    overlaid: dict[str, list["Edit"]] = field(default_factory=dict[str, list["Edit"]])
    """Per repository name, the files laid over its generation."""
    _signature: tuple[tuple[str, str], ...] = ()
    _checked: float = 0.0
    _lock: threading.RLock = field(default_factory=threading.RLock)
    _watcher: threading.Thread | None = None

    def load(self) -> None:
        with self._lock:
            self._load()

    def _load(self) -> None:
        loaded: list[LoadedRepository] = []
        failures: list[tuple[str, KivgraphError]] = []
        self._signature = self._current_signature()
        self._checked = time.monotonic()
        overlaid: dict[str, list[Edit]] = {}
        vanished: dict[str, str] = {}
        for path in self.repositories:
            try:
                repository = load_repository(path)
                if self.overlay:
                    repository, edits, gone = _with_overlay(repository)
                    if edits:
                        overlaid[repository.name] = edits
                        vanished.update(gone)
                loaded.append(repository)
            except KivgraphError as err:
                failures.append((path, err))
        for path, root in self.generation_files:
            try:
                loaded.append(load_file(path, root))
            except KivgraphError as err:
                failures.append((path, err))
        if self.workspace is not None:
            served = {os.path.realpath(p) for p in self.repositories}
            try:
                listed = read_workspace(self.workspace)
            except KivgraphError as err:
                failures.append((self.workspace, err))
                listed = []
            members = [m for m in listed if not m.path or os.path.realpath(m.path) not in served]
            for member, outcome in zip(members, load_members(members), strict=True):
                if isinstance(outcome, KivgraphError):
                    failures.append((member.label, outcome))
                else:
                    loaded.append(outcome)
        loaded = _first_of_each_name(loaded, failures)
        self.failures = [err for _, err in failures]
        # Each problem names its source once: most errors already say the path they are about.
        self.problems = [str(err) if label in str(err) else f"{label}: {err}" for label, err in failures]
        self.overlaid = {name: edits for name, edits in overlaid.items() if any(r.name == name for r in loaded)}
        self.session = Session(Graph(loaded), tuple(self.problems), self.overlaid, vanished) if loaded else None

    def watch(self) -> None:
        """Follow the served working trees: each save re-lays the overlay, on a thread of its own."""
        roots = [p for p in self.repositories if os.path.isdir(p)]
        if not self.overlay or not roots or self._watcher is not None:
            return
        self._watcher = threading.Thread(target=self._follow, args=(roots,), name="kivgraph-overlay", daemon=True)
        self._watcher.start()

    def _follow(self, roots: list[str]) -> None:
        from watchfiles import watch

        def wanted(_: Any, path: str) -> bool:
            parts = path.replace(os.sep, "/").split("/")
            return not any(p in (".git", "node_modules") for p in parts)

        failures = 0
        said: set[str] = set()
        reload = True  # the first watch reads what was saved before it was in place
        while failures < WATCH_RETRIES:
            ready = False
            try:
                for changes in watch(*roots, watch_filter=wanted, debounce=200, step=50, raise_interrupt=False,
                                     yield_on_timeout=True, rust_timeout=500):  # fmt: skip
                    ready = True
                    if changes or reload:
                        reload = False
                        with contextlib.suppress(KivgraphError, OSError), self._lock:
                            self._load()
                return
            except Exception as err:  # noqa: BLE001 — the watcher's own failure (a file name it cannot decode)
                failures = 0 if ready else failures + 1
                if str(err) not in said:  # the same file fails the same way at each event: said once
                    said.add(str(err))
                    print(f"kivgraph: the working-tree watch failed ({type(err).__name__}: {err}); watching again",
                          file=sys.stderr, flush=True)  # fmt: skip
                # Read what changed while no watch was in place, before the next one starts: reading the
                # tree (git opens files) then gives the new watch no event of its own making.
                time.sleep(0.2)
                with contextlib.suppress(KivgraphError, OSError), self._lock:
                    self._load()
        print("kivgraph: the working-tree overlay stopped following edits (no watch could be started); answers stay "
              "as last laid over until HEAD moves or the server restarts", file=sys.stderr, flush=True)  # fmt: skip

    def refresh(self) -> bool:
        """Reload when a served repository moved or published a note; True when it did."""
        now = time.monotonic()
        if now - self._checked < RECHECK_SECONDS:
            return False
        self._checked = now
        if self._current_signature() == self._signature:
            return False
        self.load()
        return True

    def local_repositories(self) -> list[str]:
        """The served repositories read from their own notes on this machine (each --repo, then the
        workspace's local members): the only ones `index_project` may index."""
        local = list(self.repositories)
        if self.workspace is not None:
            with contextlib.suppress(KivgraphError):  # load() reports it
                local += [m.path for m in read_workspace(self.workspace) if m.path]
        return local

    def _current_signature(self) -> tuple[tuple[str, str], ...]:
        marks: list[tuple[str, str]] = []
        marks += [head_state(path, NOTES_REF) for path in self.local_repositories()]
        for path, _ in self.generation_files:
            try:
                stat = os.stat(path)
                marks.append((str(stat.st_mtime_ns), str(stat.st_size)))
            except OSError:
                marks.append(("", ""))
        return tuple(marks)


_BASES: dict[str, tuple[str, "Generation"]] = {}
"""Per working tree, the commit overlays are laid over and its generation as rows: read once, not per save."""


def _with_overlay(repository: LoadedRepository) -> tuple[LoadedRepository, list["Edit"], dict[str, str]]:
    """The repository with its working tree's edits since the generation's commit laid over it, the
    edits, and the qualified names the edited files declared there and no longer do (with the file)."""
    from kivgraph.overlay import overlaid, working_tree_edits
    from kivgraph.store import codec, load_from_notes
    from kivgraph.store.git import open_repository

    commit = repository.columns.header.commit
    if not repository.root or not commit:
        return repository, [], {}
    edits = working_tree_edits(repository.root, commit)
    if not edits:
        return repository, [], {}
    kept = _BASES.get(repository.root)
    if kept is None or kept[0] != commit:  # one base per served tree: the one the next save lays over again
        kept = _BASES[repository.root] = (commit, load_from_notes(open_repository(repository.root), commit))
    base = kept[1]
    laid = overlaid(repository.root, base, edits)
    edited = {e.path for e in edits}
    now = {s.qualified_name for s in laid.symbols if s.file in edited}
    gone = {s.qualified_name: s.file for s in base.symbols if s.file in edited and s.qualified_name not in now}
    blob = codec.encode(laid)
    columns = codec.decode_columns(blob, repository.location)
    where = f"{repository.location} + working tree"
    return replace(repository, columns=columns, size=len(blob), location=where), edits, gone


def _first_of_each_name(
    loaded: list[LoadedRepository], failures: list[tuple[str, KivgraphError]]
) -> list[LoadedRepository]:
    """One graph holds one repository per name: a later generation under a name already served
    (two clones of one project, a crafted header) is listed as a failure, and the rest served."""
    kept: dict[str, LoadedRepository] = {}
    for repository in loaded:
        first = kept.setdefault(repository.name, repository)
        if first is not repository:
            failures.append((repository.location, InvalidArgumentError(
                f"{repository.location} holds a generation named {repository.name!r}, the name of the one already "
                f"served from {first.location}; serve one of them, or name them apart in a kivgraph.toml."
            )))  # fmt: skip
    return list(kept.values())


def run_tool(catalog: Catalog, tool: Tool, arguments: object) -> str:
    """The text of a successful answer; KivgraphError for every refusal."""
    catalog.refresh()
    if catalog.session is None:
        raise nothing_loaded(catalog)
    args = validate(tool.name, tool.params, arguments)
    if isinstance(arguments, dict) and "limit" in arguments:
        args["limit_given"] = True
    session = catalog.session
    try:
        answer = tool.run(session, args)
    except SymbolNotFoundError as err:
        asked = args.get("qualified_name") or args.get("name")
        declared = session.vanished.get(asked) if isinstance(asked, str) else None
        if declared is None:
            raise
        raise SymbolNotFoundError(f"{err}: {declared} declared it when last indexed, and the working tree's copy no "
                                  "longer does (renamed or removed there); find_symbol or get_file_outline on "
                                  f"{declared} shows what it declares now") from err  # fmt: skip
    if session.overlaid and not isinstance(answer, str):
        by_repository = {name: {e.path for e in edits} for name, edits in session.overlaid.items()}
        by_repository[""] = set().union(*by_repository.values())  # a row that names no repository
        _mark_overlaid(answer, by_repository)
    return answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False, separators=(",", ":"))


def _mark_overlaid(value: object, overlaid: dict[str, set[str]], repository: str = "") -> None:
    """`overlay: true` on every row (or group of rows) of a file laid over its generation; a row
    belongs to the repository it or an enclosing object names."""
    if isinstance(value, list):
        for item in cast(list[object], value):
            _mark_overlaid(item, overlaid, repository)
        return
    if not isinstance(value, dict):
        return
    row = cast(dict[str, object], value)
    named = row.get("repository")
    repository = named if isinstance(named, str) else repository
    paths = overlaid.get(repository, set())
    if any(isinstance(p := row.get(k), str) and p in paths for k in ("path", "file_path", "file")):
        row["overlay"] = True
    for item in list(row.values()):
        _mark_overlaid(item, overlaid, repository)


def nothing_loaded(catalog: Catalog) -> KivgraphError:
    """Why there is no graph to answer from, said once: the first source's own error."""
    if catalog.failures:
        return catalog.failures[0]
    return GenerationNotFoundError("the served repositories", "call index_project first.")
