"""Serving untrusted generations: a damaged one (behind a valid digest) is listed as unavailable while
the others are served, one that loads answers every query or refuses it with a KivgraphError, and
what a newer minor version added (an edge kind, a language) is kept and answered honestly."""

import json
import struct
from pathlib import Path
from typing import Any

import cbor2
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from kivgraph.errors import KivgraphError
from kivgraph.graph.catalog import Catalog, run_tool
from kivgraph.graph.index import UNKNOWN_LANGUAGE
from kivgraph.graph.tools import TOOL_BY_NAME
from kivgraph.store import codec, envelope
from tests.store.hostile import Body, mutate, opened, sealed, version
from tests.store.test_codec import key, sample

Row = dict[str, Any]
SAMPLE_PAYLOAD = cbor2.dumps(opened(codec.encode(sample())))
QUESTIONS: list[tuple[str, Row]] = [
    ("find_references", {"stable_key": key("helper")}),
    ("get_blast_radius", {"stable_key": key("helper"), "depth": 3}),
    ("trace_dependencies", {"stable_key": key("main")}),
    ("find_symbol", {"name": "Start"}),
    ("get_file_outline", {"repository": "demo", "path": "main.go"}),
    ("get_symbol", {"repository": "demo", "path": "main.go", "qualified_name": "Server.Start"}),
    ("find_cross_repo_consumers", {"stable_key": key("Server")}),
    ("list_repositories", {}),
    ("graph_status", {}),
]


def body_of_sample() -> Body:
    body: Body = cbor2.loads(SAMPLE_PAYLOAD)
    return body


def renamed(body: Body, name: str) -> Body:
    body["header"]["repository"] = name
    return body


def set_int(body: Body, table: str, column: str, row: int, value: int) -> None:
    raw = body[table][column]
    body[table][column] = raw[: row * 4] + struct.pack("<i", value) + raw[row * 4 + 4 :]


def serve(directory: Path, *blobs: bytes) -> Catalog:
    files: list[tuple[str, str]] = []
    for n, blob in enumerate(blobs):
        path = directory / f"{n}.kgen"
        path.write_bytes(blob)
        files.append((str(path), ""))
    catalog = Catalog([], files)
    catalog.load()
    return catalog


def ask(catalog: Catalog, tool: str, arguments: Row) -> Row:
    answer: Row = json.loads(run_tool(catalog, TOOL_BY_NAME[tool], arguments))
    return answer


@pytest.fixture(scope="module")
def directory(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("untrusted")


GOOD = sealed(renamed(body_of_sample(), "good"))


@settings(max_examples=120, deadline=None)
@given(data=st.data())
def test_a_damaged_generation_is_listed_unavailable_or_answers_and_the_good_one_is_always_served(
    directory: Path, data: st.DataObject
):
    body = body_of_sample()
    mutate(body, data)
    catalog = serve(directory, GOOD, sealed(body, version(data)))
    assert catalog.session is not None, catalog.problems
    assert "good" in {r.name for r in catalog.session.graph.repositories}
    event("listed unavailable" if catalog.problems else "served")
    for tool, arguments in QUESTIONS:
        try:
            ask(catalog, tool, arguments)
        except KivgraphError as err:
            event(f"{tool}: {err.code}")


def test_a_corrupt_generation_is_listed_under_unavailable_and_the_others_are_served(directory: Path):
    bad = body_of_sample()
    set_int(bad, "edges", "target", 0, 99)
    catalog = serve(directory, GOOD, sealed(bad))
    assert len(catalog.problems) == 1
    assert str(directory / "1.kgen") in catalog.problems[0]
    assert "edges.target points outside symbols" in catalog.problems[0]
    status = ask(catalog, "graph_status", {})
    assert status["results"]["unavailable"] == catalog.problems
    assert [g["repository"] for g in status["results"]["generations"]] == ["good"]
    assert ask(catalog, "find_symbol", {"name": "Start"})["total"] == 1


def test_a_generation_that_takes_the_name_of_one_already_served_is_listed_and_the_first_served(directory: Path):
    impostor = sealed(renamed(body_of_sample(), "good"))
    catalog = serve(directory, GOOD, impostor)
    assert catalog.session is not None
    assert [r.name for r in catalog.session.graph.repositories] == ["good"]
    assert catalog.problems == [
        f"{directory / '1.kgen'} holds a generation named 'good', the name of the one already served from "
        f"{directory / '0.kgen'}; serve one of them, or name them apart in a kivgraph.toml."
    ]


def newer_edge_kind(body: Body) -> None:
    """A later 1.x writer's edge kind and confidence on the call main → helper."""
    vocabularies = body["vocabularies"]
    calls = vocabularies["edge_kind"].index("CALLS_DIRECT")
    row = struct.unpack(f"<{len(body['edges']['kind']) // 4}i", body["edges"]["kind"]).index(calls)
    vocabularies["edge_kind"].append("CALLS_ASYNC")
    vocabularies["confidence"].append("EXACT_PROVEN")
    set_int(body, "edges", "kind", row, len(vocabularies["edge_kind"]) - 1)
    set_int(body, "edges", "confidence", row, len(vocabularies["confidence"]) - 1)


def test_an_edge_of_a_kind_only_a_newer_writer_knows_is_kept_as_an_unknown_use(directory: Path):
    body = body_of_sample()
    newer_edge_kind(body)
    catalog = serve(directory, sealed(body, (envelope.FORMAT_MAJOR, envelope.FORMAT_MINOR + 1)))
    assert not catalog.problems
    references = ask(catalog, "find_references", {"stable_key": key("helper")})
    assert references["total"] == 1
    assert references["results"]["edge_kind"] == "UNKNOWN"
    assert references["results"]["confidence"] == "CANDIDATE"  # never promoted
    blast = ask(catalog, "get_blast_radius", {"stable_key": key("helper")})
    assert blast["results"]["affected"] == 1
    kinds = {row["key"] for row in ask(catalog, "graph_status", {})["results"]["edges_by_kind"]}
    assert kinds == {"UNKNOWN", "METHOD_OF"}


def test_a_symbol_in_a_language_only_a_newer_writer_knows_keeps_its_name_and_answers_are_a_lower_bound(
    directory: Path,
):
    body = body_of_sample()
    body["vocabularies"]["language"].append("kotlin")
    body["header"]["languages"] = ["kotlin"]
    body["header"]["analyzers"] = [["scip-kotlin", "1.0"]]
    for table in ("files", "symbols", "unresolved", "invisible_scopes", "packages", "external_references"):
        for row in range(len(body[table]["language"]) // 4):
            set_int(body, table, "language", row, len(body["vocabularies"]["language"]) - 1)
    catalog = serve(directory, sealed(body, (envelope.FORMAT_MAJOR, envelope.FORMAT_MINOR + 1)))
    assert not catalog.problems
    outline = ask(catalog, "get_file_outline", {"repository": "demo", "path": "main.go", "view": "full"})
    assert outline["results"]["languages"] == ["kotlin"]
    found = ask(catalog, "get_symbol", {"repository": "demo", "path": "main.go", "qualified_name": "Server.Start"})
    assert found["results"]["language"] == "kotlin"
    scopes = ask(catalog, "find_references", {"stable_key": key("helper")})["completeness"]["invisible_scopes"]
    assert any(scope["reason"] == UNKNOWN_LANGUAGE and scope["language"] == "kotlin" for scope in scopes), scopes
