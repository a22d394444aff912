"""One parsed file seen as scopes: declaration nesting, qualified names, and lookups by name.

Built once per file from its `FileSyntax`; the resolver asks it "what encloses this byte", "what
is declared under this name here". Pure computation over one file; keys come from `indexing`.
"""

from bisect import bisect_right
from dataclasses import dataclass, field

from kivgraph.languages.syntax import Binding, Declaration, FileSyntax, Import, Role
from kivgraph.model import TYPE_KINDS, Language, Package, Symbol, SymbolKind

HERITAGE_ROLES = frozenset({Role.EXTENDS, Role.IMPLEMENTS, Role.EMBEDS})


def nest(declarations: tuple[Declaration, ...]) -> list[int]:
    """Parent index of each declaration (-1 at top level), from byte-range containment."""
    parents = [-1] * len(declarations)
    order = sorted(range(len(declarations)), key=lambda i: (declarations[i].start_byte, -declarations[i].end_byte, i))
    stack: list[int] = []
    for i in order:
        d = declarations[i]
        while stack and declarations[stack[-1]].end_byte <= d.start_byte:
            stack.pop()
        while stack and declarations[stack[-1]].end_byte < d.end_byte:
            stack.pop()  # overlapping, not nested: not a container
        if stack:
            parents[i] = stack[-1]
        stack.append(i)
    return parents


def qualified_names(declarations: tuple[Declaration, ...], parents: list[int], separator: str) -> list[str]:
    """`Outer.inner` from nesting; a declaration with an `owner` reads `Owner.name` wherever it sits
    (a Go receiver, a Rust impl, a TypeScript constructor's parameter property)."""
    names: list[str] = []
    for i in range(len(declarations)):
        chain: list[str] = []
        j = i
        while j >= 0:
            chain.append(declarations[j].name)
            if declarations[j].owner:
                chain.append(declarations[j].owner)
                break
            j = parents[j]
        names.append(separator.join(reversed(chain)))
    return names


def module_qualified_name(path: str) -> str:
    """`pkg/sub/mod.py` → `pkg.sub.mod`: the module symbol's qualified name."""
    stem = path
    name = path.rpartition("/")[2]
    if name.endswith(".d.ts"):
        stem = path[: -len(".d.ts")]
    elif "." in name:
        stem = path[: path.rfind(".")]
    return stem.replace("/", ".")


@dataclass(slots=True)
class FileScopes:
    """Everything the resolver needs to know about one file, keyed and indexed."""

    path: str
    language: Language
    syntax: FileSyntax
    package: Package | None
    parents: list[int]
    qualified_names: list[str]
    keys: list[str] = field(default_factory=list[str])
    module_key: str = ""
    starts: list[int] = field(default_factory=list[int])
    order: list[int] = field(default_factory=list[int])
    top: dict[str, list[int]] = field(default_factory=dict[str, list[int]])
    children: dict[int, dict[str, list[int]]] = field(default_factory=dict[int, dict[str, list[int]]])
    imports: dict[str, list[Import]] = field(default_factory=dict[str, list[Import]])
    wildcards: list[Import] = field(default_factory=list[Import])
    exports: dict[str, str] = field(default_factory=dict[str, str])
    bindings: dict[int, dict[str, Binding]] = field(default_factory=dict[int, dict[str, Binding]])
    heritage: dict[int, list[int]] = field(default_factory=dict[int, list[int]])
    """Type declaration → indexes of its extends/implements/embeds references."""

    @classmethod
    def build(
        cls, path: str, language: Language, syntax: FileSyntax, package: Package | None, separator: str
    ) -> "FileScopes":
        decls = syntax.declarations
        parents = nest(decls)
        scopes = cls(path, language, syntax, package, parents, qualified_names(decls, parents, separator))
        scopes.order = sorted(range(len(decls)), key=lambda i: (decls[i].start_byte, -decls[i].end_byte, i))
        scopes.starts = [decls[i].start_byte for i in scopes.order]
        for i, d in enumerate(decls):
            parent = parents[i]
            if parent < 0 and not d.owner:
                scopes.top.setdefault(d.name, []).append(i)
            elif parent >= 0:
                scopes.children.setdefault(parent, {}).setdefault(d.name, []).append(i)
        for imp in syntax.imports:
            if imp.local_name:
                scopes.imports.setdefault(imp.local_name, []).append(imp)
            elif imp.wildcard:
                scopes.wildcards.append(imp)
        for alias in syntax.exports:
            scopes.exports[alias.exported] = alias.local
        for binding in syntax.bindings:
            owner = scopes.scope_at(binding.start_byte)
            scopes.bindings.setdefault(owner, {}).setdefault(binding.name, binding)
        for r_index, ref in enumerate(syntax.references):
            if ref.role in HERITAGE_ROLES:
                subject = scopes.heritage_subject(ref.start_byte, ref.subject)
                if subject >= 0:
                    scopes.heritage.setdefault(subject, []).append(r_index)
        return scopes

    def enclosing(self, byte: int) -> list[int]:
        """Declarations containing `byte`, innermost first."""
        decls = self.syntax.declarations
        pos = bisect_right(self.starts, byte) - 1
        if pos < 0:
            return []
        i = self.order[pos]
        while i >= 0 and not (decls[i].start_byte <= byte < decls[i].end_byte):
            i = self.parents[i]
        chain: list[int] = []
        while i >= 0:
            chain.append(i)
            i = self.parents[i]
        return chain

    def scope_at(self, byte: int) -> int:
        """The innermost scope-opening declaration around `byte` (-1: the file)."""
        for i in self.enclosing(byte):
            if self.syntax.declarations[i].opens_scope:
                return i
        return -1

    def heritage_subject(self, byte: int, subject: str) -> int:
        if subject:
            found = [i for i in self.top.get(subject, []) if self.syntax.declarations[i].kind in TYPE_KINDS]
            return found[-1] if found else -1
        for i in self.enclosing(byte):
            if self.syntax.declarations[i].kind in TYPE_KINDS:
                return i
        return -1

    def is_type(self, i: int) -> bool:
        return self.syntax.declarations[i].kind in TYPE_KINDS

    def is_namespace(self, i: int) -> bool:
        return self.syntax.declarations[i].kind in (SymbolKind.MODULE, SymbolKind.NAMESPACE)

    def last_binding(self, candidates: list[int]) -> list[int]:
        """Same-named declarations of one scope in one file: the later one is what the name means."""
        if len(candidates) > 1 and len({self.parents[i] for i in candidates}) == 1:
            return [max(candidates, key=lambda i: self.syntax.declarations[i].start_byte)]
        return candidates


def is_file_module(symbol: Symbol) -> bool:
    """Whether the symbol is a file's own module (not a declaration: its name is the file's)."""
    return (symbol.kind is SymbolKind.MODULE and (symbol.name_line, symbol.name_column) == (1, 0)
            and symbol.qualified_name == module_qualified_name(symbol.file))  # fmt: skip
