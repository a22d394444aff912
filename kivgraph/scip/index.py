"""Reading a SCIP index: the protobuf payload, as plain values.

Owns decoding only (no repository, no generation): bytes → `ScipIndex` of documents,
occurrences and symbol information (symbol strings are parsed by kivgraph/scip/symbols.py). A
payload that is not a SCIP index is a `ScipIndexError` naming where it came from.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum, IntFlag
from typing import NamedTuple

from google.protobuf.message import DecodeError

from kivgraph.errors import KivgraphError
from kivgraph.scip import scip_subset_pb2 as pb
from kivgraph.scip.symbols import is_local


class ScipIndexError(KivgraphError):
    code = "INVALID_SCIP_INDEX"

    def __init__(self, where: str, detail: str) -> None:
        self.where = where
        self.detail = detail
        super().__init__(f"{where} is not a usable SCIP index: {detail}.")


class Role(IntFlag):
    """SCIP `SymbolRole` bits of an occurrence."""

    DEFINITION = 0x1
    IMPORT = 0x2
    WRITE = 0x4
    READ = 0x8
    GENERATED = 0x10
    TEST = 0x20


class TextEncoding(IntEnum):
    UNSPECIFIED = 0
    UTF8 = 1
    UTF16 = 2


class Span(NamedTuple):
    """0-based, end-exclusive character span as SCIP states it (in the index's text encoding).

    A named tuple, as `Occurrence` is: an index holds hundreds of thousands, and a frozen
    dataclass costs twice as much to build."""

    start_line: int
    start_character: int
    end_line: int
    end_character: int


def span(values: Sequence[int]) -> Span | None:
    if len(values) == 3:
        return Span(values[0], values[1], values[0], values[2])
    if len(values) == 4:
        return Span(values[0], values[1], values[2], values[3])
    return None


@dataclass(frozen=True, slots=True)
class Relationship:
    symbol: str
    is_reference: bool
    is_implementation: bool
    is_type_definition: bool
    is_definition: bool


@dataclass(frozen=True, slots=True)
class SymbolInfo:
    symbol: str
    kind: int
    display_name: str
    documentation: tuple[str, ...]
    relationships: tuple[Relationship, ...]
    enclosing_symbol: str


class Occurrence(NamedTuple):
    span: Span
    symbol: str
    roles: int
    """`Role` bits as a plain int: ingestion tests them a million times, and IntFlag arithmetic is slow."""
    enclosing: Span | None


@dataclass(frozen=True, slots=True)
class Document:
    path: str
    language: str
    occurrences: tuple[Occurrence, ...]
    symbols: tuple[SymbolInfo, ...]


@dataclass(frozen=True, slots=True)
class ScipIndex:
    tool: str
    tool_version: str
    project_root: str
    encoding: TextEncoding
    documents: tuple[Document, ...]
    external_symbols: tuple[SymbolInfo, ...]


def _occurrence_span(occ: pb.Occurrence) -> Span | None:
    return _first_span(occ.range, occ, "single_line_range", "multi_line_range")


def _enclosing_span(occ: pb.Occurrence) -> Span | None:
    return _first_span(occ.enclosing_range, occ, "single_line_enclosing_range", "multi_line_enclosing_range")


def _first_span(packed: Sequence[int], occ: pb.Occurrence, single: str, multi: str) -> Span | None:
    """A position from the packed `range` form, else from the newer typed messages."""
    if packed:
        return span(packed)
    if occ.HasField(single):
        r: pb.SingleLineRange = getattr(occ, single)
        return Span(r.line, r.start_character, r.line, r.end_character)
    if occ.HasField(multi):
        m: pb.MultiLineRange = getattr(occ, multi)
        return Span(m.start_line, m.start_character, m.end_line, m.end_character)
    return None


def _symbol_info(message: pb.SymbolInformation) -> SymbolInfo:
    return SymbolInfo(
        message.symbol,
        message.kind,
        message.display_name,
        tuple(message.documentation),
        tuple(
            Relationship(r.symbol, r.is_reference, r.is_implementation, r.is_type_definition, r.is_definition)
            for r in message.relationships
        ),
        message.enclosing_symbol,
    )


def load_index(data: bytes, where: str = "SCIP index", keep_locals: bool = True) -> ScipIndex:
    """Decode a SCIP payload; occurrences with a malformed range and documents outside the
    project are dropped, never guessed at. Without `keep_locals` the occurrences of local
    symbols are left out too: for an index whose locals nothing follows, they are half of it."""
    message = pb.Index()
    try:
        message.ParseFromString(data)
    except DecodeError as err:
        raise ScipIndexError(where, f"the protobuf payload does not decode ({err})") from err
    if not message.HasField("metadata") and len(message.documents) == 0:
        raise ScipIndexError(where, "it has neither metadata nor documents")
    documents: list[Document] = []
    for doc in message.documents:
        if not doc.relative_path or doc.relative_path.startswith("/") or ".." in doc.relative_path.split("/"):
            # A file outside the project (scip-go lists cgo output from the build cache) cannot be
            # one of the repository's files: it is left out, never followed out of the tree.
            continue
        occurrences: list[Occurrence] = []
        for occ in doc.occurrences:
            symbol = occ.symbol
            if not keep_locals and is_local(symbol):
                continue
            where_span = _occurrence_span(occ)
            if where_span is not None:
                occurrences.append(Occurrence(where_span, symbol, occ.symbol_roles & 0x3F, _enclosing_span(occ)))
        documents.append(
            Document(doc.relative_path, doc.language, tuple(occurrences), tuple(_symbol_info(s) for s in doc.symbols))
        )
    if not message.HasField("metadata") and not documents:
        raise ScipIndexError(where, "it has no metadata and no document inside the repository")
    meta = message.metadata
    encoding = meta.text_document_encoding if meta.text_document_encoding in (0, 1, 2) else 0
    return ScipIndex(
        meta.tool_info.name,
        meta.tool_info.version,
        meta.project_root,
        TextEncoding(encoding),
        tuple(documents),
        tuple(_symbol_info(s) for s in message.external_symbols),
    )
