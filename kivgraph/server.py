"""`kivgraph serve`: an MCP server over stdio, on the JSON-RPC lines of stdio.py. It speaks both
protocol eras (the 2024-11-05…2025-11-25 handshake and the 2026-07-28 per-request envelope), lists the
tools of graph/tools.py, dispatches calls, and turns errors into `CODE: message` results. It imports
no MCP SDK: serving starts in the time it takes to load a generation."""

import contextlib
import json
import os
import threading
from collections.abc import Callable, Sequence
from typing import IO, Any

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
from kivgraph.stdio import INTERNAL_ERROR, INVALID_PARAMS, METHOD_NOT_FOUND, Incoming, RemoteError, Wire, as_object
from kivgraph.store.git import open_repository, root_of

HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
"""Protocol versions agreed once, by `initialize`; the last is offered to a client asking for another."""
MODERN_VERSIONS = ("2026-07-28",)
"""Protocol versions every request names in its `_meta`, found by `server/discover`."""
UNSUPPORTED_PROTOCOL_VERSION = -32022
META = "io.modelcontextprotocol/"
SERVER_INFO = {"name": "kivgraph", "version": __version__}

INDEX_PROJECT_PARAMS = (
    Param("path", "string", "A served repository, or a path inside one, to index (default: the first served)."),
    Param("confirmed", "boolean", "The user approved indexing (needed when the client cannot ask them)."),
)
INDEX_PROJECT_DESCRIPTION = (
    "Index a repository at HEAD with its type checkers and publish the result to its git notes, once the user "
    "approves; the only tool that changes anything, never a source file."
)
READ_ONLY = {"readOnlyHint": True, "idempotentHint": True, "openWorldHint": False}
APPROVAL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"confirmed": {"type": "boolean", "description": "Index and publish?"}},
    "required": ["confirmed"],
}


def tool_list(catalog: Catalog, offer_index: bool = True) -> list[dict[str, Any]]:
    tools: list[dict[str, Any]] = []
    if catalog.session is not None:
        tools += [{"name": tool.name, "title": tool.title, "description": tool.description,
                   "inputSchema": schema(tool.params), "annotations": READ_ONLY} for tool in TOOLS]  # fmt: skip
    if not offer_index:
        return tools
    annotations = {"readOnlyHint": False, "destructiveHint": False, "openWorldHint": False}
    tools.append({"name": "index_project", "title": "Index project", "description": INDEX_PROJECT_DESCRIPTION,
                  "inputSchema": schema(INDEX_PROJECT_PARAMS), "annotations": annotations})  # fmt: skip
    return tools


def text_result(text: str, failed: bool = False) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": failed}


def error_result(err: KivgraphError) -> dict[str, Any]:
    return text_result(f"{err.code}: {err}", failed=True)


class ProtocolError(Exception):
    """A request this server cannot take, answered with a JSON-RPC error rather than a result."""

    def __init__(self, code: int, message: str, data: object = None) -> None:
        super().__init__(message)
        self.code, self.data = code, data


class Server:
    """One client's session: its requests are answered in order on the reading thread, except
    index_project, which runs on a thread of its own so the session goes on answering meanwhile."""

    def __init__(self, catalog: Catalog, wire: Wire, offer_index: bool = True) -> None:
        """`offer_index`: list and run index_project (the HTTP transport offers it only when asked to)."""
        self.catalog, self.wire, self.offer_index = catalog, wire, offer_index
        self.capabilities: dict[str, Any] = {}
        """What the client said it can do, at `initialize` (the 2026-07-28 era says it per request)."""
        self.workers: list[threading.Thread] = []

    def run(self) -> None:
        for message in self.wire.incoming():
            if message.id is not None:
                self.answer(message)
        for worker in self.workers:
            worker.join()

    def answer(self, request: Incoming) -> None:
        version = _fields(request.params.get("_meta")).get(META + "protocolVersion")
        try:
            if version is not None and version not in MODERN_VERSIONS:
                supported = {"supported": [*MODERN_VERSIONS, *HANDSHAKE_VERSIONS], "requested": version}
                raise ProtocolError(UNSUPPORTED_PROTOCOL_VERSION, f"protocol version {version!r} is not supported",
                                    supported)  # fmt: skip
            if request.method == "tools/call" and request.params.get("name") == "index_project" and self.offer_index:
                worker = threading.Thread(target=self._index_project, args=(request, version is not None))
                self.workers.append(worker)
                worker.start()
                return
            result = self._result(request, modern=version is not None)
        except ProtocolError as err:
            self.wire.fail(request.id, err.code, str(err), err.data)
            return
        except Exception as err:  # noqa: BLE001 — a bug answers this request with an error, never ends the session
            self.wire.fail(request.id, INTERNAL_ERROR, f"Internal error: {type(err).__name__}: {err}")
            return
        self.wire.answer(request.id, _enveloped(result) if version is not None else result)

    def _result(self, request: Incoming, modern: bool) -> dict[str, Any]:
        method, params = request.method, request.params
        if method == "ping":
            return {}
        if method == "initialize":
            self.capabilities = _fields(params.get("capabilities"))
            asked = params.get("protocolVersion")
            return {"protocolVersion": asked if asked in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1],
                    "capabilities": {"tools": {"listChanged": True}}, "serverInfo": SERVER_INFO,
                    "instructions": self._instructions()}  # fmt: skip
        if method == "server/discover":
            return {"supportedVersions": list(MODERN_VERSIONS), "capabilities": {"tools": {"listChanged": False}},
                    "instructions": self._instructions(), "cacheScope": "private", "ttlMs": 0}  # fmt: skip
        if method == "tools/list":
            self.catalog.refresh()
            tools = {"tools": tool_list(self.catalog, self.offer_index)}
            return {**tools, "cacheScope": "private", "ttlMs": 0} if modern else tools
        if method == "tools/call":
            return self._call(params)
        raise ProtocolError(METHOD_NOT_FOUND, f"Method not found: {method}")

    def _instructions(self) -> str:
        return INSTRUCTIONS if self.catalog.session is not None else NOT_INDEXED_INSTRUCTIONS

    def _call(self, params: dict[str, Any]) -> dict[str, Any]:
        name, arguments = params.get("name"), as_object(params.get("arguments"))
        if not isinstance(name, str) or (arguments is None and params.get("arguments") is not None):
            raise ProtocolError(INVALID_PARAMS, "Invalid params: tools/call takes a tool name and an arguments object")
        try:
            tool = TOOL_BY_NAME.get(name)
            if name == "index_project":
                raise PermissionDeniedError(
                    "this server does not index: it was started with --http and without "
                    "--allow-index; index with `kivgraph index` where the repository is"
                )
            if tool is None:
                raise InvalidArgumentError(f'unknown tool "{name}"')
            return text_result(run_tool(self.catalog, tool, arguments))
        except KivgraphError as err:
            return error_result(err)
        except Exception as err:  # noqa: BLE001 — a query bug must not kill the session
            return error_result(SnapshotUnavailableError(f"the query failed unexpectedly ({type(err).__name__}: "
                                                         f"{err})"))  # fmt: skip

    def _index_project(self, request: Incoming, modern: bool) -> None:
        try:
            result = self._indexed(request.params, modern)
        except KivgraphError as err:
            result = error_result(err)
        except Exception as err:  # noqa: BLE001 — whatever went wrong, the client gets an answer
            result = error_result(IndexingFailedError(f"project indexing failed ({type(err).__name__}: {err})"))
        self.wire.answer(request.id, _enveloped(result) if modern else result)

    def _indexed(self, params: dict[str, Any], modern: bool) -> dict[str, Any]:
        args = validate("index_project", INDEX_PROJECT_PARAMS, as_object(params.get("arguments")))
        path = served_repository(self.catalog, args.get("path"))
        asking = self._consent(params, path, bool(args.get("confirmed")), modern)
        if asking is not None:
            return asking
        had_tools = self.catalog.session is not None
        token = _fields(params.get("_meta")).get("progressToken")
        progress = ProgressReporter(self.wire, token) if isinstance(token, str | int) else None
        try:
            summary = _index_and_publish(path, progress)
        except KivgraphError as err:
            raise IndexingFailedError(f"project indexing failed: {err}") from err
        self.catalog.load()
        if not had_tools and self.catalog.session is not None and not modern:
            self.wire.notify("notifications/tools/list_changed", {})
        return text_result(json.dumps(summary, separators=(",", ":")))

    def _consent(self, params: dict[str, Any], path: str, confirmed: bool, modern: bool) -> dict[str, Any] | None:
        """None once the user approved; the input request to answer with when they must be asked first.

        A client that can ask its user (elicitation) is always asked, and `confirmed` is ignored for
        it: the model cannot approve on the user's behalf. Others need `confirmed: true`. The
        2026-07-28 era has no server-initiated requests: the question rides on the result, and the
        client calls again with the answer."""
        message = f"Allow kivgraph to index {path} and publish the generation to its git notes?"
        responses = _fields(params.get("inputResponses"))
        if "approval" in responses:
            return _approved(responses["approval"])
        meta = _fields(params.get("_meta"))
        capabilities = _fields(meta.get(META + "clientCapabilities")) if modern else self.capabilities
        if "elicitation" not in capabilities:
            if confirmed:
                return None
            raise PermissionRequiredError(
                "user approval is required; confirm the operation with the user, then call again with confirmed=true"
            )
        question = {"mode": "form", "message": message, "requestedSchema": APPROVAL_SCHEMA}
        if modern:
            approval = {"method": "elicitation/create", "params": question}
            return {"resultType": "input_required", "inputRequests": {"approval": approval}}
        try:
            return _approved(self.wire.request("elicitation/create", question))
        except RemoteError as err:
            raise PermissionRequiredError(f"the client could not obtain indexing permission ({err})") from err


def _enveloped(result: dict[str, Any]) -> dict[str, Any]:
    """A result as the 2026-07-28 era carries it: typed, and naming the server."""
    return {"resultType": "complete", **result, "_meta": {META + "serverInfo": SERVER_INFO}}


def _fields(value: object) -> dict[str, Any]:
    """`value` when it is a JSON object, else no fields: what a client omitted or sent malformed."""
    return as_object(value) or {}


def _approved(answer: object) -> None:
    fields = _fields(answer)
    if fields.get("action") != "accept" or not _fields(fields.get("content")).get("confirmed"):
        raise PermissionDeniedError("project indexing was not approved")


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


class ProgressReporter:
    """An indexing progress callback, called on the indexing thread, that sends notifications/progress:
    one per stage and per tenth of its work, numbered 1, 2, 3… (there is no total to promise)."""

    def __init__(self, wire: Wire, token: str | int) -> None:
        self.wire, self.token = wire, token
        self.sent = 0
        self.last: tuple[str, int] = ("", -1)

    def __call__(self, stage: str, done: int, total: int) -> None:
        step = (stage, done * 10 // total if total else 0)
        if step == self.last:
            return
        self.last = step
        self.sent += 1
        message = f"{stage} {done}/{total}" if total else stage
        self.wire.notify("notifications/progress", {"progressToken": self.token, "progress": float(self.sent),
                                                    "message": message})  # fmt: skip


def _index_and_publish(path: str, progress: Callable[[str, int, int], None] | None = None) -> dict[str, Any]:
    from kivgraph.indexing import index_repository
    from kivgraph.store import save_to_notes

    generation = index_repository(path, run_analyzers=True, progress=progress)
    blob = save_to_notes(open_repository(path), generation)
    return {"repository": generation.header.repository, "commit": generation.header.commit,
            "symbols": len(generation.symbols), "edges": len(generation.edges), "bytes": len(blob)}  # fmt: skip


def serve(
    repositories: Sequence[str],
    generation_files: Sequence[tuple[str, str]],
    workspace: str | None = None,
    address: str | None = None,
    token_file: str | None = None,
    allow_index: bool = False,
    origins: tuple[str, ...] = (),
    overlay: bool = True,
) -> None:
    """Serve over stdio until the client leaves, or over HTTP at `address` until interrupted
    (kivgraph/streamable.py). A --repo that is not a git repository (or, for generation files, not
    a directory) fails here, before the transport opens, as `query` does; one that has no
    generation yet is served with index_project alone."""
    for path in repositories:
        open_repository(path)
    for _, root in generation_files:
        if root and not os.path.isdir(root):
            raise KivgraphError(f"{root} is not a directory; with --generation, --repo names the files' working tree.")
    catalog = Catalog(list(repositories), list(generation_files), workspace, overlay=overlay)
    catalog.load()
    catalog.watch()
    if address is not None:
        from kivgraph.streamable import serve_http

        serve_http(catalog, address, token_file, allow_index, origins)
        return
    with claimed_stdio() as (reader, writer):
        Server(catalog, Wire(reader, writer)).run()


@contextlib.contextmanager
def claimed_stdio():
    """The client's stdin and stdout as byte streams, with fd 0 on the null device and fd 1 on stderr
    meanwhile: an analyzer or git child reads EOF instead of the client's next request, and stray
    output misses the wire. Both descriptors are given back on exit."""
    wire_in, wire_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    reader: IO[bytes] = os.fdopen(wire_in, "rb")
    writer: IO[bytes] = os.fdopen(wire_out, "wb")
    try:
        yield reader, writer
    finally:
        os.dup2(reader.fileno(), 0)
        os.dup2(writer.fileno(), 1)
        reader.close()
        with contextlib.suppress(OSError):
            writer.close()
