"""`kivgraph serve` over real stdio, fed malformed requests (among them those the MCP SDK alone drops
without a word): each gets a JSON-RPC error with its id within seconds, and the server goes on serving.
A repository with no generation yet is served (index_project alone), which is all these tests need."""

import io
import json
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kivgraph.stdio import Wire as LineWire
from tests.conftest import Repo

ANSWER_SECONDS = 5.0
"""How long an answer may take on a busy two-core machine; the bug was waiting forever."""


class Wire:
    """The server's stdin and stdout as raw lines, read with a timeout."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process
        self.lines: queue.Queue[bytes] = queue.Queue()
        self.next_id = 1000
        self.pump = threading.Thread(target=self._pump, daemon=True)
        self.pump.start()

    def _pump(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)

    def send(self, line: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + b"\n")
        self.process.stdin.flush()

    def receive(self, timeout: float = ANSWER_SECONDS) -> dict[str, object]:
        try:
            return json.loads(self.lines.get(timeout=timeout))
        except queue.Empty:
            raise AssertionError(f"no answer within {timeout} s") from None

    def still_serves(self) -> None:
        self.next_id += 1
        self.send(json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": "tools/list"}).encode())
        answer = self.receive()
        assert answer["id"] == self.next_id
        assert [t["name"] for t in answer["result"]["tools"]] == ["index_project"]  # type: ignore[index]


@pytest.fixture(scope="module")
def wire(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Wire]:
    repo = Repo(tmp_path_factory.mktemp("wire") / "wire")
    repo.commit({"README.md": "not indexed yet\n"})
    process = subprocess.Popen([sys.executable, "-m", "kivgraph", "serve", "--repo", str(repo.path)],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)  # fmt: skip
    served = Wire(process)
    hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}
    served.send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello}).encode())
    assert served.receive(timeout=60)["id"] == 1
    served.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
    yield served
    assert process.stdin is not None and process.stdout is not None
    process.stdin.close()
    assert process.wait(timeout=30) == 0
    served.pump.join(timeout=30)
    process.stdout.close()


DEEP = b'{"jsonrpc":"2.0","id":16,"method":"tools/call","params":{"name":"x","arguments":{"a":' + b"[" * 1000
DEEP += b"]" * 1000 + b"}}}"
CASES = {
    "wrong jsonrpc": (b'{"jsonrpc":"1.0","id":11,"method":"tools/list"}', [(11, -32600)]),
    "params an array": (b'{"jsonrpc":"2.0","id":"twelve","method":"tools/list","params":[]}', [("twelve", -32602)]),
    "a batch": (
        b'[{"jsonrpc":"2.0","id":13,"method":"tools/list"},{"jsonrpc":"2.0","method":"notifications/x"},'
        b'{"jsonrpc":"2.0","id":14,"method":"tools/list"}]',
        [(13, -32600), (14, -32600)],
    ),
    "a lone surrogate": (
        b'{"jsonrpc":"2.0","id":15,"method":"tools/call","params":{"name":"\\ud800","arguments":{}}}',
        [(15, -32700)],
    ),
    "nesting a thousand deep": (DEEP, [(16, -32700)]),
    "not JSON": (b'{"jsonrpc":"2.0","id":17,', [(None, -32700)]),
    "an id that cannot be echoed": (b'{"jsonrpc":"2.0","id":true,"method":"tools/list"}', [(None, -32600)]),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_request_the_sdk_would_drop_gets_an_error_with_its_id_and_the_server_goes_on(wire: Wire, case: str):
    line, expected = CASES[case]
    wire.send(line)
    answers = [wire.receive() for _ in expected]
    assert [(a["id"], a["error"]["code"]) for a in answers] == expected  # type: ignore[index]
    assert all(a["jsonrpc"] == "2.0" and a["error"]["message"] for a in answers)  # type: ignore[index]
    wire.still_serves()


def test_notifications_responses_and_blank_lines_are_never_answered(wire: Wire):
    notification, response = b'{"jsonrpc":"1.0","method":"notifications/x"}', b'{"jsonrpc":"2.0","id":99,"result":[]}'
    for line in (b"", b"   ", notification, response):
        wire.send(line)
    wire.still_serves()  # the next line out is the answer to this call, not to any of those


def screen(line: str) -> list[dict[str, Any]] | None:
    """None when the transport passes `line` on as a message; else the errors it answered instead."""
    written = io.BytesIO()
    wire = LineWire(io.BytesIO(), written)
    passed = wire._screened(line)  # noqa: SLF001 — the screening alone, without a reader thread
    answers = [json.loads(x) for x in written.getvalue().splitlines()]
    return None if passed is not None else answers


def test_the_answers_say_what_was_wrong():
    def message(line: str) -> tuple[object, int, str]:
        [error] = screen(line) or []
        return error["id"], error["error"]["code"], error["error"]["message"]

    assert message('{"jsonrpc":"1.0","id":1,"method":"m"}') == (1, -32600, 'Invalid request: jsonrpc must be "2.0"')
    assert message('{"jsonrpc":"2.0","id":2,"method":"m","params":[1]}') == (
        2, -32602, "Invalid params: params must be an object"
    )  # fmt: skip
    assert message('{"jsonrpc":"2.0","id":3,"method":7}') == (3, -32600, "Invalid request: method must be a string")
    assert message('{"jsonrpc":"2.0","id":1.5,"method":"m"}') == (
        None, -32600, "Invalid request: id must be an integer or a string"
    )  # fmt: skip
    assert message('{"jsonrpc":"2.0","id":"\\udc00","method":"m"}')[:2] == (None, -32700)
    assert message("[]") == (None, -32600, "Invalid request: batches are not supported; send each message on a line "
                                           "of its own")  # fmt: skip
    assert message("42") == (None, -32600, "Invalid request: a message is a JSON object")
    assert message('{"jsonrpc":"2.0"}') == (None, -32600, "Invalid request: a message needs a method")
    assert message("nope") == (None, -32700, "Parse error: the line is not JSON")
    surrogate = message('{"jsonrpc":"2.0","id":4,"method":"m","params":{"q":"\\ud83d"}}')
    assert surrogate[:2] == (4, -32700) and "lone UTF-16 surrogate" in surrogate[2]


def test_well_formed_lines_pass_the_gate_untouched():
    assert screen('{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n') is None
    assert screen('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x","arguments":{"a":[]}}}') is None
    assert screen('{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"id"}}') is None
    assert screen('{"jsonrpc":"2.0","id":4,"method":"m","params":{"s":"\\ud83d\\ude00"}}') is None  # a pair is text
    assert screen('{"jsonrpc":"2.0","id":3,"result":{}}') == []  # an answer to nothing we asked: dropped


def test_a_server_serving_over_stdio_leaves_no_standard_input_or_output_to_its_children(tmp_path: Path):
    """The server claims stdin and stdout for the wire: an analyzer or git child reading stdin gets EOF
    instead of the client's next request, and what one prints lands on stderr, not in the protocol."""
    script = (
        "import os, sys\n"
        "from kivgraph.server import claimed_stdio\n"
        "with claimed_stdio() as (reader, writer):\n"
        "    sys.stderr.write(repr(os.read(0, 100)))\n"
        "    os.write(1, b'stray')\n"
        "    writer.write(reader.readline())\n"
    )
    done = subprocess.run([sys.executable, "-c", script], input=b"client bytes\n", capture_output=True, timeout=60,
                          check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stderr.decode() == "b''stray"
    assert done.stdout == b"client bytes\n"


def test_the_protocol_answers_ping_unknown_methods_and_unsupported_versions_and_goes_on(wire: Wire):
    wire.send(b'{"jsonrpc":"2.0","id":31,"method":"ping"}')
    assert wire.receive() == {"jsonrpc": "2.0", "id": 31, "result": {}}
    wire.send(b'{"jsonrpc":"2.0","id":32,"method":"resources/list"}')
    assert wire.receive()["error"]["code"] == -32601  # type: ignore[index]
    meta = {"io.modelcontextprotocol/protocolVersion": "1999-01-01"}
    wire.send(json.dumps({"jsonrpc": "2.0", "id": 33, "method": "tools/list", "params": {"_meta": meta}}).encode())
    error = wire.receive()["error"]
    assert error["code"] == -32022 and "2026-07-28" in error["data"]["supported"]  # type: ignore[index]
    wire.send(b'{"jsonrpc":"2.0","id":34,"method":"tools/call","params":{"arguments":{}}}')
    assert wire.receive()["error"]["code"] == -32602  # type: ignore[index]
    wire.still_serves()


def test_a_bug_while_answering_is_an_internal_error_for_that_request_alone(tmp_path: Path, monkeypatch):
    from kivgraph.graph.catalog import Catalog
    from kivgraph.server import Server

    repo = Repo(tmp_path / "buggy")
    repo.commit({"README.md": "not indexed\n"})
    catalog = Catalog([str(repo.path)])
    catalog.load()

    def broken() -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(catalog, "refresh", broken)
    requests = b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n'
    written = io.BytesIO()
    Server(catalog, LineWire(io.BytesIO(requests), written)).run()
    first, second = (json.loads(line) for line in written.getvalue().splitlines())
    assert first["id"] == 1 and first["error"]["code"] == -32603 and "boom" in first["error"]["message"]
    assert second == {"jsonrpc": "2.0", "id": 2, "result": {}}
