"""A blob is untrusted input (notes fetched from a remote, artifacts from forks): a zstd or CBOR bomb is
refused before it is allocated, a payload damaged behind a valid digest is loaded whole or refused as
a KivgraphError, and rows a newer minor version added are kept rather than crashing the reader."""

import struct
import time
import tracemalloc
from collections.abc import Callable, Generator
from contextlib import contextmanager

import cbor2
import pytest
import zstandard
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from kivgraph.errors import CorruptGenerationError, KivgraphError
from kivgraph.model import Confidence, EdgeKind, FileStatus, Language, Provenance, SymbolKind
from kivgraph.render.summary import render_text, summarize
from kivgraph.store import codec, envelope
from tests.store.hostile import Body, mutate, opened, rle_frame, sealed, sealed_payload, version
from tests.store.test_codec import sample

MIB = 1 << 20


@contextmanager
def allocations(limit: int) -> Generator[None]:
    """Fails when the block allocated more than `limit` bytes at its peak (zstd's and cbor2's
    buffers included: both allocate through Python's allocator, which tracemalloc sees)."""
    tracemalloc.start()
    try:
        yield
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < limit, f"peak allocation {peak:,} bytes"


def refused_quickly(read: Callable[[bytes], object], blob: bytes, match: str = "") -> None:
    started = time.perf_counter()
    with allocations(16 * MIB), pytest.raises(CorruptGenerationError, match=match):
        read(blob)
    assert time.perf_counter() - started < 2.0


# -- zstd and CBOR bombs ---------------------------------------------------------------------------


def test_a_98_kb_note_declaring_3_gib_is_refused_before_anything_is_allocated():
    bomb = rle_frame(3 << 30, declare=True)
    assert len(bomb) < 100_000
    refused_quickly(codec.decode_columns, bomb, "declares 3,221,225,472 bytes")


@pytest.mark.parametrize("read", [envelope.read_envelope, codec.created_at, codec.decode], ids=lambda f: f.__name__)
def test_a_zstd_bomb_declaring_no_size_is_stopped_at_the_limit_by_every_reader(read: Callable[[bytes], object]):
    bomb = rle_frame(1 << 30, declare=False)
    refused_quickly(read, bomb, f"would decompress to more than {64 * len(bomb):,} bytes")


def test_the_limit_is_64_times_the_blob_but_at_least_1_mib_and_at_most_2_gib():
    assert envelope.decompressed_limit(1_000) == MIB
    assert envelope.decompressed_limit(7_075_522) == 64 * 7_075_522  # the 100k-symbol / 1M-edge benchmark
    assert envelope.decompressed_limit(100 * MIB) == 2 << 30


def test_a_generation_within_the_limit_still_decodes_when_its_frame_declares_no_size():
    raw = zstandard.ZstdDecompressor().decompress(codec.encode(sample()))
    undeclared = zstandard.ZstdCompressor(write_content_size=False).compress(raw)
    assert zstandard.get_frame_parameters(undeclared).content_size == zstandard.CONTENTSIZE_UNKNOWN
    assert codec.decode(undeclared) == codec.decode(codec.encode(sample()))


BIG = (3 << 30).to_bytes(8, "big")
CBOR_BOMBS = {
    "bytes of 3 GiB": b"\x5b" + BIG,
    "text of 3 GiB": b"\x7b" + BIG,
    "array of 3G items": b"\x9b" + BIG + b"\x00" * 64,
    "map of 3G pairs": b"\xbb" + BIG + b"\x00" * 64,
    "nested 100,000 deep": b"\x81" * 100_000 + b"\x00",
}


@pytest.mark.parametrize("bomb", CBOR_BOMBS.values(), ids=list(CBOR_BOMBS))
def test_an_envelope_declaring_a_huge_cbor_length_is_corrupt_without_allocating_it(bomb: bytes):
    refused_quickly(envelope.read_envelope, zstandard.ZstdCompressor().compress(bomb), "envelope is not valid CBOR")


@pytest.mark.parametrize("bomb", CBOR_BOMBS.values(), ids=list(CBOR_BOMBS))
def test_a_payload_declaring_a_huge_cbor_length_is_corrupt_behind_a_valid_digest(bomb: bytes):
    refused_quickly(codec.decode_columns, sealed_payload(bomb), "payload is not valid CBOR")


def test_a_string_table_declaring_3g_entries_is_corrupt_without_allocating_them():
    payload = cbor2.dumps({**opened(codec.encode(sample())), "strings": None})
    bomb = payload.replace(b"gstrings\xf6", b"gstrings\x9b" + BIG)
    assert bomb != payload
    refused_quickly(codec.decode_columns, sealed_payload(bomb), "payload is not valid CBOR")


@pytest.mark.parametrize(
    "bad",
    [[10**5000, 0], [1, 10**5000], [True, 1], [-1, 0], [1.0, 1], ["1", "1"]],
    ids=["5000-digit major", "5000-digit minor", "bool", "negative", "float", "text"],
)
def test_a_format_version_that_is_not_a_small_number_is_malformed_not_a_crash(bad: list[object]):
    envelope = cbor2.loads(zstandard.ZstdDecompressor().decompress(codec.encode(sample())))
    envelope["format_version"] = bad
    with pytest.raises(CorruptGenerationError, match="format_version is missing or malformed"):
        codec.decode(zstandard.ZstdCompressor().compress(cbor2.dumps(envelope)))


# -- damaged payloads behind a valid digest --------------------------------------------------------


def read_everything(blob: bytes) -> str:
    """What the readers of the store do with a blob: columns, model rows, `kivgraph show`'s summary.
    Returns how it ended; anything but a KivgraphError escaping is the failure under test."""
    try:
        columns = codec.decode_columns(blob, "commit 123 in refs/notes/kivgraph")
    except KivgraphError as err:
        assert "commit 123 in refs/notes/kivgraph" in str(err)
        return type(err).__name__
    render_text(summarize(columns, len(blob), "here"), color=False)
    try:
        generation = codec.decode(blob)
    except KivgraphError as err:  # rows in a language this reader does not know
        assert not isinstance(err, CorruptGenerationError), err
        return "columns only"
    assert len(generation.edges) == columns.count("edges")
    return "loaded"


SAMPLE_PAYLOAD = cbor2.dumps(opened(codec.encode(sample())))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_damaged_payload_with_a_valid_digest_loads_whole_or_is_refused_as_a_kivgraph_error(data: st.DataObject):
    body: Body = cbor2.loads(SAMPLE_PAYLOAD)
    mutate(body, data)
    event(read_everything(sealed(body, version(data))))


@settings(max_examples=150, deadline=None)
@given(at=st.integers(0, 10_000), byte=st.integers(0, 255), cut=st.integers(0, 10_000))
def test_damaged_payload_bytes_with_a_valid_digest_load_or_are_refused_as_a_kivgraph_error(
    at: int, byte: int, cut: int
):
    payload = bytearray(SAMPLE_PAYLOAD)
    payload[at % len(payload)] = byte
    event(read_everything(sealed_payload(bytes(payload[: len(payload) - cut % 64]))))


def resealed(change: Callable[[Body], None], minor: int = envelope.FORMAT_MINOR) -> bytes:
    body = opened(codec.encode(sample()))
    change(body)
    return sealed(body, (envelope.FORMAT_MAJOR, minor))


def set_int(body: Body, table: str, column: str, row: int, value: int) -> None:
    raw = body[table][column]
    body[table][column] = raw[: row * 4] + struct.pack("<i", value) + raw[row * 4 + 4 :]


@pytest.mark.parametrize(
    ("table", "column", "value", "message"),
    [
        ("edges", "source", -1, "edges.source points outside symbols"),
        ("symbols", "name", 10_000, "symbols.name points outside the string table"),
        ("edges", "kind", 99, "edges.kind points outside vocabularies.edge_kind"),
        ("files", "status", -1, "files.status points outside vocabularies.file_status"),
        ("symbols", "start_line", -5, "symbols.start_line holds -5"),
        ("symbols", "exported", 2, "symbols.exported holds 2, not 0 or 1"),
        ("external_references", "source", -1, "external_references.source points outside symbols"),
    ],
)
def test_a_value_outside_what_its_column_points_at_is_corrupt(table: str, column: str, value: int, message: str):
    with pytest.raises(CorruptGenerationError, match=message):
        codec.decode_columns(resealed(lambda body: set_int(body, table, column, 0, value)))


def test_none_is_accepted_only_where_a_column_allows_it():
    columns = codec.decode_columns(resealed(lambda body: set_int(body, "symbols", "container", 0, codec.NONE)))
    assert int(columns.tables["symbols"]["container"][0]) == codec.NONE


# -- a newer minor version -------------------------------------------------------------------------


def newer_kinds(body: Body) -> None:
    """What a later 1.x writer could write: a kind of each vocabulary this reader never heard of."""
    for vocabulary, table, column, name in [
        ("edge_kind", "edges", "kind", "CALLS_ASYNC"),
        ("confidence", "edges", "confidence", "EXACT_PROVEN"),
        ("provenance", "edges", "provenance", "SCIP_KOTLIN"),
        ("provenance", "external_references", "provenance", "SCIP_KOTLIN"),
        ("symbol_kind", "symbols", "kind", "actor"),
        ("file_status", "files", "status", "skipped_vendored"),
    ]:
        names = body["vocabularies"][vocabulary]
        if name not in names:
            names.append(name)
        set_int(body, table, column, 0, names.index(name))
    body["vocabularies"]["language"].append("kotlin")  # listed by the writer, used by no row
    body["edges"]["weight"] = b"\x01\x00\x00\x00" * 2  # a column added later
    body["added_later"] = {"anything": b""}  # and a table


def test_a_newer_minor_version_keeps_rows_of_kinds_this_reader_does_not_know_as_unknown():
    blob = resealed(newer_kinds, envelope.FORMAT_MINOR + 1)
    g = codec.decode(blob)
    known = codec.decode(codec.encode(sample()))
    assert (len(g.edges), len(g.symbols), len(g.files)) == (len(known.edges), len(known.symbols), len(known.files))
    assert {e.kind for e in g.edges} >= {EdgeKind.UNKNOWN}
    assert Confidence.CANDIDATE in {e.confidence for e in g.edges}  # never promoted
    assert Provenance.UNKNOWN in {e.provenance for e in g.edges}
    assert [x.provenance for x in g.external_references] == [Provenance.UNKNOWN]
    assert SymbolKind.UNKNOWN in {s.kind for s in g.symbols}
    assert FileStatus.UNKNOWN in {f.status for f in g.files}
    assert codec.decode_columns(blob).format_version == (envelope.FORMAT_MAJOR, envelope.FORMAT_MINOR + 1)


def kotlin_rows(body: Body) -> None:
    body["vocabularies"]["language"].append("kotlin")
    body["header"]["languages"].append("kotlin")
    set_int(body, "symbols", "language", 0, len(body["vocabularies"]["language"]) - 1)


def test_a_language_this_reader_does_not_know_loads_as_columns_but_is_refused_as_model_rows():
    blob = resealed(kotlin_rows, envelope.FORMAT_MINOR + 1)
    columns = codec.decode_columns(blob)
    assert columns.unknown_languages == ("kotlin",)
    assert columns.header.languages == (Language.GO, Language.PYTHON)
    with pytest.raises(KivgraphError, match=r"language this kivgraph does not know \(kotlin\)") as refused:
        codec.decode(blob)
    assert not isinstance(refused.value, CorruptGenerationError)
    assert read_everything(blob) == "columns only"


def test_the_written_vocabularies_never_name_unknown_so_older_readers_can_read_them():
    written = codec.decode_columns(codec.encode(sample())).vocabularies
    for name, values in codec.VOCABULARIES.items():
        assert written[name] == list(values)
        assert "UNKNOWN" not in values and "unknown" not in values
