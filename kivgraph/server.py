"""`kivgraph serve`: the MCP server over stdio. It loads the generations, lists the tools of
graph/tools.py, validates and dispatches calls, and turns errors into `CODE: message` results."""

import contextlib
import json
import os
from collections.abc import Callable, Sequence
from typing import Any

import anyio
from mcp import types
from mcp.server import Server, ServerRequestContext
from mcp.server.lowlevel.server import NotificationOptions
from mcp.shared.exceptions import NoBackChannelError

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
from kivgraph.store.git import open_repository, root_of

INDEX_PROJECT_PARAMS = (
    Param("path", "string", "A served repository, or a path inside one, to index (default: the first served)."),
    Param("confirmed", "boolean", "The user approved indexing (needed when the client cannot ask them)."),
)
INDEX_PROJECT_DESCRIPTION = (
    "Index a repository at HEAD with its type checkers and publish the result to its git notes, once the user "
    "approves; the only tool that changes anything, never a source file."
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
        catalog.refresh()
        return types.ListToolsResult(tools=tool_list(catalog))

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        try:
            if params.name == "index_project":
                outcome = await index_project(ctx, catalog, params)
                if isinstance(outcome, types.InputRequiredResult):
                    return outcome
                text = outcome
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


APPROVAL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"confirmed": {"type": "boolean", "description": "Index and publish?"}},
    "required": ["confirmed"],
}


async def index_project(
    ctx: ServerRequestContext[Any], catalog: Catalog, params: types.CallToolRequestParams
) -> str | types.InputRequiredResult:
    args = validate("index_project", INDEX_PROJECT_PARAMS, params.arguments)
    path = served_repository(catalog, args.get("path"))
    asking = await _consent(ctx, params, path, bool(args.get("confirmed")))
    if asking is not None:
        return asking
    had_tools = catalog.session is not None
    token = (ctx.meta or {}).get("progress_token")
    progress = ProgressReporter(ctx, token) if token is not None else None
    try:
        summary = await anyio.to_thread.run_sync(_index_and_publish, path, progress)
    except KivgraphError as err:
        raise IndexingFailedError(f"project indexing failed: {err}") from err
    catalog.load()
    if not had_tools and catalog.session is not None:
        # A client that cannot take the notice still gets the tools on its next list.
        with contextlib.suppress(Exception):
            await ctx.session.send_tool_list_changed()
    return json.dumps(summary, separators=(",", ":"))


def served_repository(catalog: Catalog, requested: str | None) -> str:
    """The served repository `requested` lies in, spelled as the server was given it (the first one
    when None); PermissionDeniedError for a path in no served repository: index_project never
    writes to, or exposes, a repository the user did not serve."""
    served = catalog.local_repositories()
    if not served:
        raise PermissionDeniedError(
            "this server serves no repository it can index, only generation files; start it with "
            "`kivgraph serve --repo PATH` to index one"
        )
    if not requested:
        return served[0]
    wanted = _identity(requested)
    for path in served:
        if wanted is not None and _identity(path) == wanted:
            return path
    raise PermissionDeniedError(
        f"{requested} is not in a repository this server serves, so it is not indexed; index_project indexes "
        f"only {', '.join(map(os.path.abspath, served))} (serve another by adding it to the server's --repo "
        "options or its workspace)"
    )


def _identity(path: str) -> tuple[int, int] | None:
    """(device, inode) of the working tree `path` lies in: one value for every spelling of it —
    `a/../a`, a symlink, a sub-directory, another letter case on a case-insensitive filesystem."""
    try:
        found = os.stat(root_of(open_repository(path)))
    except (KivgraphError, OSError):
        return None
    return found.st_dev, found.st_ino


async def _consent(
    ctx: ServerRequestContext[Any], params: types.CallToolRequestParams, path: str, confirmed: bool
) -> types.InputRequiredResult | None:
    """None once the user approved; an input request to send when they must be asked first.

    A client that can ask its user (elicitation) is always asked, and `confirmed` is ignored for
    it: the model cannot approve on the user's behalf. Others need `confirmed: true`.
    """
    message = f"Allow kivgraph to index {path} and publish the generation to its git notes?"
    answered = (params.input_responses or {}).get("approval")
    if isinstance(answered, types.ElicitResult):
        return _approved(answered)
    capability = types.ClientCapabilities(elicitation=types.ElicitationCapability())
    if not ctx.session.check_client_capability(capability):
        if confirmed:
            return None
        raise PermissionRequiredError(
            "user approval is required; confirm the operation with the user, then call again with confirmed=true"
        )
    try:
        return _approved(await ctx.session.elicit_form(message, APPROVAL_SCHEMA))
    except NoBackChannelError:
        # Protocol 2026-07-28 has no server-initiated requests: the question rides on the result,
        # and the client calls again with the answer.
        form = types.ElicitRequestFormParams(message=message, requested_schema=APPROVAL_SCHEMA)
        request = types.ElicitRequest(params=form)
        return types.InputRequiredResult(input_requests={"approval": request})
    except Exception as err:  # noqa: BLE001 — any transport failure means no approval was obtained
        raise PermissionRequiredError(f"the client could not obtain indexing permission ({err})") from err


def _approved(answer: types.ElicitResult) -> None:
    if answer.action != "accept" or not (answer.content or {}).get("confirmed"):
        raise PermissionDeniedError("project indexing was not approved")


class ProgressReporter:
    """An indexing progress callback, called in the worker thread, that sends notifications/progress:
    one per stage and per tenth of its work, numbered 1, 2, 3… (there is no total to promise)."""

    def __init__(self, ctx: ServerRequestContext[Any], token: str | int) -> None:
        self.ctx, self.token = ctx, token
        self.sent = 0
        self.last: tuple[str, int] = ("", -1)

    def __call__(self, stage: str, done: int, total: int) -> None:
        step = (stage, done * 10 // total if total else 0)
        if step == self.last:
            return
        self.last = step
        self.sent += 1
        message = f"{stage} {done}/{total}" if total else stage
        with contextlib.suppress(Exception):  # progress is a courtesy; indexing goes on without it
            anyio.from_thread.run(self.ctx.session.send_progress_notification, self.token, float(self.sent), None,
                                  message)  # fmt: skip


def _index_and_publish(path: str, progress: Callable[[str, int, int], None] | None = None) -> dict[str, Any]:
    from kivgraph.indexing import index_repository
    from kivgraph.store import save_to_notes

    generation = index_repository(path, run_analyzers=True, progress=progress)
    blob = save_to_notes(open_repository(path), generation)
    return {"repository": generation.header.repository, "commit": generation.header.commit,
            "symbols": len(generation.symbols), "edges": len(generation.edges), "bytes": len(blob)}  # fmt: skip


def serve(
    repositories: Sequence[str], generation_files: Sequence[tuple[str, str]], workspace: str | None = None
) -> None:
    """Serve over stdio until the client leaves. A --repo that is not a git repository (or, for
    generation files, not a directory) fails here, before the transport opens, as `query` does; one
    that has no generation yet is served with index_project alone."""
    from kivgraph.stdio_guard import gated_stdio

    for path in repositories:
        open_repository(path)
    for _, root in generation_files:
        if root and not os.path.isdir(root):
            raise KivgraphError(f"{root} is not a directory; with --generation, --repo names the files' working tree.")
    catalog = Catalog(list(repositories), list(generation_files), workspace)
    catalog.load()
    server = build_server(catalog)

    async def main() -> None:
        async with gated_stdio() as (read, write):
            options = server.create_initialization_options(NotificationOptions(tools_changed=True))
            await server.run(read, write, options)

    anyio.run(main)
