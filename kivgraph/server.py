"""`kivgraph serve`: the MCP server over stdio. It loads the generations, lists the tools of
graph/tools.py, validates and dispatches calls, and turns errors into `CODE: message` results."""

import contextlib
import json
from collections.abc import Sequence
from typing import Any

import anyio
from mcp import types
from mcp.server import Server, ServerRequestContext
from mcp.server.lowlevel.server import NotificationOptions

from kivgraph import __version__
from kivgraph.errors import (
    IndexingFailedError,
    InvalidArgumentError,
    KivgraphError,
    PermissionDeniedError,
    PermissionRequiredError,
    SnapshotUnavailableError,
)
from kivgraph.graph.arguments import Param, schema, validate
from kivgraph.graph.catalog import Catalog, run_tool
from kivgraph.graph.tools import INSTRUCTIONS, NOT_INDEXED_INSTRUCTIONS, TOOL_BY_NAME, TOOLS

INDEX_PROJECT_PARAMS = (
    Param("path", "string", "Repository to index (default: the first served repository)."),
    Param("confirmed", "boolean", "The user approved indexing (needed when the client cannot ask them)."),
)
INDEX_PROJECT_DESCRIPTION = (
    "Index a repository at HEAD with its type checkers and publish the generation to its git notes, after "
    "explicit user approval; the only tool that changes anything, and it never writes inside source files."
)


def tool_list(catalog: Catalog) -> list[types.Tool]:
    tools: list[types.Tool] = []
    if catalog.session is not None:
        for tool in TOOLS:
            tools.append(
                types.Tool(
                    name=tool.name,
                    title=tool.title,
                    description=tool.description,
                    input_schema=schema(tool.params),
                    annotations=types.ToolAnnotations(
                        read_only_hint=True, idempotent_hint=True, open_world_hint=False
                    ),  # fmt: skip
                )
            )
    tools.append(
        types.Tool(
            name="index_project",
            title="Index project",
            description=INDEX_PROJECT_DESCRIPTION,
            input_schema=schema(INDEX_PROJECT_PARAMS),
            annotations=types.ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False),
        )
    )
    return tools


def error_result(err: KivgraphError) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=f"{err.code}: {err}")], is_error=True)


def build_server(catalog: Catalog) -> Server[Any]:
    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tool_list(catalog))

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        try:
            if params.name == "index_project":
                text = await index_project(ctx, catalog, params.arguments)
            else:
                tool = TOOL_BY_NAME.get(params.name)
                if tool is None:
                    raise InvalidArgumentError(f'unknown tool "{params.name}"')
                text = run_tool(catalog, tool, params.arguments)
        except KivgraphError as err:
            return error_result(err)
        except Exception as err:  # noqa: BLE001 — a query bug must not kill the session
            return error_result(
                SnapshotUnavailableError(f"the query failed unexpectedly ({type(err).__name__}: {err})")
            )
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])

    instructions = INSTRUCTIONS if catalog.session is not None else NOT_INDEXED_INSTRUCTIONS
    return Server("kivgraph", version=__version__, instructions=instructions, on_list_tools=list_tools,
                  on_call_tool=call_tool)  # fmt: skip


async def index_project(ctx: ServerRequestContext[Any], catalog: Catalog, arguments: object) -> str:
    args = validate("index_project", INDEX_PROJECT_PARAMS, arguments)
    path: str | None = args.get("path") or (catalog.repositories[0] if catalog.repositories else None)
    if path is None:
        raise InvalidArgumentError("path is required: the server was started without a repository")
    if not args.get("confirmed") and not await _approved_by_user(ctx, path):
        raise PermissionRequiredError(
            "user approval is required; confirm the operation with the user, then call again with confirmed=true"
        )
    had_tools = catalog.session is not None
    try:
        summary = await anyio.to_thread.run_sync(_index_and_publish, path)
    except KivgraphError as err:
        raise IndexingFailedError(f"project indexing failed: {err}") from err
    if path not in catalog.repositories:
        catalog.repositories.append(path)
    catalog.load()
    if not had_tools and catalog.session is not None:
        # A client that cannot take the notice still gets the tools on its next list.
        with contextlib.suppress(Exception):
            await ctx.session.send_tool_list_changed()
    return json.dumps(summary, separators=(",", ":"))


async def _approved_by_user(ctx: ServerRequestContext[Any], path: str) -> bool:
    """Ask through elicitation when the client offers it; False when it cannot ask."""
    capability = types.ClientCapabilities(elicitation=types.ElicitationCapability())
    try:
        if not ctx.session.check_client_capability(capability):
            return False
        answer = await ctx.session.elicit_form(
            f"Allow kivgraph to index {path} and publish the generation to its git notes?",
            {"type": "object", "properties": {"confirmed": {"type": "boolean"}}, "required": ["confirmed"]},
        )
    except Exception:  # noqa: BLE001 — no back channel: fall back to the confirmed argument
        return False
    if answer.action != "accept" or not (answer.content or {}).get("confirmed"):
        raise PermissionDeniedError("project indexing was not approved")
    return True


def _index_and_publish(path: str) -> dict[str, Any]:
    from kivgraph.indexing import index_repository
    from kivgraph.store import save_to_notes
    from kivgraph.store.notes import open_repository

    generation = index_repository(path, run_analyzers=True)
    blob = save_to_notes(open_repository(path), generation)
    return {"repository": generation.header.repository, "commit": generation.header.commit,
            "symbols": len(generation.symbols), "edges": len(generation.edges), "bytes": len(blob)}  # fmt: skip


def serve(repositories: Sequence[str], generation_files: Sequence[tuple[str, str]]) -> None:
    from mcp.server.stdio import stdio_server

    catalog = Catalog(list(repositories), list(generation_files))
    catalog.load()
    server = build_server(catalog)

    async def main() -> None:
        async with stdio_server() as (read, write):
            options = server.create_initialization_options(NotificationOptions(tools_changed=True))
            await server.run(read, write, options)

    anyio.run(main)
