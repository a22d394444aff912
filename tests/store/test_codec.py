from dataclasses import replace

import pytest

from kivgraph.errors import CorruptGenerationError, UnsupportedFormatError
from kivgraph.model import (
    Confidence,
    Edge,
    EdgeKind,
    ExternalReference,
    FileRecord,
    FileRole,
    FileStatus,
    Generation,
    GenerationHeader,
    InvisibleScope,
    Language,
    Package,
    Provenance,
    Submodule,
    Symbol,
    SymbolKind,
    Unresolved,
    canonical_identity,
    stable_key,
)
from kivgraph.model.roles import role_by_convention
from kivgraph.store import codec, envelope
from tests.conftest import FIXTURES

GOLDEN = FIXTURES / "storage" / "golden-v1.kgen"


def key(name: str) -> str:
    return stable_key(canonical_identity("go", "demo", "example.com/demo", "", name, "function", ""))


def sample() -> Generation:
    """A small generation that touches every table and every optional field."""
    main, helper, server, start = key("main"), key("helper"), key("Server"), key("Server.Start")
    return Generation(
        header=GenerationHeader(
            repository="demo",
            commit="1" * 40,
            tree="2" * 40,
            indexer_version="0.1.0",
            created_at="2026-01-01T00:00:00.000000Z",
            remote_url="https://example.invalid/demo.git",
            languages=(Language.GO, Language.PYTHON),
            analyzers=(("tree-sitter", "0.26.1"),),
        ),
        files=(
            FileRecord("main.go", Language.GO, "a" * 40, 120),
            FileRecord("big.py", Language.PYTHON, "b" * 40, 9_000_000, FileStatus.SKIPPED_TOO_LARGE),
        ),
        packages=(Package("go:example.com/demo", Language.GO, "example.com/demo example.com/demo", "", "go.mod", ""),),
        symbols=(
            Symbol(
                main,
                "main",
                "main",
                SymbolKind.FUNCTION,
                Language.GO,
                "main.go",
                3,
                6,
                3,
                5,
                "func main()",
                False,
                None,
                "go:example.com/demo",
                "main runs the demo — ünïcode",
            ),
            Symbol(helper, "helper", "helper", SymbolKind.FUNCTION, Language.GO, "main.go", 8, 9, 8, 5),
            Symbol(server, "Server", "Server", SymbolKind.STRUCT, Language.GO, "main.go", 11, 11, 11, 5, exported=True),
            Symbol(
                start,
                "Start",
                "Server.Start",
                SymbolKind.METHOD,
                Language.GO,
                "main.go",
                12,
                14,
                12,
                17,
                exported=True,
                container=server,
            ),
        ),
        edges=(
            Edge(main, helper, EdgeKind.CALLS_DIRECT, Confidence.CANDIDATE, Provenance.TREE_SITTER, "main.go", 4),
            Edge(
                start, server, EdgeKind.METHOD_OF, Confidence.STRUCTURAL_CERTAIN, Provenance.TREE_SITTER, "main.go", 0
            ),
        ),
        external_references=(ExternalReference(main, Language.GO, "fmt", "Println", "main.go", 5),),
        unresolved=(
            Unresolved("RECEIVER_TYPE_UNKNOWN", Language.GO, "main.go", 5, "", "Start", main, "x.Start()"),
            Unresolved("PARSE_ERROR", Language.PYTHON, "", 0),
        ),
        invisible_scopes=(InvisibleScope("PACKAGE_NOT_BUILDABLE", Language.GO, "example.com/demo/tools", "tools"),),
    )


def normalized(g: Generation) -> Generation:
    """The codec stores rows in a canonical order; compare as sets of rows."""
    return Generation(
        g.header,
        tuple(sorted(g.files, key=repr)),
        tuple(sorted(g.packages, key=repr)),
        tuple(sorted(g.symbols, key=repr)),
        tuple(sorted(g.edges, key=repr)),
        tuple(sorted(g.external_references, key=repr)),
        tuple(sorted(g.unresolved, key=repr)),
        tuple(sorted(g.invisible_scopes, key=repr)),
    )


def test_a_generation_survives_a_round_trip_unchanged():
    g = sample()
    assert normalized(codec.decode(codec.encode(g))) == normalized(g)


def test_submodules_recorded_in_the_header_survive_a_round_trip_and_older_blobs_have_none():
    g = sample()
    modules = (Submodule("third_party/lib", "3" * 40, "https://example.invalid/lib.git"),)
    with_modules = replace(g, header=replace(g.header, submodules=modules))
    blob = codec.encode(with_modules)
    assert envelope.read_envelope(blob)[0] >= (1, 2)
    assert codec.decode(blob).header.submodules == modules
    assert codec.decode_columns(blob).header.submodules == modules
    assert codec.decode(GOLDEN.read_bytes()).header.submodules == ()


def test_the_relation_seen_at_an_external_site_survives_and_older_blobs_read_it_as_references():
    g = sample()
    called = replace(g.external_references[0], kind=EdgeKind.CALLS_DIRECT)
    blob = codec.encode(replace(g, external_references=(called,)))
    assert envelope.read_envelope(blob)[0] >= (1, 3)
    assert codec.decode(blob).external_references[0].kind is EdgeKind.CALLS_DIRECT
    older = codec.decode(GOLDEN.read_bytes())
    assert older.external_references and {x.kind for x in older.external_references} == {EdgeKind.REFERENCES}


def test_encoding_is_deterministic_for_equal_input():
    assert envelope.read_envelope(codec.encode(sample())) == envelope.read_envelope(codec.encode(sample()))


def test_the_checked_in_golden_blob_still_decodes_to_the_same_generation():
    blob = GOLDEN.read_bytes()
    # Written by format 1.0 when it was introduced; later writers may add vocabulary or fields,
    # but every reader of major version 1 must still read this blob to the same generation.
    assert envelope.read_envelope(blob)[0] == (1, 0)
    assert normalized(codec.decode(blob, str(GOLDEN))) == normalized(sample())


def test_columns_decode_without_building_rows():
    columns = codec.decode_columns(codec.encode(sample()))
    assert columns.count("symbols") == 4
    assert columns.count("edges") == 2
    assert {columns.key(i) for i in range(4)} == {s.key for s in sample().symbols}


def test_some_symbols_are_read_off_the_columns_as_the_whole_generation_reads_them():
    """Reuse reads an ancestor's symbols a few at a time (`symbols_of` with rows), never its edges:
    each must be the row a full decode gives, its container's key included."""
    import numpy as np

    columns = codec.decode_columns(codec.encode(sample()))
    whole = codec.rows(columns).symbols
    assert codec.symbols_of(columns) == whole and any(s.container for s in whole)
    for rows in ([0], [3, 1], [i for i, s in enumerate(whole) if s.container]):
        assert codec.symbols_of(columns, np.array(rows)) == tuple(whole[i] for i in rows)
    assert codec.invisible_scopes_of(columns) == codec.rows(columns).invisible_scopes
    assert codec.columns_of(sample()).file_paths() == sorted(f.path for f in sample().files)


def test_a_truncated_blob_is_reported_as_corrupt_naming_where_it_came_from():
    blob = codec.encode(sample())
    with pytest.raises(CorruptGenerationError, match="commit 111 in refs/notes/kivgraph"):
        codec.decode(blob[: len(blob) // 2], "commit 111 in refs/notes/kivgraph")


def test_a_flipped_payload_byte_fails_the_digest():
    import cbor2
    import zstandard

    envelope = cbor2.loads(zstandard.ZstdDecompressor().decompress(codec.encode(sample())))
    payload = bytearray(envelope["payload"])
    payload[len(payload) // 2] ^= 0x01
    envelope["payload"] = bytes(payload)
    damaged = zstandard.ZstdCompressor().compress(cbor2.dumps(envelope))
    with pytest.raises(CorruptGenerationError, match="does not match its digest"):
        codec.decode(damaged)


def test_an_unknown_major_version_is_refused_with_the_versions_named():
    import cbor2
    import zstandard

    envelope = cbor2.loads(zstandard.ZstdDecompressor().decompress(codec.encode(sample())))
    envelope["format_version"] = [codec.FORMAT_MAJOR + 1, 0]
    future = zstandard.ZstdCompressor().compress(cbor2.dumps(envelope))
    with pytest.raises(UnsupportedFormatError, match=r"format 2\.0.*reads format 1\.x"):
        codec.decode(future)


@pytest.mark.parametrize("garbage", [b"", b"not a generation", b"\x28\xb5\x2f\xfd" + b"\x00" * 20])
def test_garbage_is_corrupt_not_a_crash(garbage: bytes):
    with pytest.raises(CorruptGenerationError):
        codec.decode(garbage)


def test_a_valid_cbor_envelope_of_something_else_is_not_a_generation():
    import cbor2
    import zstandard

    with pytest.raises(CorruptGenerationError, match="not a kivgraph generation"):
        codec.decode(zstandard.ZstdCompressor().compress(cbor2.dumps({"hello": 1})))


def test_an_index_pointing_outside_its_table_is_corrupt():
    import cbor2
    import zstandard

    envelope = cbor2.loads(zstandard.ZstdDecompressor().decompress(codec.encode(sample())))
    body = cbor2.loads(envelope["payload"])
    body["edges"]["target"] = codec.pack_ints([0, 99])
    payload = cbor2.dumps(body)
    import hashlib

    envelope["payload"] = payload
    envelope["digest"] = hashlib.blake2b(payload, digest_size=32).digest()
    with pytest.raises(CorruptGenerationError, match="edges.target points outside symbols"):
        codec.decode(zstandard.ZstdCompressor().compress(cbor2.dumps(envelope)))


def test_created_at_is_read_from_the_header():
    assert codec.created_at(codec.encode(sample())) == "2026-01-01T00:00:00.000000Z"


def test_roles_survive_a_round_trip_and_older_blobs_take_them_from_their_paths():
    g = sample()
    tested = replace(g, files=tuple(replace(f, role=FileRole.TEST) for f in g.files),
                     symbols=tuple(replace(x, role=FileRole.TEST) for x in g.symbols))  # fmt: skip
    blob = codec.encode(tested)
    assert envelope.read_envelope(blob)[0] == (1, 4)
    decoded = codec.decode(blob)
    assert {f.role for f in decoded.files} == {FileRole.TEST}
    assert {x.role for x in decoded.symbols} == {FileRole.TEST}
    older = codec.decode(GOLDEN.read_bytes())
    assert all(f.role is role_by_convention(f.path, f.language) for f in older.files)
    by_path = {f.path: f.role for f in older.files}
    assert all(x.role is by_path.get(x.file, FileRole.SOURCE) for x in older.symbols)
