"""The few GitHub REST calls the Action makes (issue comments, one pull request), over urllib.

Owns requests, pagination (the `Link` header), redirects and the translation of HTTP and network
failures into ApiError. Knows nothing of the runner's environment. Never puts the token in a
message, and never sends it outside the API root: not to a pagination link, not to a redirect.
"""

import json
import re
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from http.client import HTTPMessage
from typing import IO, Any, cast

from kivgraph import __version__
from kivgraph.errors import KivgraphError

API_VERSION = "2022-11-28"
PER_PAGE = 100
"""The most comments GitHub returns per page."""
MAX_PAGES = 1000
TIMEOUT = 30.0
"""Seconds one request may take."""
_NEXT = re.compile(r'<([^>]+)>\s*;\s*rel="?next"?')


class ApiError(KivgraphError):
    """A GitHub API request that failed: `status` is the HTTP status, 0 when GitHub was not reached."""

    code = "GITHUB_API_ERROR"

    def __init__(self, method: str, url: str, status: int, detail: str, rate_limited: bool = False) -> None:
        self.method = method
        self.url = url
        self.status = status
        self.detail = detail
        self.rate_limited = rate_limited
        parts = urllib.parse.urlsplit(url)
        where = parts.path or url
        if status == 0:
            message = (
                f"cannot reach the GitHub API at {parts.scheme}://{parts.netloc} for {method} {where}: {detail}; "
                "check GITHUB_API_URL and the runner's network."
            )
        else:
            message = f"the GitHub API answered {status} to {method} {where}: {detail}."
        super().__init__(message)

    @property
    def forbidden(self) -> bool:
        """The token may not do this (GitHub answers 404 as well as 403 to hide what a token cannot see)."""
        return self.status in (403, 404) and not self.rate_limited


def next_link(header: str | None) -> str | None:
    """The `rel="next"` URL of a `Link` header, or None on the last page."""
    found = _NEXT.search(header or "")
    return found.group(1) if found else None


@dataclass(frozen=True, slots=True)
class Response:
    status: int
    link: str | None
    data: Any


class _Redirects(urllib.request.HTTPRedirectHandler):
    """Follows a redirect only within the API root, with the token; one anywhere else is an
    ApiError (urllib itself would carry `Authorization` to any host). A 307 or 308 keeps its method
    and body (RFC 9110), as GitHub's answer to a write on a renamed repository expects."""

    def __init__(self, root: str) -> None:
        super().__init__()
        self.root = root

    def redirect_request(
        self, req: urllib.request.Request, fp: IO[bytes], code: int, msg: str, headers: HTTPMessage, newurl: str
    ) -> urllib.request.Request | None:
        if not within(newurl, self.root):
            fp.close()
            where = urllib.parse.urlsplit(newurl)
            raise ApiError(req.get_method(), req.full_url, code,
                           f"it redirects to {where.scheme}://{where.netloc}, outside {self.root}, where the token "
                           "is not sent")  # fmt: skip
        if code in (307, 308):
            return urllib.request.Request(newurl, data=req.data, headers=dict(req.headers), method=req.get_method())
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def within(url: str, root: str) -> bool:
    """Whether url is under the API root: the same scheme, host and port, and the root's path."""
    return url.startswith(root + "/")


class GitHub:
    """A token and an API root (`$GITHUB_API_URL`); every URL it follows stays under that root."""

    def __init__(self, api_url: str, token: str, timeout: float = TIMEOUT) -> None:
        self.api_url = api_url.rstrip("/")
        self._token = token
        self.timeout = timeout
        self._opener = urllib.request.build_opener(_Redirects(self.api_url))

    def request(self, method: str, path: str, body: dict[str, Any] | None = None) -> Response:
        url = path if path.startswith(("http://", "https://")) else self.api_url + path
        if not within(url, self.api_url):
            # A pagination link elsewhere would take the token with it.
            raise ApiError(method, url, 0, f"refusing to send the token outside {self.api_url}")
        data = json.dumps(body).encode("utf-8") if body is not None else None
        request = urllib.request.Request(url, data=data, method=method, headers={
            "Accept": "application/vnd.github+json",
            "Authorization": f"Bearer {self._token}",
            "X-GitHub-Api-Version": API_VERSION,
            "User-Agent": f"kivgraph-action/{__version__}",
            **({"Content-Type": "application/json"} if data is not None else {}),
        })  # fmt: skip
        try:
            with self._opener.open(request, timeout=self.timeout) as answer:
                raw = answer.read()
                return Response(answer.status, answer.headers.get("Link"), json.loads(raw) if raw.strip() else None)
        except urllib.error.HTTPError as err:
            raise _http_error(method, url, err) from None
        except urllib.error.URLError as err:
            raise ApiError(method, url, 0, str(err.reason)) from None
        except (TimeoutError, ConnectionError) as err:
            raise ApiError(method, url, 0, str(err) or type(err).__name__) from None
        except ValueError as err:
            raise ApiError(method, url, 0, f"the answer is not JSON ({err})") from None

    def paginate(self, path: str) -> Iterator[Any]:
        """Every item of a listed resource, page after page, following `Link: <…>; rel="next"`."""
        separator = "&" if "?" in path else "?"
        url: str | None = f"{path}{separator}per_page={PER_PAGE}"
        seen: set[str] = set()
        while url is not None and url not in seen and len(seen) < MAX_PAGES:
            seen.add(url)
            page = self.request("GET", url)
            items: Any = page.data
            if not isinstance(items, list):
                raise ApiError("GET", url, page.status, "expected a list")
            yield from cast(list[Any], items)
            url = next_link(page.link)

    # -- the calls the Action makes ----------------------------------------------------------------

    def issue_comments(self, repository: str, number: int) -> Iterator[dict[str, Any]]:
        for item in self.paginate(f"/repos/{repository}/issues/{number}/comments"):
            if isinstance(item, dict):
                yield cast(dict[str, Any], item)

    def create_comment(self, repository: str, number: int, body: str) -> dict[str, Any]:
        return _object(self.request("POST", f"/repos/{repository}/issues/{number}/comments", {"body": body}))

    def update_comment(self, repository: str, comment_id: int, body: str) -> dict[str, Any]:
        return _object(self.request("PATCH", f"/repos/{repository}/issues/comments/{comment_id}", {"body": body}))

    def pull_request(self, repository: str, number: int) -> dict[str, Any]:
        return _object(self.request("GET", f"/repos/{repository}/pulls/{number}"))

    def user(self) -> dict[str, Any]:
        """The token's own account; 403 for the GITHUB_TOKEN of Actions and other app installation tokens."""
        return _object(self.request("GET", "/user"))


def _object(response: Response) -> dict[str, Any]:
    data: Any = response.data
    return cast(dict[str, Any], data) if isinstance(data, dict) else {}


def _http_error(method: str, url: str, err: urllib.error.HTTPError) -> ApiError:
    """GitHub's own `message` when the body has one, and whether a rate limit caused it."""
    try:
        raw = err.read()
    except OSError:
        raw = b""
    detail = ""
    try:
        parsed = json.loads(raw) if raw else None
        if isinstance(parsed, dict):
            message = cast(dict[str, Any], parsed).get("message")
            detail = message if isinstance(message, str) else ""
    except ValueError:
        pass
    detail = detail or str(err.reason) or "no message"
    limited = err.code in (403, 429) and (
        err.headers.get("x-ratelimit-remaining") == "0" or "rate limit" in detail.lower()
    )
    return ApiError(method, url, err.code, detail, limited)
