from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Index(_message.Message):
    __slots__ = ("metadata", "documents", "external_symbols")
    METADATA_FIELD_NUMBER: _ClassVar[int]
    DOCUMENTS_FIELD_NUMBER: _ClassVar[int]
    EXTERNAL_SYMBOLS_FIELD_NUMBER: _ClassVar[int]
    metadata: Metadata
    documents: _containers.RepeatedCompositeFieldContainer[Document]
    external_symbols: _containers.RepeatedCompositeFieldContainer[SymbolInformation]
    def __init__(self, metadata: _Optional[_Union[Metadata, _Mapping]] = ..., documents: _Optional[_Iterable[_Union[Document, _Mapping]]] = ..., external_symbols: _Optional[_Iterable[_Union[SymbolInformation, _Mapping]]] = ...) -> None: ...

class Metadata(_message.Message):
    __slots__ = ("tool_info", "project_root", "text_document_encoding")
    TOOL_INFO_FIELD_NUMBER: _ClassVar[int]
    PROJECT_ROOT_FIELD_NUMBER: _ClassVar[int]
    TEXT_DOCUMENT_ENCODING_FIELD_NUMBER: _ClassVar[int]
    tool_info: ToolInfo
    project_root: str
    text_document_encoding: int
    def __init__(self, tool_info: _Optional[_Union[ToolInfo, _Mapping]] = ..., project_root: _Optional[str] = ..., text_document_encoding: _Optional[int] = ...) -> None: ...

class ToolInfo(_message.Message):
    __slots__ = ("name", "version", "arguments")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    ARGUMENTS_FIELD_NUMBER: _ClassVar[int]
    name: str
    version: str
    arguments: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, name: _Optional[str] = ..., version: _Optional[str] = ..., arguments: _Optional[_Iterable[str]] = ...) -> None: ...

class Document(_message.Message):
    __slots__ = ("relative_path", "occurrences", "symbols", "language")
    RELATIVE_PATH_FIELD_NUMBER: _ClassVar[int]
    OCCURRENCES_FIELD_NUMBER: _ClassVar[int]
    SYMBOLS_FIELD_NUMBER: _ClassVar[int]
    LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    relative_path: str
    occurrences: _containers.RepeatedCompositeFieldContainer[Occurrence]
    symbols: _containers.RepeatedCompositeFieldContainer[SymbolInformation]
    language: str
    def __init__(self, relative_path: _Optional[str] = ..., occurrences: _Optional[_Iterable[_Union[Occurrence, _Mapping]]] = ..., symbols: _Optional[_Iterable[_Union[SymbolInformation, _Mapping]]] = ..., language: _Optional[str] = ...) -> None: ...

class SymbolInformation(_message.Message):
    __slots__ = ("symbol", "documentation", "relationships", "kind", "display_name", "enclosing_symbol")
    SYMBOL_FIELD_NUMBER: _ClassVar[int]
    DOCUMENTATION_FIELD_NUMBER: _ClassVar[int]
    RELATIONSHIPS_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    ENCLOSING_SYMBOL_FIELD_NUMBER: _ClassVar[int]
    symbol: str
    documentation: _containers.RepeatedScalarFieldContainer[str]
    relationships: _containers.RepeatedCompositeFieldContainer[Relationship]
    kind: int
    display_name: str
    enclosing_symbol: str
    def __init__(self, symbol: _Optional[str] = ..., documentation: _Optional[_Iterable[str]] = ..., relationships: _Optional[_Iterable[_Union[Relationship, _Mapping]]] = ..., kind: _Optional[int] = ..., display_name: _Optional[str] = ..., enclosing_symbol: _Optional[str] = ...) -> None: ...

class Relationship(_message.Message):
    __slots__ = ("symbol", "is_reference", "is_implementation", "is_type_definition", "is_definition")
    SYMBOL_FIELD_NUMBER: _ClassVar[int]
    IS_REFERENCE_FIELD_NUMBER: _ClassVar[int]
    IS_IMPLEMENTATION_FIELD_NUMBER: _ClassVar[int]
    IS_TYPE_DEFINITION_FIELD_NUMBER: _ClassVar[int]
    IS_DEFINITION_FIELD_NUMBER: _ClassVar[int]
    symbol: str
    is_reference: bool
    is_implementation: bool
    is_type_definition: bool
    is_definition: bool
    def __init__(self, symbol: _Optional[str] = ..., is_reference: _Optional[bool] = ..., is_implementation: _Optional[bool] = ..., is_type_definition: _Optional[bool] = ..., is_definition: _Optional[bool] = ...) -> None: ...

class Occurrence(_message.Message):
    __slots__ = ("range", "symbol", "symbol_roles", "enclosing_range", "single_line_range", "multi_line_range", "single_line_enclosing_range", "multi_line_enclosing_range")
    RANGE_FIELD_NUMBER: _ClassVar[int]
    SYMBOL_FIELD_NUMBER: _ClassVar[int]
    SYMBOL_ROLES_FIELD_NUMBER: _ClassVar[int]
    ENCLOSING_RANGE_FIELD_NUMBER: _ClassVar[int]
    SINGLE_LINE_RANGE_FIELD_NUMBER: _ClassVar[int]
    MULTI_LINE_RANGE_FIELD_NUMBER: _ClassVar[int]
    SINGLE_LINE_ENCLOSING_RANGE_FIELD_NUMBER: _ClassVar[int]
    MULTI_LINE_ENCLOSING_RANGE_FIELD_NUMBER: _ClassVar[int]
    range: _containers.RepeatedScalarFieldContainer[int]
    symbol: str
    symbol_roles: int
    enclosing_range: _containers.RepeatedScalarFieldContainer[int]
    single_line_range: SingleLineRange
    multi_line_range: MultiLineRange
    single_line_enclosing_range: SingleLineRange
    multi_line_enclosing_range: MultiLineRange
    def __init__(self, range: _Optional[_Iterable[int]] = ..., symbol: _Optional[str] = ..., symbol_roles: _Optional[int] = ..., enclosing_range: _Optional[_Iterable[int]] = ..., single_line_range: _Optional[_Union[SingleLineRange, _Mapping]] = ..., multi_line_range: _Optional[_Union[MultiLineRange, _Mapping]] = ..., single_line_enclosing_range: _Optional[_Union[SingleLineRange, _Mapping]] = ..., multi_line_enclosing_range: _Optional[_Union[MultiLineRange, _Mapping]] = ...) -> None: ...

class SingleLineRange(_message.Message):
    __slots__ = ("line", "start_character", "end_character")
    LINE_FIELD_NUMBER: _ClassVar[int]
    START_CHARACTER_FIELD_NUMBER: _ClassVar[int]
    END_CHARACTER_FIELD_NUMBER: _ClassVar[int]
    line: int
    start_character: int
    end_character: int
    def __init__(self, line: _Optional[int] = ..., start_character: _Optional[int] = ..., end_character: _Optional[int] = ...) -> None: ...

class MultiLineRange(_message.Message):
    __slots__ = ("start_line", "start_character", "end_line", "end_character")
    START_LINE_FIELD_NUMBER: _ClassVar[int]
    START_CHARACTER_FIELD_NUMBER: _ClassVar[int]
    END_LINE_FIELD_NUMBER: _ClassVar[int]
    END_CHARACTER_FIELD_NUMBER: _ClassVar[int]
    start_line: int
    start_character: int
    end_line: int
    end_character: int
    def __init__(self, start_line: _Optional[int] = ..., start_character: _Optional[int] = ..., end_line: _Optional[int] = ..., end_character: _Optional[int] = ...) -> None: ...
