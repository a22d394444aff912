"""A fake of the GitHub REST API on 127.0.0.1 that records every request: issue comments (listed a
page at a time with `Link` headers, created, edited) and pull requests, bearer-token checked, with
a switch that answers writes the way GitHub answers a read-only token. It knows whose the token
is as GitHub does: GET /user answers a user's token and refuses the GITHUB_TOKEN of Actions (and
any app installation token), whose comments are written as a bot; it refuses to edit someone
else's comment unless told the token may; and it can answer any path with a redirect."""

import json
import re
import threading
import urllib.parse
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

READ_ONLY = {
    "message": "Resource not accessible by integration",
    "documentation_url": "https://docs.github.com/rest/issues/comments#create-an-issue-comment",
    "status": "403",
}


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    """Lower-cased names."""
    body: Any


@dataclass
class FakeGitHub:
    token: str
    repository: str = "owner/repo"
    read_only: bool = False
    """Answer POST and PATCH with 403 "Resource not accessible by integration"."""
    user: dict[str, Any] | None = None
    """GET /user's answer for a user's token (login, type); None: an installation token, refused."""
    bot: str = "github-actions[bot]"
    """Who an installation token writes as (`<app-slug>[bot]`; the GITHUB_TOKEN's app is github-actions)."""
    edit_others: bool = False
    """Let the token edit comments written by other accounts (a maintainer's token may)."""
    redirects: dict[str, str] = field(default_factory=dict)
    """Path prefix → URL prefix: a request under the path is answered 307 to the URL (path rest and query kept)."""
    comments: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    pulls: dict[int, dict[str, Any]] = field(default_factory=dict)
    requests: list[Request] = field(default_factory=list)
    next_id: int = 9001
    url: str = ""
    _server: ThreadingHTTPServer | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def start(self) -> "FakeGitHub":
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                fake.handle(self, "GET")

            def do_POST(self) -> None:
                fake.handle(self, "POST")

            def do_PATCH(self) -> None:
                fake.handle(self, "PATCH")

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    # -- state -------------------------------------------------------------------------------------

    def add_comment(self, number: int, body: str, login: str = "someone") -> dict[str, Any]:
        with self._lock:
            self.next_id += 1
            comment = {
                "id": self.next_id,
                "node_id": f"IC_{self.next_id}",
                "body": body,
                "user": {"login": login, "type": "Bot" if login.endswith("[bot]") else "User"},
                "html_url": f"https://github.com/{self.repository}/pull/{number}#issuecomment-{self.next_id}",
                "issue_url": f"{self.url}/repos/{self.repository}/issues/{number}",
                "created_at": "2026-01-01T00:00:00Z",
                "updated_at": "2026-01-01T00:00:00Z",
            }
            self.comments.setdefault(number, []).append(comment)
            return comment

    @property
    def writer(self) -> str:
        """The login the token's comments are written under."""
        return str(self.user["login"]) if self.user else self.bot

    def made(self, method: str) -> list[Request]:
        """The recorded requests of one method that changed something."""
        return [r for r in self.requests if r.method == method]

    # -- serving -----------------------------------------------------------------------------------

    def handle(self, handler: BaseHTTPRequestHandler, method: str) -> None:
        parts = urllib.parse.urlsplit(handler.path)
        query = dict(urllib.parse.parse_qsl(parts.query))
        length = int(handler.headers.get("Content-Length") or 0)
        raw = handler.rfile.read(length) if length else b""
        body = json.loads(raw) if raw else None
        headers = {name.lower(): value for name, value in handler.headers.items()}
        with self._lock:
            self.requests.append(Request(method, parts.path, query, headers, body))
        status, payload, extra = self.route(method, parts.path, query, headers, body)
        data = json.dumps(payload).encode("utf-8")
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json; charset=utf-8")
        handler.send_header("Content-Length", str(len(data)))
        for name, value in extra.items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(data)

    def route(
        self, method: str, path: str, query: dict[str, str], headers: dict[str, str], body: Any
    ) -> tuple[int, Any, dict[str, str]]:
        for prefix, target in self.redirects.items():
            if path.startswith(prefix):
                rest = path[len(prefix) :] + ("?" + urllib.parse.urlencode(query) if query else "")
                return 307, {"message": "Temporary Redirect"}, {"Location": target + rest}
        if headers.get("authorization") != f"Bearer {self.token}":
            return 401, {"message": "Bad credentials", "status": "401"}, {}
        if path == "/user" and method == "GET":
            return (200, self.user, {}) if self.user else (403, READ_ONLY, {})
        prefix = f"/repos/{self.repository}"
        if not path.startswith(prefix + "/"):
            return 404, {"message": "Not Found", "status": "404"}, {}
        rest = path[len(prefix) :]
        if found := re.fullmatch(r"/issues/(\d+)/comments", rest):
            number = int(found.group(1))
            if method == "GET":
                return self.listing(path, number, query)
            if method == "POST":
                if self.read_only:
                    return 403, READ_ONLY, {}
                comment = self.add_comment(number, body["body"], self.writer)
                return 201, comment, {}
        if (found := re.fullmatch(r"/issues/comments/(\d+)", rest)) and method == "PATCH":
            if self.read_only:
                return 403, READ_ONLY, {}
            for comments in self.comments.values():
                for comment in comments:
                    if comment["id"] == int(found.group(1)):
                        mine = comment["user"]["login"].casefold() == self.writer.casefold()  # as GitHub: any case
                        if not mine and not self.edit_others:
                            return 403, READ_ONLY, {}
                        comment["body"] = body["body"]
                        comment["updated_at"] = "2026-01-02T00:00:00Z"
                        return 200, comment, {}
            return 404, {"message": "Not Found", "status": "404"}, {}
        if (found := re.fullmatch(r"/pulls/(\d+)", rest)) and method == "GET":
            pull = self.pulls.get(int(found.group(1)))
            return (200, pull, {}) if pull else (404, {"message": "Not Found", "status": "404"}, {})
        return 404, {"message": "Not Found", "status": "404"}, {}

    def listing(self, path: str, number: int, query: dict[str, str]) -> tuple[int, Any, dict[str, str]]:
        """GitHub's pagination: per_page (default 30, at most 100), page from 1, Link next/last."""
        per_page = min(int(query.get("per_page", 30)), 100)
        page = int(query.get("page", 1))
        comments = self.comments.get(number, [])
        last = max(1, -(-len(comments) // per_page))
        links = []
        if page < last:
            links.append(f'<{self.url}{path}?per_page={per_page}&page={page + 1}>; rel="next"')
            links.append(f'<{self.url}{path}?per_page={per_page}&page={last}>; rel="last"')
        if page > 1:
            links.append(f'<{self.url}{path}?per_page={per_page}&page=1>; rel="first"')
            links.append(f'<{self.url}{path}?per_page={per_page}&page={page - 1}>; rel="prev"')
        extra = {"Link": ", ".join(links)} if links else {}
        return 200, comments[(page - 1) * per_page : page * per_page], extra
