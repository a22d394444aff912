"""The Go adapter: the language's rules as data, plus entry points into extraction and modules.

Holds no state between files; parsing is `extract.py`, module and package lookup is `modules.py`.
"""

from kivgraph.languages import ModuleTarget, RepoLayout
from kivgraph.languages.go.extract import go_syntax
from kivgraph.languages.go.modules import go_packages, resolve_go_module
from kivgraph.languages.syntax import FileSyntax
from kivgraph.model import Language, Package

# The Go specification's predeclared identifiers.
PREDECLARED = frozenset(
    {
        "any", "bool", "byte", "comparable", "complex64", "complex128", "error", "float32", "float64",
        "int", "int8", "int16", "int32", "int64", "rune", "string",
        "uint", "uint8", "uint16", "uint32", "uint64", "uintptr",
        "true", "false", "iota", "nil",
        "append", "cap", "clear", "close", "complex", "copy", "delete", "imag", "len", "make",
        "max", "min", "new", "panic", "print", "println", "real", "recover",
    }
)  # fmt: skip


class GoAdapter:
    language = Language.GO
    extensions = (".go",)
    separator = "."
    package_scope = True
    implicit_member_scope = False
    imports_visible_as_members = False
    self_names: frozenset[str] = frozenset()
    static_self_names = frozenset[str]()
    builtins = PREDECLARED

    def parse(self, path: str, source: bytes) -> FileSyntax:
        return go_syntax(path, source)

    def packages(self, layout: RepoLayout, files: list[str]) -> dict[str, Package]:
        return go_packages(layout, files)

    def resolve_module(self, spec: str, from_file: str, layout: RepoLayout) -> ModuleTarget:
        return resolve_go_module(spec, from_file, layout)
