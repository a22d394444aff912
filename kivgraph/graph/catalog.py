"""What is served: the repositories and generation files asked for, the graph loaded from them, and
one entry point that validates a tool's arguments and runs it (MCP and `kivgraph query` share it)."""

import contextlib
import json
import os
import time
from dataclasses import dataclass, field

from kivgraph.errors import GenerationNotFoundError, InvalidArgumentError, KivgraphError
from kivgraph.graph.arguments import validate
from kivgraph.graph.index import Graph
from kivgraph.graph.load import LoadedRepository, load_file, load_repository
from kivgraph.graph.queries import Session
from kivgraph.graph.tools import Tool
from kivgraph.graph.workspace import load_members, read_workspace
from kivgraph.store import NOTES_REF
from kivgraph.store.git import head_state

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
    _signature: tuple[tuple[str, str], ...] = ()
    _checked: float = 0.0

    def load(self) -> None:
        loaded: list[LoadedRepository] = []
        failures: list[tuple[str, KivgraphError]] = []
        self._signature = self._current_signature()
        self._checked = time.monotonic()
        for path in self.repositories:
            try:
                loaded.append(load_repository(path))
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
        self.session = Session(Graph(loaded), tuple(self.problems)) if loaded else None

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
    answer = tool.run(catalog.session, args)
    return answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False, separators=(",", ":"))


def nothing_loaded(catalog: Catalog) -> KivgraphError:
    """Why there is no graph to answer from, said once: the first source's own error."""
    if catalog.failures:
        return catalog.failures[0]
    return GenerationNotFoundError("the served repositories", "call index_project first.")
