"""What is served: the repositories and generation files asked for, the graph loaded from them, and
one entry point that validates a tool's arguments and runs it (MCP and `kivgraph query` share it)."""

import json
from dataclasses import dataclass, field

from kivgraph.errors import GenerationNotFoundError
from kivgraph.graph.arguments import validate
from kivgraph.graph.index import Graph
from kivgraph.graph.load import LoadedRepository, load_file, load_repository
from kivgraph.graph.queries import Session
from kivgraph.graph.tools import Tool


@dataclass
class Catalog:
    """What is served: the repositories and generation files asked for, and the graph loaded from them."""

    repositories: list[str]
    generation_files: list[tuple[str, str]] = field(default_factory=list[tuple[str, str]])
    session: Session | None = None
    problems: list[str] = field(default_factory=list[str])

    def load(self) -> None:
        loaded: list[LoadedRepository] = []
        self.problems = []
        for path in self.repositories:
            try:
                loaded.append(load_repository(path))
            except GenerationNotFoundError as err:
                self.problems.append(str(err))
        for path, root in self.generation_files:
            loaded.append(load_file(path, root))
        self.session = Session(Graph(loaded)) if loaded else None


def run_tool(catalog: Catalog, tool: Tool, arguments: object) -> str:
    """The text of a successful answer; KivgraphError for every refusal."""
    if catalog.session is None:
        raise GenerationNotFoundError("the served repositories", "call index_project first.")
    args = validate(tool.name, tool.params, arguments)
    if isinstance(arguments, dict) and "limit" in arguments:
        args["limit_given"] = True
    answer = tool.run(catalog.session, args)
    return answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False, separators=(",", ":"))
