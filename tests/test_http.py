"""`kivgraph serve --http`: the real server process on a loopback port, spoken to by the MCP SDK's
streamable HTTP client and by plain HTTP requests — sessions, the token, origins, the read-only
tool list, and what it refuses to start with."""

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.conftest import Repo

SHAPES = "def area(w, h):\n    return w * h\n\n\ndef total():\n    return area(1, 2)\n"
TOKEN = "s3cret-token-for-the-team-0123456789"


def start(repo: Repo, *options: str) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen([sys.executable, "-m", "kivgraph", "serve", "--repo", str(repo.path), "--http",
                                "127.0.0.1:0", *options], stderr=subprocess.PIPE, text=True)  # fmt: skip
    assert process.stderr is not None
    line = process.stderr.readline()
    found = re.search(r"http://\S+/mcp", line)
    assert found, line
    return process, found.group()


def stop(process: subprocess.Popen[str]) -> None:
    process.terminate()
    process.wait(timeout=10)
    if process.stderr is not None:
        process.stderr.close()


@pytest.fixture
def indexed(make_repo) -> Repo:
    repo = make_repo({"shapes.py": SHAPES})
    done = subprocess.run([sys.executable, "-m", "kivgraph", "index", str(repo.path), "--no-analyzers"],
                          capture_output=True, text=True, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return repo


@pytest.fixture
def served(indexed: Repo, tmp_path: Path) -> Iterator[tuple[str, Path]]:
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n", encoding="utf-8")
    process, url = start(indexed, "--token-file", str(token_file))
    yield url, token_file
    stop(process)


def sdk_session(url: str, token: str) -> tuple[list[str], dict[str, object], str]:
    async def go() -> tuple[list[str], dict[str, object], str]:
        async with (
            httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}) as http,
            Client(streamable_http_client(url, http_client=http)) as client,
        ):
            tools = [t.name for t in (await client.list_tools()).tools]
            found = await client.call_tool("find_symbol", {"name": "area"})
            refused = await client.call_tool("index_project", {"confirmed": True})
            return tools, json.loads(found.content[0].text), refused.content[0].text  # type: ignore[union-attr]

    return anyio.run(go)


def test_the_sdk_client_gets_the_read_only_tools_over_http(served: tuple[str, Path]):
    url, _ = served
    tools, found, refused = sdk_session(url, TOKEN)
    assert len(tools) == 11 and "index_project" not in tools
    assert found["total"] == 1 and "shapes.py" in json.dumps(found)
    assert refused.startswith("PERMISSION_DENIED") and "--allow-index" in refused


def test_requests_need_the_token_a_session_and_a_plain_origin(served: tuple[str, Path]):
    url, _ = served
    client = {"name": "t", "version": "1"}
    hello = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
             "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": client}}  # fmt: skip
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}
    auth = {"Authorization": f"Bearer {TOKEN}"}
    with httpx2.Client() as http:
        assert http.post(url, json=hello).status_code == 401
        assert http.post(url, json=hello, headers={"Authorization": "Bearer wrong"}).status_code == 401
        assert http.post(url, json=hello, headers={**auth, "Origin": "https://evil.example"}).status_code == 403
        started = http.post(url, json=hello, headers={**auth, "Origin": "http://localhost:3000"})
        assert started.status_code == 200 and started.json()["result"]["serverInfo"]["name"] == "kivgraph"
        session = {**auth, "Mcp-Session-Id": started.headers["Mcp-Session-Id"]}
        assert http.post(url, json=listing, headers=auth).status_code == 400  # no session
        assert http.post(url, json=listing, headers={**auth, "Mcp-Session-Id": "nope"}).status_code == 404
        assert len(http.post(url, json=listing, headers=session).json()["result"]["tools"]) == 11
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        assert http.post(url, json=note, headers=session).status_code == 202
        broken = http.post(url, content=b'{"jsonrpc": "2.0", "id": 7, "method": ', headers=session)
        assert broken.status_code == 200 and broken.json()["error"]["code"] == -32700
        assert http.get(url, headers=session).status_code == 405
        assert http.post(url.replace("/mcp", "/other"), json=listing, headers=session).status_code == 404
        assert http.delete(url, headers=session).status_code == 200
        assert http.post(url, json=listing, headers=session).status_code == 404


def test_it_refuses_to_start_open_to_the_network_without_a_token(indexed: Repo, tmp_path: Path):
    def refused(*options: str) -> str:
        done = subprocess.run([sys.executable, "-m", "kivgraph", "serve", "--repo", str(indexed.path), *options],
                              capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
        assert done.returncode != 0 and "Traceback" not in done.stderr
        return done.stderr

    assert "--token-file" in refused("--http", "0.0.0.0:0")
    assert "HOST:PORT" in refused("--http", "nowhere")
    short = tmp_path / "short"
    short.write_text("abc", encoding="utf-8")
    assert "at least 16" in refused("--http", "127.0.0.1:0", "--token-file", str(short))
    assert "options of --http" in refused("--allow-index")


def test_with_allow_index_the_tool_is_offered(indexed: Repo):
    process, url = start(indexed, "--allow-index")
    try:

        async def go() -> list[str]:
            async with Client(streamable_http_client(url)) as client:
                return [t.name for t in (await client.list_tools()).tools]

        assert "index_project" in anyio.run(go)
    finally:
        stop(process)
