"""JSON-RPC 2.0 over a pair of byte streams, one message per line: the transport of `kivgraph serve`.
It reads and screens the client's lines (every malformed request gets an error carrying its id, so
no client waits forever), writes whole lines under a lock, and sends requests of its own. It knows
JSON-RPC envelopes, never MCP methods or tools."""

import json
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any, cast

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR = -32700, -32600, -32601, -32602, -32603

# A JSON string (escapes included) or a bracket: enough to see the nesting without parsing the values.
_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[][{}]')
# A message's own fields sit at depth 2 (a batch's at 3); what lies deeper is only emptied, so the
# envelope is read however deep the rest nests.
_KEPT_DEPTH = 3
MAX_DEPTH = 64
"""The deepest nesting read: no tool argument needs more, and deeper input could exhaust the parser."""
_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]", re.ASCII)
_NOT_JSON = object()

Message = dict[str, Any]


@dataclass(frozen=True)
class Incoming:
    """A request (with an id) or a notification (without) from the client, already screened."""

    method: str
    params: dict[str, Any]
    id: int | str | None = None


class RemoteError(Exception):
    """The client answered one of our requests with an error, or left before answering."""


class Wire:
    """The client's lines in, our lines out. `incoming()` runs on one thread; `send` and `request`
    may be called from any."""

    def __init__(self, reader: IO[bytes], writer: IO[bytes]) -> None:
        self.reader, self.writer = reader, writer
        self._lock = threading.Lock()
        self._pending: dict[int, tuple[threading.Event, list[Message]]] = {}
        self._next_id = 0
        self.closed = False

    def send(self, message: Message) -> None:
        try:
            data = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode()
        except UnicodeEncodeError:  # a lone surrogate the client sent us, echoed: escaped, still JSON
            data = json.dumps(message, separators=(",", ":")).encode()
        with self._lock:
            try:
                self.writer.write(data + b"\n")
                self.writer.flush()
            except (OSError, ValueError):  # the client left; the reader sees the end of input
                pass

    def notify(self, method: str, params: dict[str, Any]) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def answer(self, request_id: int | str | None, result: dict[str, Any]) -> None:
        self.send({"jsonrpc": "2.0", "id": request_id, "result": result})

    def fail(self, request_id: int | str | None, code: int, message: str, data: object = None) -> None:
        error: dict[str, Any] = {"code": code, "message": message}
        if data is not None:
            error["data"] = data
        self.send({"jsonrpc": "2.0", "id": request_id, "error": error})

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """Ask the client and wait for its result (from a thread other than the reader's)."""
        with self._lock:
            self._next_id += 1
            request_id = self._next_id
            done: tuple[threading.Event, list[Message]] = (threading.Event(), [])
            self._pending[request_id] = done
        self.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        done[0].wait()
        if not done[1]:
            raise RemoteError("the client left before answering")
        reply = done[1][0]
        if "error" in reply:
            error = as_object(reply["error"]) or {}
            raise RemoteError(str(error.get("message", "the client answered with an error")))
        return as_object(reply.get("result")) or {}

    def incoming(self) -> Iterator[Incoming]:
        """The client's requests and notifications until its input ends. Malformed lines are answered
        here; responses to our requests go to their waiters."""
        try:
            for raw in self.reader:
                message = self._screened(raw.decode("utf-8", errors="replace"))
                if message is not None:
                    yield message
        finally:
            self.closed = True
            with self._lock:
                waiting, self._pending = list(self._pending.values()), {}
            for event, _ in waiting:
                event.set()

    def _screened(self, line: str) -> Incoming | None:
        if not line.strip():
            return None
        value = _parsed(line)
        if isinstance(value, str):  # why it could not be read
            envelope = as_object(_envelope(line))
            self.fail(_id_of(envelope) if envelope is not None and "method" in envelope else None, PARSE_ERROR, value)
            return None
        if isinstance(value, list):
            why = "Invalid request: batches are not supported; send each message on a line of its own"
            members = [as_object(m) for m in cast(list[object], value)]
            ids = [i for m in members if m is not None and "method" in m and (i := _id_of(m)) is not None]
            for request_id in ids or [None]:
                self.fail(request_id, INVALID_REQUEST, why)
            return None
        message = as_object(value)
        if message is None:
            self.fail(None, INVALID_REQUEST, "Invalid request: a message is a JSON object")
            return None
        if "method" not in message:
            if "result" in message or "error" in message:
                self._resolve(message)  # the client's answer to a request of ours
            else:
                self.fail(None, INVALID_REQUEST, "Invalid request: a message needs a method")
            return None
        params = message.get("params")
        if "id" not in message:  # a notification: never answered, whatever is wrong with it
            well_formed = message.get("jsonrpc") == "2.0" and isinstance(message["method"], str)
            if well_formed and isinstance(params, dict | None):
                return Incoming(message["method"], cast(dict[str, Any], params or {}))
            return None
        request_id = _id_of(message)
        if message.get("jsonrpc") != "2.0":
            self.fail(request_id, INVALID_REQUEST, 'Invalid request: jsonrpc must be "2.0"')
        elif request_id is None:
            self.fail(None, INVALID_REQUEST, "Invalid request: id must be an integer or a string")
        elif not isinstance(message["method"], str):
            self.fail(request_id, INVALID_REQUEST, "Invalid request: method must be a string")
        elif params is not None and not isinstance(params, dict):
            self.fail(request_id, INVALID_PARAMS, "Invalid params: params must be an object")
        else:
            return Incoming(message["method"], cast(dict[str, Any], params or {}), request_id)
        return None

    def _resolve(self, reply: Message) -> None:
        request_id = reply.get("id")
        with self._lock:
            waiter = self._pending.pop(request_id, None) if isinstance(request_id, int) else None
        if waiter is not None:  # an answer to nothing we asked is dropped, never answered back
            waiter[1].append(reply)
            waiter[0].set()


def _parsed(line: str) -> object:
    """The JSON value of `line`, or a string saying why it cannot be read."""
    if line.count("[") + line.count("{") > MAX_DEPTH and _depth(line) > MAX_DEPTH:
        return f"Parse error: this server reads JSON nested at most {MAX_DEPTH} deep"
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):
        return "Parse error: the line is not JSON"
    if _SURROGATE.search(line):
        try:
            json.dumps(value, ensure_ascii=False).encode()
        except UnicodeEncodeError:
            return "Parse error: this server reads no lone UTF-16 surrogate; send text as valid Unicode"
    return value


def _depth(line: str) -> int:
    deepest = depth = 0
    for token in _TOKENS.finditer(line):
        text = token.group()
        if text in ("[", "{"):
            depth += 1
            deepest = max(deepest, depth)
        elif text in ("]", "}"):
            depth -= 1
    return deepest


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


def as_object(value: object) -> dict[str, Any] | None:
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
