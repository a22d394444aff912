"""The closed vocabularies of a generation: languages, symbol kinds, edge kinds, confidence, provenance.

Each value is the string that is serialized; the codec stores them by their index in these enums'
declaration order, so new members are appended, never inserted (see docs/storage-format.md). The
`UNKNOWN` members are never written: they are how a reader keeps a row whose kind a newer writer added.
"""

from enum import StrEnum


class Language(StrEnum):
    GO = "go"
    TYPESCRIPT = "typescript"
    JAVASCRIPT = "javascript"
    RUST = "rust"
    PYTHON = "python"
    DART = "dart"


class SymbolKind(StrEnum):
    MODULE = "module"
    PACKAGE = "package"
    NAMESPACE = "namespace"
    CLASS = "class"
    INTERFACE = "interface"
    STRUCT = "struct"
    ENUM = "enum"
    ENUM_MEMBER = "enum_member"
    TRAIT = "trait"
    UNION = "union"
    TYPE = "type"
    TYPE_ALIAS = "type_alias"
    MIXIN = "mixin"
    EXTENSION = "extension"
    FUNCTION = "function"
    METHOD = "method"
    CONSTRUCTOR = "constructor"
    GETTER = "getter"
    SETTER = "setter"
    FIELD = "field"
    PROPERTY = "property"
    VARIABLE = "variable"
    CONSTANT = "constant"
    MACRO = "macro"
    UNKNOWN = "unknown"
    """Read from a newer writer's vocabulary; never written."""


TYPE_KINDS = frozenset(
    {
        SymbolKind.CLASS,
        SymbolKind.INTERFACE,
        SymbolKind.STRUCT,
        SymbolKind.ENUM,
        SymbolKind.TRAIT,
        SymbolKind.UNION,
        SymbolKind.TYPE,
        SymbolKind.TYPE_ALIAS,
        SymbolKind.MIXIN,
        SymbolKind.EXTENSION,
    }
)

CALLABLE_KINDS = frozenset(
    {
        SymbolKind.FUNCTION,
        SymbolKind.METHOD,
        SymbolKind.CONSTRUCTOR,
        SymbolKind.GETTER,
        SymbolKind.SETTER,
        SymbolKind.MACRO,
    }
)


class EdgeKind(StrEnum):
    CALLS_DIRECT = "CALLS_DIRECT"
    REFERENCES = "REFERENCES"
    TYPE_USES = "TYPE_USES"
    IMPORTS_SYMBOL = "IMPORTS_SYMBOL"
    EXPORTS = "EXPORTS"
    REEXPORTS = "REEXPORTS"
    IMPLEMENTS = "IMPLEMENTS"
    EXTENDS = "EXTENDS"
    EMBEDS = "EMBEDS"
    OVERRIDES = "OVERRIDES"
    PASSES_AS_CALLBACK = "PASSES_AS_CALLBACK"
    ASSIGNS_FUNCTION = "ASSIGNS_FUNCTION"
    RETURNS_FUNCTION = "RETURNS_FUNCTION"
    PART_OF = "PART_OF"
    CONTAINS = "CONTAINS"
    METHOD_OF = "METHOD_OF"
    UNKNOWN = "UNKNOWN"
    """Read from a newer writer's vocabulary; never written. Queries treat it as a use (it may be one)."""


FUNCTION_VALUE_KINDS = frozenset({EdgeKind.PASSES_AS_CALLBACK, EdgeKind.ASSIGNS_FUNCTION, EdgeKind.RETURNS_FUNCTION})
"""A function used as a value: said only of a callable target, otherwise the use is a REFERENCES."""

STRUCTURE_EDGE_KINDS = frozenset({EdgeKind.CONTAINS, EdgeKind.METHOD_OF})
"""Containment: queries treat these as the shape of the code, never as a use."""


class Confidence(StrEnum):
    """Declaration order is strength order: lower index, stronger evidence."""

    EXACT_TYPECHECKED = "EXACT_TYPECHECKED"
    EXACT_DECLARATION_MAPPED = "EXACT_DECLARATION_MAPPED"
    EXACT_PACKAGE_MAPPED = "EXACT_PACKAGE_MAPPED"
    STRUCTURAL_CERTAIN = "STRUCTURAL_CERTAIN"
    CANDIDATE = "CANDIDATE"
    UNRESOLVED = "UNRESOLVED"


EXACT_CONFIDENCES = frozenset(
    {
        Confidence.EXACT_TYPECHECKED,
        Confidence.EXACT_DECLARATION_MAPPED,
        Confidence.EXACT_PACKAGE_MAPPED,
        Confidence.STRUCTURAL_CERTAIN,
    }
)


class Provenance(StrEnum):
    SCIP_TYPESCRIPT = "SCIP_TYPESCRIPT"
    SCIP_PYTHON = "SCIP_PYTHON"
    SCIP_GO = "SCIP_GO"
    RUST_ANALYZER_SCIP = "RUST_ANALYZER_SCIP"
    SCIP_EXTERNAL = "SCIP_EXTERNAL"
    TREE_SITTER = "TREE_SITTER"
    MANIFEST = "MANIFEST"
    UNKNOWN = "UNKNOWN"
    """Read from a newer writer's vocabulary; never written, and never trusted as a type checker."""


class FileRole(StrEnum):
    """What a file is for, from its language's conventions (model/roles.py) or the repository's
    `[roles]` globs: answers list source rows first and count test rows unless asked for them."""

    SOURCE = "source"
    TEST = "test"
    EXAMPLE = "example"
    GENERATED = "generated"
    VENDORED = "vendored"
    DOCS = "docs"
    BENCHMARK = "benchmark"


class FileStatus(StrEnum):
    """What happened to one file of the tree; every file of a known language gets one."""

    INDEXED = "indexed"
    PARSE_ERRORS = "parse_errors"
    INVALID_UTF8 = "invalid_utf8"
    SKIPPED_BINARY = "skipped_binary"
    SKIPPED_TOO_LARGE = "skipped_too_large"
    SKIPPED_SYMLINK = "skipped_symlink"
    SKIPPED_GENERATED = "skipped_generated"
    SKIPPED_PARSE_TIMEOUT = "skipped_parse_timeout"
    UNKNOWN = "unknown"
    """Read from a newer writer's vocabulary; never written."""
