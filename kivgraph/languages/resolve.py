"""The fallback resolver: follows imports and lexical scopes across the files of one tree.

Shared by every language (rules come from each adapter's attributes); the contract is
docs/syntax-layer.md. It emits CANDIDATE edges (STRUCTURAL_CERTAIN for METHOD_OF), external
references and unresolved records; it never picks between two same-named declarations.
"""

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import Enum, auto

from kivgraph.languages import LanguageAdapter, ModuleTarget, RepoLayout
from kivgraph.languages.scopes import FileScopes, module_qualified_name
from kivgraph.languages.syntax import Import, Reference, Role
from kivgraph.model import (
    CALLABLE_KINDS,
    Confidence,
    Edge,
    EdgeKind,
    ExternalReference,
    Language,
    Provenance,
    SymbolKind,
    Unresolved,
)

MODULE = -1
"""Declaration index that stands for a file's module symbol."""
MAX_DEPTH = 16

ROLE_EDGE = {
    Role.CALL: EdgeKind.CALLS_DIRECT,
    Role.READ: EdgeKind.REFERENCES,
    Role.TYPE: EdgeKind.TYPE_USES,
    Role.CALLBACK: EdgeKind.PASSES_AS_CALLBACK,
    Role.ASSIGN: EdgeKind.ASSIGNS_FUNCTION,
    Role.RETURN: EdgeKind.RETURNS_FUNCTION,
    Role.EXTENDS: EdgeKind.EXTENDS,
    Role.IMPLEMENTS: EdgeKind.IMPLEMENTS,
    Role.EMBEDS: EdgeKind.EMBEDS,
}
FUNCTION_VALUE_ROLES = frozenset({Role.CALLBACK, Role.ASSIGN, Role.RETURN})
REEXPORT_DOES_NOT_BIND = frozenset({Language.TYPESCRIPT, Language.JAVASCRIPT, Language.DART})
"""Languages whose wildcard re-export publishes names without binding them in the file (Rust's does)."""
SUBMODULE_SEPARATOR = {Language.PYTHON: ".", Language.RUST: "::"}
"""Languages where `module.name` may name a submodule rather than a member."""


@dataclass(frozen=True, slots=True)
class DeclRef:
    path: str
    index: int


@dataclass(frozen=True, slots=True)
class ModuleRef:
    files: tuple[str, ...]
    spec: str
    from_file: str
    language: Language


def one_module(files: tuple[str, ...]) -> bool:
    """Files of one stem (`m.py` and its `m.pyi` stub) are one module; a Go package's files are not."""
    return bool(files) and len({module_qualified_name(p) for p in files}) == 1


class Status(Enum):
    DECL = auto()
    MODULE = auto()
    EXTERNAL = auto()
    UNRESOLVED = auto()
    UNKNOWN_RECEIVER = auto()
    LOCAL = auto()
    NOTHING = auto()


@dataclass(frozen=True, slots=True)
class Outcome:
    status: Status
    decl: DeclRef | None = None
    module: ModuleRef | None = None
    via: DeclRef | None = None
    """The last declaration reached before the path could not be followed further."""
    package: str = ""
    symbol: str = ""
    reason: str = ""
    detail: str = ""
    language: Language | None = None
    """For EXTERNAL: the language whose separator joins the symbol path."""
    named: bool = False
    """A blind spot that exists only if some declaration in the tree has `symbol`'s name (a use no
    declaration could be hides nothing of ours): see Held."""


LOCAL = Outcome(Status.LOCAL)
NOTHING = Outcome(Status.NOTHING)


Held = list[tuple[Edge | Unresolved, str]]
"""Rows whose existence waits on a name: a blind spot (and the edge to where its path stopped) is
recorded only when some declaration in the tree carries the name it looked for. Facts hold back
those whose name no declaration in sight has; a caller that sees only part of the tree (a shard,
kivgraph/compose.py) decides them once every declaration is known, and one that sees all drops them."""


@dataclass(slots=True)
class Facts:
    edges: list[Edge]
    external_references: list[ExternalReference]
    unresolved: list[Unresolved]
    held: Held = field(default_factory=Held)


class Resolver:
    def __init__(
        self,
        files: dict[str, FileScopes],
        layout: RepoLayout,
        adapters: dict[Language, LanguageAdapter],
        names_elsewhere: frozenset[str] = frozenset(),
        facts_of: frozenset[str] | None = None,
    ) -> None:
        """`names_elsewhere`: the names declared in files of the tree not given here (kivgraph/reuse.py
        resolves a few units): a use no declaration could be is not recorded as unresolved, so
        which names exist anywhere in the tree decides what is; a row waiting on a name declared
        nowhere in sight is held (Facts.held).

        `facts_of`: the files whose uses are resolved (None: every one). The others are there for
        their declarations (a shard's units reach them); they state only their structure (METHOD_OF,
        which the exact layer's confirmation of a trait's members reads)."""
        self.files = files
        self.facts_of = facts_of
        self.layout = layout
        self.adapters = adapters
        self.names: set[str] = {d.name for f in files.values() for d in f.syntax.declarations} | names_elsewhere
        self._modules: dict[tuple[Language, str, str], ModuleTarget] = {}
        self._bases: dict[DeclRef, list[DeclRef]] = {}
        # Outcomes depend only on where a path is written (its innermost declaration) and the path:
        # memoized, since the same names recur throughout a file.
        self._paths: dict[tuple[str, int, tuple[str, ...]], Outcome] = {}
        self._outer: dict[tuple[str, str, tuple[str, ...]], Outcome] = {}
        self._members: dict[tuple[DeclRef | tuple[str, ...], str], Outcome] = {}
        self._seeking: set[tuple[tuple[str, ...], str]] = set()
        """The module members being looked for (module_member), to cut re-exports that go round."""
        self._cut_short = 0
        self.owned: dict[tuple[str, str], dict[str, list[DeclRef]]] = {}
        self.package_top: dict[tuple[str, str], dict[str, list[DeclRef]]] = {}
        self.library_of: dict[str, str] = {}
        """Dart part file → the library file that includes it with `part`."""
        self.part_directives: dict[str, tuple[str, int]] = {}
        """Dart part file → (its library, the line of the library's `part` directive)."""
        for f in files.values():
            if f.language is Language.DART:
                self._link_parts(f)
        for f in files.values():
            adapter = adapters[f.language]
            for i, d in enumerate(f.syntax.declarations):
                if d.owner:
                    bucket = self.owned.setdefault((self._owner_scope(f), d.owner), {})
                    bucket.setdefault(d.name, []).append(DeclRef(f.path, i))
            if adapter.package_scope:
                group = self.package_top.setdefault(self._package_group(f), {})
                for name, indexes in f.top.items():
                    group.setdefault(name, []).extend(DeclRef(f.path, i) for i in indexes)

    # -- scopes of sharing ---------------------------------------------------------------------

    def _link_parts(self, library: FileScopes) -> None:
        for imp in library.wildcards:
            target = self.module(library, imp.module)
            if len(target.files) != 1 or target.files[0] not in self.files:
                continue
            part = self.files[target.files[0]]
            clause = part.syntax.package_clause
            if not clause or part.path == library.path:
                continue
            if clause.endswith(".dart"):
                belongs = self.module(part, clause).files == (library.path,)
            else:
                belongs = clause == library.syntax.package_clause
            if belongs:
                self.library_of[part.path] = library.path
                self.part_directives[part.path] = (library.path, imp.line)

    def _package_group(self, f: FileScopes) -> tuple[str, str]:
        return (f.path.rpartition("/")[0], f.syntax.package_clause)

    def _owner_scope(self, f: FileScopes) -> str:
        return "\x00".join(self._package_group(f)) if self.adapters[f.language].package_scope else f.path

    def module(self, f: FileScopes, spec: str) -> ModuleTarget:
        key = (f.language, spec, f.path)
        found = self._modules.get(key)
        if found is None:
            found = self._modules[key] = self.adapters[f.language].resolve_module(spec, f.path, self.layout)
        return found

    # -- running -------------------------------------------------------------------------------

    def run(self) -> Facts:
        sink = _Sink(self)
        for f in self.files.values():
            for i, d in enumerate(f.syntax.declarations):
                if d.kind in CALLABLE_KINDS or d.kind == SymbolKind.FIELD:
                    owner = self.owning_type(f, i)
                    if owner is not None:
                        sink.edge(f.keys[i], owner, EdgeKind.METHOD_OF, f, d.name_line, Confidence.STRUCTURAL_CERTAIN)
            if self.facts_of is not None and f.path not in self.facts_of:
                continue
            for imp in f.syntax.imports:
                source = self.source_key(f, imp.start_byte, "")
                kind = EdgeKind.REEXPORTS if imp.reexport else EdgeKind.IMPORTS_SYMBOL
                sink.emit(f, source, imp.line, self.import_outcome(f, imp), kind, kind)
            for ref in f.syntax.references:
                chain = f.enclosing(ref.start_byte)
                source = self.source_key(f, ref.start_byte, ref.subject, chain)
                if ref.role is Role.EMBEDS and not ref.subject:
                    # An embedded field is a declaration of its own (Go); what embeds is its type.
                    embedder = f.heritage_subject(ref.start_byte, "")
                    source = f.keys[embedder] if embedder >= 0 else source
                outcome = self.reference_outcome(f, ref, chain)
                if outcome.status is not Status.DECL and self.implements_member(f, ref, chain):
                    continue  # its `impl` header's reference already records where the trait went
                kind = self.edge_kind(ref.role, outcome.decl) if outcome.decl is not None else EdgeKind.REFERENCES
                certain = self.own_member(f, ref.names, chain, outcome)
                sink.emit(f, source, ref.line, outcome, kind, EdgeKind.REFERENCES,
                          Confidence.STRUCTURAL_CERTAIN if certain else Confidence.CANDIDATE)  # fmt: skip
        for part, (library, line) in self.part_directives.items():
            if self.facts_of is not None and library not in self.facts_of:
                continue
            # `part 'x.dart'` in the library and `part of` in x.dart: x.dart is part of that library.
            sink.edge(self.files[part].module_key, DeclRef(library, MODULE), EdgeKind.PART_OF, self.files[library],
                      line, Confidence.STRUCTURAL_CERTAIN)  # fmt: skip
        return sink.facts

    def own_member(self, f: FileScopes, names: tuple[str, ...], chain: list[int], outcome: Outcome) -> bool:
        """`this.x` naming a member the enclosing class itself declares, in a language whose `this`
        is always that class's instance (Dart): certain from syntax alone."""
        if len(names) != 2 or names[0] not in self.adapters[f.language].static_self_names:
            return False
        decl = outcome.decl if outcome.status is Status.DECL else None
        if decl is None or decl.path != f.path or decl.index < 0:
            return False
        enclosing = next((i for i in chain if f.is_type(i)), -1)
        return enclosing >= 0 and f.parents[decl.index] == enclosing

    def key(self, target: DeclRef) -> str | None:
        f = self.files.get(target.path)
        if f is None:
            return None
        return f.module_key if target.index == MODULE else f.keys[target.index]

    def source_key(self, f: FileScopes, byte: int, subject: str, chain: list[int] | None = None) -> str:
        if subject:
            i = f.heritage_subject(byte, subject)
            if i >= 0:
                return f.keys[i]
        if chain is None:
            chain = f.enclosing(byte)
        return f.keys[chain[0]] if chain else f.module_key

    def implements_member(self, f: FileScopes, ref: Reference, chain: list[int]) -> bool:
        """An IMPLEMENTS reference written at a method's name: that method implements the trait's
        method of its name (Rust `impl Trait for Type`)."""
        if ref.role is not Role.IMPLEMENTS or not chain:
            return False
        d = f.syntax.declarations[chain[0]]
        return d.kind in CALLABLE_KINDS and (d.name_line, d.name_column) == (ref.line, ref.column)

    def edge_kind(self, role: Role, target: DeclRef) -> EdgeKind:
        if role in FUNCTION_VALUE_ROLES:
            f = self.files[target.path]
            if target.index == MODULE or f.syntax.declarations[target.index].kind not in CALLABLE_KINDS:
                return EdgeKind.REFERENCES
        return ROLE_EDGE[role]

    # -- outcomes ------------------------------------------------------------------------------

    def import_outcome(self, f: FileScopes, imp: Import) -> Outcome:
        target = self.module(f, imp.module)
        if imp.name is None or imp.wildcard:
            if target.external:
                return Outcome(Status.EXTERNAL, package=target.external)
            if target.reason:
                return Outcome(Status.UNRESOLVED, reason=target.reason, package=imp.module)
            return Outcome(Status.MODULE, module=ModuleRef(target.files, imp.module, f.path, f.language))
        return self.via_import(f, imp, (), 0)

    def reference_outcome(self, f: FileScopes, ref: Reference, chain: list[int] | None = None) -> Outcome:
        if ref.module:
            target = self.module(f, ref.module)
            return self.from_module_target(f, target, ref.module, None, ref.names, 0)
        if chain is None:
            chain = f.enclosing(ref.start_byte)
        key = (f.path, chain[0] if chain else MODULE, ref.names)
        found = self._paths.get(key)
        if found is None:
            found = self.lookup_path(f, chain, ref.names, 0)
            if found.reason != "RESOLUTION_TOO_DEEP":
                self._paths[key] = found
        return found

    def lookup_path(self, f: FileScopes, chain: list[int], names: tuple[str, ...], depth: int) -> Outcome:
        head, rest = names[0], names[1:]
        if not head:
            return self.unknown_receiver(rest[0] if rest else "", None)
        adapter = self.adapters[f.language]
        decls = f.syntax.declarations
        for i in chain:
            if decls[i].opens_scope:
                binding = f.bindings.get(i, {}).get(head)
                if binding is not None:
                    if not rest:
                        return LOCAL
                    if binding.type_name and depth < MAX_DEPTH:
                        type_path = tuple(binding.type_name.split(adapter.separator))
                        typed = self.lookup_path(f, chain, type_path, depth + 1)
                        if typed.status is Status.DECL and typed.decl is not None and self.is_type(typed.decl):
                            return self.then(typed, rest, depth + 1)
                    return self.unknown_receiver(rest[0], None)
            if not f.is_type(i):
                # The members of a value (an object literal, `const h = { a() {}, b() {} }`) are
                # not names in scope within `h.a`; a module's or a namespace's declarations are.
                kids = f.children.get(i, {}).get(head) if decls[i].kind not in VALUE_KINDS else None
                if kids:
                    return self.choose(f.path, f.last_binding(kids), head, rest, depth)
            elif adapter.implicit_member_scope:
                members = self.members(DeclRef(f.path, i), head, set())
                if members:
                    return self.choose_refs(members, head, rest, depth)
        file_binding = f.bindings.get(MODULE, {}).get(head)
        if file_binding is not None and head not in f.top:
            # A name bound outside any declaration (a callback's parameter at file level).
            if not rest:
                return LOCAL
            return self.unknown_receiver(rest[0], None)
        if head in adapter.self_names:
            if not rest:
                return NOTHING
            owner = self.enclosing_type(f, chain, depth)
            if owner is None:
                return self.unknown_receiver(rest[0], None)
            return self.then(Outcome(Status.DECL, decl=owner), rest, depth)
        return self.lookup_outer(f, head, rest, depth)

    def lookup_outer(self, f: FileScopes, head: str, rest: tuple[str, ...], depth: int) -> Outcome:
        """A name at file level: declarations, imports, the package's other files, wildcards, builtins."""
        key = (f.path, head, rest)
        found = self._outer.get(key)
        if found is None:
            found = self._lookup_outer(f, head, rest, depth)
            if found.reason != "RESOLUTION_TOO_DEEP":
                self._outer[key] = found
        return found

    def _lookup_outer(self, f: FileScopes, head: str, rest: tuple[str, ...], depth: int) -> Outcome:
        if depth > MAX_DEPTH:
            return Outcome(Status.UNRESOLVED, reason="RESOLUTION_TOO_DEEP", symbol=head)
        adapter = self.adapters[f.language]
        top = f.top.get(head)
        if top:
            return self.choose(f.path, f.last_binding(top), head, rest, depth)
        imports = f.imports.get(head)
        if imports:
            return self.via_import(f, imports[-1], rest, depth + 1)
        if adapter.package_scope:
            shared = [r for r in self.package_top.get(self._package_group(f), {}).get(head, []) if r.path != f.path]
            if shared:
                return self.choose_refs(shared, head, rest, depth)
        library = self.library_of.get(f.path)
        if library is not None:
            # A Dart part shares its library's scope: its declarations, imports and other parts.
            return self.lookup_outer(self.files[library], head, rest, depth + 1)
        found: list[DeclRef] = []
        for imp in f.wildcards:
            if imp.reexport and f.language in REEXPORT_DOES_NOT_BIND:
                continue  # `export * from` re-exports; it does not bring names into this file
            target = self.module(f, imp.module)
            if not target.files:
                continue
            outcome = self.module_member(ModuleRef(target.files, imp.module, f.path, f.language), head, depth + 1)
            decl = outcome.decl
            if outcome.status is Status.DECL and decl is not None and self.visible_through(decl, f):
                found.append(decl)
        if found:
            return self.choose_refs(found, head, rest, depth)
        if head in adapter.builtins:
            return NOTHING
        return Outcome(Status.UNRESOLVED, reason="NAME_NOT_RESOLVED", symbol=head, named=True)

    def via_import(self, f: FileScopes, imp: Import, rest: tuple[str, ...], depth: int) -> Outcome:
        target = self.module(f, imp.module)
        return self.from_module_target(f, target, imp.module, imp.name, rest, depth)

    def from_module_target(
        self, f: FileScopes, target: ModuleTarget, spec: str, name: str | None, rest: tuple[str, ...], depth: int
    ) -> Outcome:
        path_names = ((name,) if name else ()) + tuple(rest)
        if target.external:
            separator = self.adapters[f.language].separator
            return Outcome(
                Status.EXTERNAL, package=target.external, symbol=separator.join(path_names), language=f.language
            )
        if target.reason:
            return Outcome(
                Status.UNRESOLVED, reason=target.reason, package=spec, symbol=path_names[0] if path_names else ""
            )
        module = Outcome(Status.MODULE, module=ModuleRef(target.files, spec, f.path, f.language))
        return self.then(module, path_names, depth)

    def then(self, outcome: Outcome, rest: tuple[str, ...], depth: int) -> Outcome:
        """Follow the rest of a path member by member from a declaration or a module."""
        for position, name in enumerate(rest):
            if depth > MAX_DEPTH:
                return Outcome(Status.UNRESOLVED, reason="RESOLUTION_TOO_DEEP", symbol=name)
            if outcome.status is Status.MODULE and outcome.module is not None:
                outcome = self.module_member(outcome.module, name, depth + 1)
            elif outcome.status is Status.DECL and outcome.decl is not None:
                outcome = self.decl_member(outcome.decl, name, depth + 1)
            else:
                return outcome
            if outcome.status is Status.EXTERNAL and position + 1 < len(rest):
                separator = self.adapters[outcome.language].separator if outcome.language else "."
                return Outcome(
                    Status.EXTERNAL,
                    package=outcome.package,
                    language=outcome.language,
                    symbol=separator.join((outcome.symbol, *rest[position + 1 :])),
                )
        return outcome

    def module_member(self, module: ModuleRef, name: str, depth: int) -> Outcome:
        """`name` as a member of `module`. Re-exports may go round (`a.ts` re-exports all of `b.ts`,
        which re-exports all of `a.ts`): a module asked again for a name it is still looking for
        adds nothing to what the first asking finds, and an answer reached with such a loop cut
        short is kept only when it found the name (what it did not find may yet be found by the
        module asked first)."""
        key = (module.files, name)
        cached = self._members.get(key)
        if cached is not None:
            return cached
        if key in self._seeking or depth > MAX_DEPTH:
            self._cut_short += 1
            reason = "EXPORT_NOT_FOUND" if key in self._seeking else "RESOLUTION_TOO_DEEP"
            return Outcome(Status.UNRESOLVED, reason=reason, package=module.spec, symbol=name)
        cuts = self._cut_short
        self._seeking.add(key)
        try:
            found = self._module_member(module, name, depth)
        finally:
            self._seeking.discard(key)
        complete = cuts == self._cut_short or found.status in (Status.DECL, Status.MODULE)
        if complete and found.reason != "RESOLUTION_TOO_DEEP":
            self._members[key] = found
        return found

    def _module_member(self, module: ModuleRef, name: str, depth: int) -> Outcome:
        found: list[DeclRef] = []
        # A module seen through several files of one stem (`m.py` + its `m.pyi` stub) is one module:
        # the first file that declares the name answers. Files of different stems (a Go package)
        # are different declarations, and a name in two of them is ambiguous.
        single = one_module(module.files)
        for path in module.files:
            other = self.files.get(path)
            if other is not None:
                found.extend(DeclRef(path, i) for i in other.last_binding(other.top.get(name, [])))
                if found and single:
                    break
        if found:
            return self.choose_refs(found, name, (), depth)
        for path in module.files:
            other = self.files.get(path)
            if other is None:
                continue
            adapter = self.adapters[other.language]
            alias = other.exports.get(name)
            if alias is not None and alias != name:
                return self.lookup_outer(other, alias, (), depth + 1)
            imports = other.imports.get(name)
            # `from . import sub` inside a package's __init__ names the submodule, found further down.
            if (
                imports
                and (imports[-1].reexport or adapter.imports_visible_as_members or alias == name)
                and other.path not in self.module(other, imports[-1].module).files
            ):
                return self.via_import(other, imports[-1], (), depth + 1)
            for imp in other.wildcards:
                if imp.reexport or adapter.imports_visible_as_members:
                    target = self.module(other, imp.module)
                    if target.files:
                        sub = ModuleRef(target.files, imp.module, other.path, other.language)
                        outcome = self.module_member(sub, name, depth + 1)
                        if outcome.status in (Status.DECL, Status.MODULE):
                            return outcome
        separator = SUBMODULE_SEPARATOR.get(module.language)
        if separator is not None:
            origin = self.files.get(module.from_file)
            if origin is not None:
                spec = f"{module.spec}{name}" if module.spec.endswith(".") else f"{module.spec}{separator}{name}"
                target = self.module(origin, spec)
                if target.files:
                    return Outcome(
                        Status.MODULE, module=ModuleRef(target.files, spec, module.from_file, module.language)
                    )
        via = DeclRef(module.files[0], MODULE) if one_module(module.files) else None
        return Outcome(Status.UNRESOLVED, reason="EXPORT_NOT_FOUND", package=module.spec, symbol=name, via=via)

    def decl_member(self, target: DeclRef, name: str, depth: int) -> Outcome:
        key = (target, name)
        cached = self._members.get(key)
        if cached is None:
            cached = self._decl_member(target, name, depth)
            if cached.reason != "RESOLUTION_TOO_DEEP":
                self._members[key] = cached
        return cached

    def _decl_member(self, target: DeclRef, name: str, depth: int) -> Outcome:
        f = self.files[target.path]
        if target.index == MODULE:
            return self.module_member(ModuleRef((f.path,), f.path, f.path, f.language), name, depth)
        members = self.members(target, name, set())
        if not members and not (self.is_type(target) or f.is_namespace(target.index)):
            typed = self.declared_type(target, depth)
            if typed is None:
                return self.unknown_receiver(name, target)
            return self.then(Outcome(Status.DECL, decl=typed), (name,), depth + 1)
        if not members:
            return Outcome(
                Status.UNRESOLVED,
                reason="MEMBER_NOT_FOUND",
                symbol=name,
                via=target,
                detail=f"{f.qualified_names[target.index]} has no member {name} that syntax can see",
                named=True,
            )
        return self.choose_refs(members, name, (), depth)

    def declared_type(self, target: DeclRef, depth: int) -> DeclRef | None:
        """The type a field or variable is declared with, looked up where the declaration is written."""
        f = self.files[target.path]
        type_name = f.syntax.declarations[target.index].type_name
        if not type_name or depth > MAX_DEPTH:
            return None
        chain = f.enclosing(f.syntax.declarations[target.index].start_byte)
        outcome = self.lookup_path(
            f,
            chain[1:] if chain and chain[0] == target.index else chain,
            tuple(type_name.split(self.adapters[f.language].separator)),
            depth + 1,
        )
        if outcome.status is Status.DECL and outcome.decl is not None and self.is_type(outcome.decl):
            return outcome.decl
        return None

    def members(self, target: DeclRef, name: str, visited: set[DeclRef]) -> list[DeclRef]:
        if target in visited:
            return []
        visited.add(target)
        f = self.files[target.path]
        found = [DeclRef(f.path, i) for i in f.last_binding(f.children.get(target.index, {}).get(name, []))]
        decl = f.syntax.declarations[target.index]
        found.extend(self.owned.get((self._owner_scope(f), decl.name), {}).get(name, []))
        if found:
            return found
        for base in self.bases(target):
            inherited = self.members(base, name, visited)
            if inherited:
                return inherited
        return []

    def bases(self, target: DeclRef) -> list[DeclRef]:
        cached = self._bases.get(target)
        if cached is not None:
            return cached
        self._bases[target] = []  # breaks cycles while this one is computed
        f = self.files[target.path]
        found: list[DeclRef] = []
        for r_index in f.heritage.get(target.index, []):
            ref = f.syntax.references[r_index]
            if ref.role is Role.EXTENDS or ref.role is Role.EMBEDS:
                outcome = self.reference_outcome(f, ref)
                if outcome.status is Status.DECL and outcome.decl is not None and outcome.decl != target:
                    found.append(outcome.decl)
        self._bases[target] = found
        return found

    def enclosing_type(self, f: FileScopes, chain: list[int], depth: int) -> DeclRef | None:
        for i in chain:
            if f.is_type(i):
                return DeclRef(f.path, i)
            owner = f.syntax.declarations[i].owner
            if owner:
                outcome = self.lookup_outer(f, owner, (), depth + 1)
                if outcome.status is Status.DECL and outcome.decl is not None and self.is_type(outcome.decl):
                    return outcome.decl
                return None
        return None

    def owning_type(self, f: FileScopes, i: int) -> DeclRef | None:
        """The type a method or field belongs to, when syntax proves it."""
        owner = f.syntax.declarations[i].owner
        if not owner:
            parent = f.parents[i]
            return DeclRef(f.path, parent) if parent >= 0 and f.is_type(parent) else None
        candidates = [i for i in f.top.get(owner, []) if f.is_type(i)]
        refs = [DeclRef(f.path, c) for c in candidates]
        if not refs and self.adapters[f.language].package_scope:
            refs = [r for r in self.package_top.get(self._package_group(f), {}).get(owner, []) if self.is_type(r)]
        return refs[0] if len(refs) == 1 else None

    def visible_through(self, decl: DeclRef, importer: FileScopes) -> bool:
        """Whether a wildcard import shows this declaration (Dart hides `_private` names but from parts)."""
        other = self.files[decl.path]
        if other.language is not Language.DART or decl.index == MODULE:
            return True
        return other.syntax.declarations[decl.index].exported or self.library_of.get(decl.path) == importer.path

    def is_type(self, target: DeclRef) -> bool:
        return target.index != MODULE and self.files[target.path].is_type(target.index)

    # -- choosing ------------------------------------------------------------------------------

    def choose(self, path: str, indexes: list[int], name: str, rest: tuple[str, ...], depth: int) -> Outcome:
        return self.choose_refs([DeclRef(path, i) for i in indexes], name, rest, depth)

    def choose_refs(self, refs: Iterable[DeclRef], name: str, rest: tuple[str, ...], depth: int) -> Outcome:
        unique = sorted(set(refs), key=lambda r: (r.path, r.index))
        if len(unique) > 1:
            where = ", ".join(
                f"{r.path}:{self.files[r.path].syntax.declarations[r.index].start_line}" for r in unique[:5]
            )
            return Outcome(
                Status.UNRESOLVED,
                reason="AMBIGUOUS_DECLARATION",
                symbol=name,
                detail=f"{len(unique)} declarations named {name}: {where}",
            )
        outcome = Outcome(Status.DECL, decl=unique[0])
        return self.then(outcome, rest, depth) if rest else outcome

    def unknown_receiver(self, name: str, via: DeclRef | None) -> Outcome:
        return Outcome(Status.UNKNOWN_RECEIVER, reason="RECEIVER_TYPE_UNKNOWN", symbol=name, via=via, named=True)


VALUE_KINDS = frozenset({SymbolKind.CONSTANT, SymbolKind.VARIABLE, SymbolKind.FIELD, SymbolKind.PROPERTY})
"""Declarations whose children are members of their value, reached only through it."""


class _Sink:
    """Collects the resolver's output once: edges, external references and unresolved records."""

    def __init__(self, resolver: Resolver) -> None:
        self.resolver = resolver
        self.facts = Facts([], [], [])
        self.seen_edges: set[tuple[str, str, EdgeKind, int]] = set()
        self.seen: set[ExternalReference | Unresolved] = set()
        self.held: set[Edge | Unresolved] = set()

    def edge(
        self,
        source: str,
        target: DeclRef,
        kind: EdgeKind,
        f: FileScopes,
        line: int,
        confidence: Confidence = Confidence.CANDIDATE,
    ) -> None:
        target_key = self.resolver.key(target)
        if target_key is None or (source, target_key, kind, line) in self.seen_edges:
            return
        self.seen_edges.add((source, target_key, kind, line))
        self.facts.edges.append(Edge(source, target_key, kind, confidence, Provenance.TREE_SITTER, f.path, line))

    def emit(
        self,
        f: FileScopes,
        source: str,
        line: int,
        o: Outcome,
        decl_kind: EdgeKind,
        module_kind: EdgeKind,
        confidence: Confidence = Confidence.CANDIDATE,
    ) -> None:
        if o.status is Status.DECL and o.decl is not None:
            self.edge(source, o.decl, decl_kind, f, line, confidence)
        elif o.status is Status.MODULE and o.module is not None and one_module(o.module.files):
            self.edge(source, DeclRef(o.module.files[0], MODULE), module_kind, f, line)
        elif o.status is Status.MODULE and o.module is not None and self.resolver.adapters[f.language].package_scope:
            # A Go package has no symbol of its own: importing it uses each of its files.
            for path in o.module.files:
                self.edge(source, DeclRef(path, MODULE), module_kind, f, line)
        elif o.status is Status.EXTERNAL:
            self._record(ExternalReference(source, f.language, o.package, o.symbol, f.path, line, kind=decl_kind))
        elif o.status in (Status.UNRESOLVED, Status.UNKNOWN_RECEIVER):
            record = Unresolved(o.reason, f.language, f.path, line, o.package, o.symbol, source, o.detail)
            if o.named and o.symbol not in self.resolver.names:
                # Nothing in sight carries that name: it cannot hide a use of ours unless a
                # declaration out of sight does. A receiver of unknown type was still reached.
                if o.via is not None and o.status is Status.UNKNOWN_RECEIVER:
                    self.edge(source, o.via, EdgeKind.REFERENCES, f, line)
                elif o.via is not None:
                    self._hold(self._edge_row(source, o.via, EdgeKind.REFERENCES, f, line), o.symbol)
                self._hold(record, o.symbol)
                return
            if o.via is not None:
                self.edge(source, o.via, EdgeKind.REFERENCES, f, line)
            self._record(record)

    def _edge_row(self, source: str, target: DeclRef, kind: EdgeKind, f: FileScopes, line: int) -> Edge | None:
        target_key = self.resolver.key(target)
        if target_key is None:
            return None
        return Edge(source, target_key, kind, Confidence.CANDIDATE, Provenance.TREE_SITTER, f.path, line)

    def _hold(self, row: Edge | Unresolved | None, name: str) -> None:
        if row is not None and row not in self.held:
            self.held.add(row)
            self.facts.held.append((row, name))

    def _record(self, record: ExternalReference | Unresolved) -> None:
        if record in self.seen:
            return
        self.seen.add(record)
        if isinstance(record, ExternalReference):
            self.facts.external_references.append(record)
        else:
            self.facts.unresolved.append(record)
