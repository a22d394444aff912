"""Decoding SCIP payloads and symbol strings."""

import pytest

from kivgraph.scip import scip_subset_pb2 as pb
from kivgraph.scip.index import Role, ScipIndexError, Span, TextEncoding, load_index
from kivgraph.scip.symbols import Descriptor, Suffix, is_local, parse_symbol


def test_a_typescript_method_symbol_parses_into_package_and_descriptors():
    symbol = parse_symbol("scip-typescript npm @acme/core 1.2.0 src/`shapes.ts`/Dog#sound().")
    assert symbol is not None
    assert (symbol.scheme, symbol.manager, symbol.package, symbol.version) == (
        "scip-typescript", "npm", "@acme/core", "1.2.0",
    )  # fmt: skip
    assert symbol.descriptors == (
        Descriptor("src", Suffix.NAMESPACE),
        Descriptor("shapes.ts", Suffix.NAMESPACE),
        Descriptor("Dog", Suffix.TYPE),
        Descriptor("sound", Suffix.METHOD, ""),
    )
    assert symbol.name == "sound"


def test_escaped_spaces_placeholders_parameters_and_disambiguators_parse():
    symbol = parse_symbol("rust-analyzer cargo my  crate . impl#[Foo]bar(+1).(x)")
    assert symbol is not None
    assert symbol.package == "my crate" and symbol.version == ""
    assert symbol.descriptors == (
        Descriptor("impl", Suffix.TYPE),
        Descriptor("Foo", Suffix.TYPE_PARAMETER),
        Descriptor("bar", Suffix.METHOD, "+1"),
        Descriptor("x", Suffix.PARAMETER),
    )


@pytest.mark.parametrize("text", ["", "local 12", "only three fields", "s m p v Name", "s m p v `open.", "s m p v a(b"])
def test_local_and_malformed_symbols_do_not_parse(text: str):
    assert parse_symbol(text) is None


def test_local_symbols_are_recognised():
    assert is_local("local 3") and not is_local("scip-go gomod m v f().")


def test_an_index_payload_decodes_documents_occurrences_and_relationships():
    message = pb.Index()
    message.metadata.tool_info.name = "scip-typescript"
    message.metadata.tool_info.version = "0.4.0"
    message.metadata.project_root = "file:///repo"
    message.metadata.text_document_encoding = 1
    doc = message.documents.add()
    doc.relative_path = "src/dog.ts"
    doc.language = "typescript"
    definition = doc.occurrences.add()
    definition.range.extend([3, 9, 14])
    definition.symbol = "scip-typescript npm app 1.0.0 src/`dog.ts`/Dog#"
    definition.symbol_roles = 1
    definition.enclosing_range.extend([3, 0, 7, 1])
    broken = doc.occurrences.add()
    broken.range.extend([1])
    info = doc.symbols.add()
    info.symbol = definition.symbol
    relation = info.relationships.add()
    relation.symbol = "scip-typescript npm app 1.0.0 src/`animal.ts`/Animal#"
    relation.is_implementation = True
    index = load_index(message.SerializeToString(), "dog.scip")
    assert (index.tool, index.tool_version, index.encoding) == ("scip-typescript", "0.4.0", TextEncoding.UTF8)
    [document] = index.documents
    [occurrence] = document.occurrences  # the one with a malformed range is dropped
    assert occurrence.span == Span(3, 9, 3, 14)
    assert occurrence.enclosing == Span(3, 0, 7, 1)
    assert occurrence.roles == Role.DEFINITION
    assert document.symbols[0].relationships[0].is_implementation


@pytest.mark.parametrize("payload", [b"\xff\xff\xff", b"", b"\x12\x05\x0a\x03../x"])
def test_payloads_that_are_not_indexes_are_refused_with_where_they_came_from(payload: bytes):
    with pytest.raises(ScipIndexError, match="upload.scip is not a usable SCIP index"):
        load_index(payload, "upload.scip")


def test_typed_ranges_of_newer_indexers_decode_like_packed_ones():
    message = pb.Index()
    message.metadata.tool_info.name = "scip-go"
    doc = message.documents.add()
    doc.relative_path = "greet/greet.go"
    single = doc.occurrences.add()
    single.symbol = "scip-go gomod example.com/demo . `example.com/demo/greet`/Add()."
    single.single_line_range.line = 8
    single.single_line_range.start_character = 5
    single.single_line_range.end_character = 8
    single.multi_line_enclosing_range.start_line = 8
    single.multi_line_enclosing_range.end_line = 10
    single.multi_line_enclosing_range.end_character = 1
    multi = doc.occurrences.add()
    multi.multi_line_range.start_line = 2
    multi.multi_line_range.end_line = 3
    multi.multi_line_range.end_character = 4
    first, second = load_index(message.SerializeToString()).documents[0].occurrences
    assert first.span == Span(8, 5, 8, 8)
    assert first.enclosing == Span(8, 0, 10, 1)
    assert second.span == Span(2, 0, 3, 4) and second.enclosing is None


def test_documents_outside_the_project_are_left_out_not_followed():
    message = pb.Index()
    message.metadata.tool_info.name = "scip-go"
    outside = message.documents.add()
    outside.relative_path = "../../root/.cache/go-build/f2/generated.go"
    inside = message.documents.add()
    inside.relative_path = "pkg/a.go"
    assert [d.path for d in load_index(message.SerializeToString()).documents] == ["pkg/a.go"]


@pytest.mark.parametrize(
    ("text", "package", "version", "names"),
    [
        ("scip-go gomod example.com/my  mod v1  0 `example.com/my mod/pkg`/Run().", "example.com/my mod", "v1 0",
         ["example.com/my mod/pkg", "Run"]),
        ("s m p v `a``b`#c$+-.", "p", "v", ["a`b", "c$+-"]),
        ("s m p . Grüße#läuft().", "p", "", ["Grüße", "läuft"]),
    ],
)  # fmt: skip
def test_escaped_fields_backquoted_names_and_unicode_identifiers_parse(
    text: str, package: str, version: str, names: list[str]
):
    symbol = parse_symbol(text)
    assert symbol is not None
    assert (symbol.package, symbol.version, [d.name for d in symbol.descriptors]) == (package, version, names)


def test_local_occurrences_can_be_left_out_when_nothing_follows_them():
    message = pb.Index()
    message.metadata.tool_info.name = "scip-go"
    doc = message.documents.add()
    doc.relative_path = "main.go"
    for symbol in ("local 0", "scip-go gomod example.com/demo . `example.com/demo`/main()."):
        occurrence = doc.occurrences.add()
        occurrence.range.extend([2, 5, 9])
        occurrence.symbol = symbol
    payload = message.SerializeToString()
    assert [o.symbol for o in load_index(payload).documents[0].occurrences][0] == "local 0"
    [kept] = load_index(payload, keep_locals=False).documents[0].occurrences
    assert kept.symbol.endswith("main().") and kept.span == Span(2, 5, 2, 9)
