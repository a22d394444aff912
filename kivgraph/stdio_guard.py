"""The stdio transport of `kivgraph serve`, with a gate in front of the MCP SDK's reader: a request the
SDK would drop without a word (not JSON it can parse, a wrong envelope, a batch) is answered with a
JSON-RPC error carrying its id, so no client waits forever. It knows JSON-RPC envelopes, never MCP
methods or tools."""

import contextlib
import json
import os
import re
from contextlib import asynccontextmanager
from io import TextIOWrapper
from typing import IO, Any, Protocol, cast

import anyio
from mcp import types
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

# A JSON string (escapes included) or a bracket: enough to see the nesting without parsing the values.
_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[][{}]')
# A message's own fields sit at depth 2 (a batch's at 3); what lies deeper is only emptied, so the
# envelope is read however deep the rest nests.
_KEPT_DEPTH = 3
_NOT_JSON = object()


class _Answers(Protocol):
    async def send(self, item: SessionMessage, /) -> None: ...


def screen(line: str) -> list[types.JSONRPCError] | None:
    """None when the SDK can read `line` as it is; else the errors owed instead of it, none for a
    blank line, a notification or a response, which are never answered."""
    try:
        message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValidationError as err:
        return _answers(line, err)
    if isinstance(message, types.JSONRPCNotification) and '"id"' in line:
        # The SDK reads {"id": true, "method": …} as a notification (extra keys are ignored) and
        # never answers it: a request whose id it cannot echo.
        envelope = _object(_envelope(line))
        if envelope is not None and "id" in envelope:
            return [_error(None, types.INVALID_REQUEST, "Invalid request: id must be an integer or a string")]
    return None


def _answers(line: str, err: ValidationError) -> list[types.JSONRPCError]:
    if not line.strip():
        return []
    envelope = _envelope(line)
    if envelope is _NOT_JSON:
        return [_error(None, types.PARSE_ERROR, "Parse error: the line is not JSON")]
    if isinstance(envelope, list):
        why = "Invalid request: batches are not supported; send each message on a line of its own"
        elements = [_object(m) for m in cast(list[object], envelope)]
        ids = [i for m in elements if m is not None and "method" in m and (i := _id_of(m)) is not None]
        return [_error(i, types.INVALID_REQUEST, why) for i in ids] or [_error(None, types.INVALID_REQUEST, why)]
    message = _object(envelope)
    if message is None:
        return [_error(None, types.INVALID_REQUEST, "Invalid request: a message is a JSON object")]
    if "method" not in message and ("result" in message or "error" in message):
        return []  # the client's answer to a request of ours: never answered back
    if "id" not in message:
        if "method" in message:
            return []  # a notification: never answered, whatever is wrong with it
        return [_error(None, types.INVALID_REQUEST, "Invalid request: a message needs a method")]
    request_id = _id_of(message)
    code, why = types.INVALID_REQUEST, ""
    if message.get("jsonrpc") != "2.0":
        why = 'Invalid request: jsonrpc must be "2.0"'
    elif request_id is None:
        why = "Invalid request: id must be an integer or a string"
    elif not isinstance(message.get("method"), str):
        why = "Invalid request: method must be a string"
    elif not isinstance(message.get("params", {}), dict | None):
        code, why = types.INVALID_PARAMS, "Invalid params: params must be an object"
    else:
        detail = err.errors()[0]
        if detail["type"] == "json_invalid":
            # Valid JSON for Python, not for the SDK's parser: nested too deep, or a lone surrogate.
            reason = str(detail.get("ctx", {}).get("error", detail["msg"]))
            code = types.PARSE_ERROR
            why = f"Parse error: this server reads no lone UTF-16 surrogate and only limited nesting ({reason})"
        else:
            why = f"Invalid request: {detail['msg']}"
    return [_error(request_id, code, why)]


def _envelope(line: str) -> object:
    """The JSON value of `line` with every container deeper than `_KEPT_DEPTH` emptied (so no depth
    can exhaust the parser), or `_NOT_JSON`."""
    kept: list[str] = []
    depth = start = 0
    for token in _TOKENS.finditer(line):
        text = token.group()
        if text in ("[", "{"):
            depth += 1
            if depth == _KEPT_DEPTH + 1:
                kept.append(line[start : token.end()])
        elif text in ("]", "}"):
            if depth == _KEPT_DEPTH + 1:
                start = token.start()
            depth -= 1
    kept.append(line[start:])
    try:
        return json.loads("".join(kept))
    except (ValueError, RecursionError):
        return _NOT_JSON


def _object(value: object) -> dict[str, Any] | None:
    return cast(dict[str, Any], value) if isinstance(value, dict) else None


def _id_of(message: dict[str, Any]) -> int | str | None:
    """The request's id when it can be echoed: an integer, or a string that is valid Unicode."""
    value = message.get("id")
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return None
        return value
    return None


def _error(request_id: int | str | None, code: int, message: str) -> types.JSONRPCError:
    return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message))


class _GatedLines(anyio.AsyncFile[str]):
    """The client's lines as the SDK's reader takes them, minus the ones the gate answered itself."""

    def __init__(self, wire: IO[str]) -> None:
        super().__init__(wire)
        self.answers: _Answers | None = None
        self.attached = anyio.Event()

    async def readline(self) -> str:
        while True:
            line = await super().readline()
            owed = screen(line) if line else None
            if owed is None:
                return line
            await self.attached.wait()
            assert self.answers is not None  # set with the event
            for error in owed:
                with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
                    await self.answers.send(SessionMessage(error))


@asynccontextmanager
async def gated_stdio():
    """`stdio_server` with the gate on stdin. fd 0 is taken over as the SDK does for a stdin it opens
    itself (children read EOF from the null device), and given back on exit."""
    wire = os.dup(0)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    # closefd=False: a worker thread can still be blocked reading the wire after the transport exits.
    lines = _GatedLines(TextIOWrapper(os.fdopen(wire, "rb", closefd=False), encoding="utf-8", errors="replace"))
    try:
        async with stdio_server(stdin=lines) as (read, write):
            lines.answers = write
            lines.attached.set()
            yield read, write
    finally:
        os.dup2(wire, 0)
