"""The syntax layer's contract: what a language adapter extracts from one file with tree-sitter.

Adapters fill these records from query captures; they never resolve names across files (that is
`languages/resolve.py`) and never compute stable keys (that is `indexing`). Positions: lines are
1-based, columns and byte offsets 0-based over the UTF-8 source.

The per-name records are NamedTuples rather than frozen dataclasses: a large file yields hundreds
of thousands of them and a NamedTuple is built three times faster, equally immutable.
"""

from dataclasses import dataclass
from enum import StrEnum
from typing import NamedTuple

from kivgraph.model import SymbolKind


class Role(StrEnum):
    """The syntactic position of a reference; the resolver turns it into an edge kind."""

    CALL = "call"
    READ = "read"
    TYPE = "type"
    CALLBACK = "callback"
    """A function value passed as an argument."""
    ASSIGN = "assign"
    """A function value assigned to a variable, field or property."""
    RETURN = "return"
    """A function value returned."""
    EXTENDS = "extends"
    IMPLEMENTS = "implements"
    EMBEDS = "embeds"


class Declaration(NamedTuple):
    """One declaration as written. Nesting (a method inside its class) is derived from byte ranges."""

    name: str
    kind: SymbolKind
    start_byte: int
    end_byte: int
    start_line: int
    end_line: int
    name_line: int
    name_column: int
    signature: str = ""
    exported: bool = False
    doc: str = ""
    owner: str = ""
    """Name of the owning type when it is not the enclosing declaration: a Go method's receiver
    type, a Rust method's `impl` target. Looked up in the file (Rust) or package (Go)."""
    opens_scope: bool = False
    """True for functions, methods, classes and other bodies whose locals are private to them."""
    type_name: str = ""
    """For a field, property, variable or constant: its declared type when syntax states it as a
    plain name (`order: Order`, `final Order order`, `logger = new Logger()`), so member accesses
    through it can be followed; "" otherwise."""


class Import(NamedTuple):
    """A name bound by an import (or a `mod`/`part` declaration), or a re-export."""

    module: str
    """The module as written: "./util", "a.b", "..pkg", "fmt", "crate::a::b", "package:x/y.dart"."""
    name: str | None
    """The member imported from that module; None when the module itself is bound."""
    local_name: str | None
    """The name the import binds in this file; None for a wildcard or a side-effect import."""
    line: int
    column: int = 0
    start_byte: int = 0
    wildcard: bool = False
    """Every public top-level name of the module becomes visible (`from m import *`, Dart imports)."""
    reexport: bool = False
    """The binding is part of this module's public surface (`export {x} from`, `pub use`)."""


class ExportAlias(NamedTuple):
    """`export { local as exported }`, `export default local`: a public name for a local one."""

    exported: str
    local: str
    line: int


class Binding(NamedTuple):
    """A local name (parameter, local variable, receiver) that shadows outer declarations.

    `type_name` is the declared type when syntax states it as a plain name (`s *Server`,
    `a: Foo`), so `s.method()` can be looked up in that type; otherwise "".
    """

    name: str
    start_byte: int
    type_name: str = ""


class Reference(NamedTuple):
    """A use of a name: `names` is the dotted or `::` path as written, head first.

    `("foo",)` for `foo()`, `("pkg", "Func")` for `pkg.Func`, `("self", "m")` for `self.m()`,
    `("", "m")` when the receiver is an expression syntax cannot name (`f().m()`).
    `module`, when set, says the head is looked up in that module rather than in lexical scope
    (Rust `crate::a::f` → module "crate::a", names ("f",)).
    `subject` names the declaring type when it is not the enclosing declaration (Rust
    `impl Trait for Foo` → subject "Foo" for the IMPLEMENTS reference to Trait).
    """

    names: tuple[str, ...]
    role: Role
    line: int
    column: int
    start_byte: int
    module: str = ""
    subject: str = ""


class SyntaxProblem(NamedTuple):
    """A part of the file that did not parse; the rest of the file's facts still stand."""

    line: int
    detail: str


@dataclass(frozen=True, slots=True)
class FileSyntax:
    path: str
    declarations: tuple[Declaration, ...] = ()
    imports: tuple[Import, ...] = ()
    references: tuple[Reference, ...] = ()
    bindings: tuple[Binding, ...] = ()
    exports: tuple[ExportAlias, ...] = ()
    problems: tuple[SyntaxProblem, ...] = ()
    package_clause: str = ""
    """Go's `package x`, Dart's `library x` / `part of x`; "" elsewhere."""
    timed_out: bool = False
    """Parsing ran past its time budget: the file holds no facts (see treesitter.parse_tree)."""
    test_regions: tuple[tuple[int, int], ...] = ()
    """Line ranges (1-based, inclusive) of test code inside the file: Rust's `#[cfg(test)]` modules
    and `#[test]` functions. What they declare has the role `test` whatever the file's role."""
