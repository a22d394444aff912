"""`kivgraph serve --http HOST:PORT`: the MCP streamable HTTP transport, for one server a team or a
CI cache shares. Each POST to /mcp carries one JSON-RPC message, screened as stdio screens a line,
and is answered with one JSON body by the same Server that serves stdio (so every session sees the
same snapshot and cursor rules). A bearer token guards every request when the server is not on
loopback (or whenever a token file is given); an Origin that is not the server's own is refused,
against DNS rebinding; index_project is offered only with --allow-index. There is no stream from
the server (GET is 405): no tool needs to speak first."""

import hmac
import ipaddress
import json
import secrets
import sys
import threading
from collections import OrderedDict
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from io import BytesIO
from typing import Any
from urllib.parse import urlsplit

from kivgraph.errors import InvalidArgumentError
from kivgraph.graph.catalog import Catalog
from kivgraph.server import HANDSHAKE_VERSIONS, MODERN_VERSIONS, Server
from kivgraph.stdio import Incoming, Message, RemoteError, Wire

ENDPOINT = "/mcp"
MAX_BODY = 4 << 20
"""The largest request body read: tool arguments are small."""
MAX_SESSIONS = 10_000
"""Sessions remembered; past this the oldest is forgotten (its client then starts again)."""
SESSION_HEADER = "Mcp-Session-Id"
VERSION_HEADER = "MCP-Protocol-Version"
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})


class Exchange(Wire):
    """The wire of one POST: what the Server sends is kept for the HTTP response, and the server
    cannot ask the client anything (there is no stream back)."""

    def __init__(self) -> None:
        super().__init__(BytesIO(), BytesIO())
        self.sent: list[Message] = []

    def send(self, message: Message) -> None:
        with self._lock:
            self.sent.append(message)

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise RemoteError("this transport has no stream on which to ask the client")

    def screened(self, body: str) -> Incoming | None:
        """The message of a request body, or None when it was answered here (malformed) or needs none."""
        return self._screened(body)

    def response(self) -> Message | None:
        return next((m for m in self.sent if "id" in m and ("result" in m or "error" in m)), None)


class HttpService:
    """The state every connection shares: the catalog, the sessions, the rules."""

    def __init__(self, catalog: Catalog, token: str | None, allow_index: bool, origins: frozenset[str],
                 loopback: bool) -> None:  # fmt: skip
        self.catalog, self.token, self.allow_index = catalog, token, allow_index
        self.origins, self.loopback = origins, loopback
        self.sessions: OrderedDict[str, None] = OrderedDict()
        self.lock = threading.Lock()
        """Queries run one at a time (the interpreter runs one anyway); sessions are guarded with it."""

    def new_session(self) -> str:
        session = secrets.token_urlsafe(24)
        with self.lock:
            self.sessions[session] = None
            while len(self.sessions) > MAX_SESSIONS:
                self.sessions.popitem(last=False)
        return session

    def known(self, session: str) -> bool:
        with self.lock:
            return session in self.sessions

    def end(self, session: str) -> bool:
        with self.lock:
            return self.sessions.pop(session, 0) is None

    def handle(self, incoming: Incoming, exchange: Exchange) -> None:
        server = Server(self.catalog, exchange, offer_index=self.allow_index)
        if incoming.method == "tools/call" and incoming.params.get("name") == "index_project":
            server.answer(incoming)  # runs on a thread of its own, which may take minutes: no lock held
        else:
            with self.lock:
                server.answer(incoming)
        for worker in server.workers:
            worker.join()


def handler_for(service: HttpService) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "kivgraph"
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 — the base class's name
            return  # requests are not logged: stderr is for what goes wrong

        def do_GET(self) -> None:
            if self._admitted():
                self._reply(HTTPStatus.METHOD_NOT_ALLOWED, {"error": "this server sends nothing unasked; POST to "
                            f"{ENDPOINT}"}, {"Allow": "POST, DELETE"})  # fmt: skip

        def do_DELETE(self) -> None:
            if not self._admitted():
                return
            session = self.headers.get(SESSION_HEADER)
            if session is None:
                self._reply(HTTPStatus.BAD_REQUEST, {"error": f"DELETE ends a session: send its {SESSION_HEADER}"})
            elif service.end(session):
                self._reply(HTTPStatus.OK, None)
            else:
                self._reply(HTTPStatus.NOT_FOUND, {"error": "no such session (it ended, or the server restarted)"})

        def do_POST(self) -> None:
            if not self._admitted():
                return
            if self.body is None:
                self._reply(HTTPStatus.LENGTH_REQUIRED, {"error": "a POST needs a Content-Length"})
                return
            body = self.body.decode("utf-8", errors="replace")
            exchange = Exchange()
            incoming = exchange.screened(body)
            headers: dict[str, str] = {}
            if incoming is not None and incoming.id is not None:
                modern = "_meta" in incoming.params and isinstance(incoming.params["_meta"], dict)
                if incoming.method == "initialize":
                    headers[SESSION_HEADER] = service.new_session()
                elif not modern and incoming.method != "server/discover" and not self._in_session():
                    return
                version = self.headers.get(VERSION_HEADER)
                if version is not None and version not in (*HANDSHAKE_VERSIONS, *MODERN_VERSIONS):
                    self._reply(HTTPStatus.BAD_REQUEST, {"error": f"unsupported {VERSION_HEADER}: {version}"})
                    return
                service.handle(incoming, exchange)
            answer = exchange.response()
            if answer is None:
                self._reply(HTTPStatus.ACCEPTED, None)
            else:
                self._reply(HTTPStatus.OK, answer, headers)

        def _in_session(self) -> bool:
            session = self.headers.get(SESSION_HEADER)
            if session is None:
                self._reply(HTTPStatus.BAD_REQUEST, {"error": f"send the {SESSION_HEADER} that initialize gave"})
                return False
            if not service.known(session):
                self._reply(HTTPStatus.NOT_FOUND, {"error": "no such session (it ended, or the server restarted): "
                                                            "initialize again"})  # fmt: skip
                return False
            return True

        def _admitted(self) -> bool:
            """The body is read (so a refusal leaves the connection clean for the next request), and
            the path, the token and the origin are right; else the refusal is sent."""
            self.body: bytes | None = None
            length = self.headers.get("Content-Length")
            if length is not None and length.strip().isdigit():
                if int(length) > MAX_BODY:
                    self.close_connection = True
                    self._reply(
                        HTTPStatus.REQUEST_ENTITY_TOO_LARGE, {"error": f"a message is at most {MAX_BODY} bytes"}
                    )
                    return False
                self.body = self.rfile.read(int(length))
            elif length is not None or self.headers.get("Transfer-Encoding"):
                self.close_connection = True  # a body we cannot delimit: nothing after it can be read
            if urlsplit(self.path).path != ENDPOINT:
                self._reply(HTTPStatus.NOT_FOUND, {"error": f"the MCP endpoint is {ENDPOINT}"})
                return False
            if service.token is not None:
                given = self.headers.get("Authorization", "")
                scheme, _, credential = given.partition(" ")
                if scheme.lower() != "bearer" or not hmac.compare_digest(credential.strip().encode(),
                                                                         service.token.encode()):  # fmt: skip
                    self._reply(HTTPStatus.UNAUTHORIZED, {"error": "a bearer token is required"},
                                {"WWW-Authenticate": 'Bearer realm="kivgraph"'})  # fmt: skip
                    return False
            origin = self.headers.get("Origin")
            if origin is not None and not self._allowed_origin(origin):
                self._reply(HTTPStatus.FORBIDDEN, {"error": f"requests from {origin} are not accepted"})
                return False
            return True

        def _allowed_origin(self, origin: str) -> bool:
            if origin in service.origins:
                return True
            host = urlsplit(origin).hostname or ""
            return service.loopback and host in LOOPBACK_NAMES

        def _reply(self, status: HTTPStatus, body: object, headers: dict[str, str] | None = None) -> None:
            data = b"" if body is None else json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()
            self.send_response(status)
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            if body is not None:
                self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


def is_loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def parse_address(value: str) -> tuple[str, int]:
    """`HOST:PORT` (`[::1]:8080` for IPv6) → (host, port)."""
    host, _, port = value.rpartition(":")
    host = host.strip("[]")
    if not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise InvalidArgumentError(f"--http takes HOST:PORT (for example 127.0.0.1:8765), not {value!r}")
    return host, int(port)


def read_token(path: str | None) -> str | None:
    if path is None:
        return None
    try:
        with open(path, encoding="utf-8") as handle:
            token = handle.read().strip()
    except OSError as err:
        raise InvalidArgumentError(f"cannot read the token file {path}: {err.strerror}") from err
    if len(token) < 16 or any(c.isspace() for c in token):
        raise InvalidArgumentError(f"the token in {path} must be one word of at least 16 characters")
    return token


def serve_http(catalog: Catalog, address: str, token_file: str | None, allow_index: bool,
               origins: tuple[str, ...] = ()) -> None:  # fmt: skip
    """Serve over HTTP until interrupted."""
    host, port = parse_address(address)
    loopback = is_loopback(host)
    token = read_token(token_file)
    if token is None and not loopback:
        raise InvalidArgumentError(f"{host} is reachable from other machines: give a bearer token with --token-file "
                                   "(or serve on 127.0.0.1)")  # fmt: skip
    service = HttpService(catalog, token, allow_index, frozenset(origins), loopback)
    try:
        httpd = ThreadingHTTPServer((host, port), handler_for(service))
    except OSError as err:
        raise InvalidArgumentError(f"cannot listen on {address}: {err.strerror}") from err
    httpd.daemon_threads = True
    bound_host, bound_port = httpd.server_address[:2]
    shown = f"[{bound_host}]" if ":" in str(bound_host) else bound_host
    print(f"kivgraph: serving MCP at http://{shown}:{bound_port}{ENDPOINT}"
          f"{' (bearer token required)' if token else ''}", file=sys.stderr, flush=True)  # fmt: skip
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        httpd.server_close()
