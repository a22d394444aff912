"""Dart declarations, imports and library clauses from the top-level and class-body children.

tree-sitter-dart keeps a function's signature and its body as siblings, and a top-level
variable's keywords and type beside its names, so declarations are rebuilt here from runs of
siblings. Only those two levels are walked (plus local functions, found by the query), and the
parameter lists of constructors, whose `this.x` / `super.x` formals name a field.
"""

import tree_sitter as ts

from kivgraph.languages import treesitter
from kivgraph.languages.syntax import Declaration, Import, Reference, Role
from kivgraph.model import SymbolKind

TYPE_DECLARATIONS = {
    "class_definition": SymbolKind.CLASS,
    "mixin_declaration": SymbolKind.MIXIN,
    "extension_declaration": SymbolKind.EXTENSION,
    "extension_type_declaration": SymbolKind.CLASS,
    "enum_declaration": SymbolKind.ENUM,
}
FUNCTION_SIGNATURES = {
    "function_signature": SymbolKind.FUNCTION,
    "getter_signature": SymbolKind.GETTER,
    "setter_signature": SymbolKind.SETTER,
}
MEMBER_SIGNATURES = {
    "function_signature": SymbolKind.METHOD,
    "getter_signature": SymbolKind.GETTER,
    "setter_signature": SymbolKind.SETTER,
    "operator_signature": SymbolKind.METHOD,
    "constructor_signature": SymbolKind.CONSTRUCTOR,
    "constant_constructor_signature": SymbolKind.CONSTRUCTOR,
    "factory_constructor_signature": SymbolKind.CONSTRUCTOR,
    "redirecting_factory_constructor_signature": SymbolKind.CONSTRUCTOR,
}
VARIABLE_LISTS = frozenset({"static_final_declaration_list", "initialized_identifier_list", "identifier_list"})
CONSTANT_KEYWORDS = frozenset({"const_builtin", "final_builtin"})
SCOPE_KINDS = frozenset(
    {
        SymbolKind.CLASS,
        SymbolKind.MIXIN,
        SymbolKind.EXTENSION,
        SymbolKind.ENUM,
        SymbolKind.FUNCTION,
        SymbolKind.METHOD,
        SymbolKind.CONSTRUCTOR,
        SymbolKind.GETTER,
        SymbolKind.SETTER,
    }
)


def node_text(node: ts.Node, source: bytes) -> str:
    return source[node.start_byte : node.end_byte].decode("utf-8", errors="replace")


def one_line(raw: str) -> str:
    if "\n" in raw or "  " in raw or "\t" in raw or "\r" in raw:
        raw = " ".join(raw.split())
    raw = raw.rstrip(" {=:;")
    return raw if len(raw) <= treesitter.MAX_SIGNATURE else treesitter.collapse(raw)


def uri_text(node: ts.Node | None, source: bytes) -> str:
    """The string of a `uri` node without its quotes (`'package:a/b.dart'` → package:a/b.dart)."""
    if node is None:
        return ""
    raw = node_text(node, source).strip()
    if raw[:1] in ("r", "R"):
        raw = raw[1:]
    for quote in ('"""', "'''", '"', "'"):
        if raw.startswith(quote) and raw.endswith(quote) and len(raw) >= 2 * len(quote):
            return raw[len(quote) : -len(quote)]
    return raw


class DeclarationWalk:
    """Walks one file's top level and class bodies; results accumulate on the instance."""

    def __init__(self, source: bytes) -> None:
        self.source = source
        self.declarations: list[Declaration] = []
        self.imports: list[Import] = []
        self.package_clause = ""
        self.names: set[int] = set()
        """Node ids of declared names that type captures must not report as references."""
        self.formals: list[Reference] = []
        """`this.x` and `super.x` constructor parameters: uses of the field they initialize."""
        self.superclass: tuple[str, ...] = ()
        """The `extends` clause of the class whose body is being walked, as a name path."""

    # -- helpers -------------------------------------------------------------------------------

    def add(
        self,
        name: str,
        name_node: ts.Node,
        kind: SymbolKind,
        start: ts.Node,
        end: ts.Node,
        signature: str,
        docs: list[ts.Node],
    ) -> None:
        if not name:
            return  # error recovery can invent a declaration around a lone `_`: it names nothing
        line, column = name_node.start_point
        doc = treesitter.clean_doc("\n".join(node_text(d, self.source) for d in docs)) if docs else ""
        self.declarations.append(
            Declaration(
                name=name,
                kind=kind,
                start_byte=start.start_byte,
                end_byte=end.end_byte,
                start_line=start.start_point[0] + 1,
                end_line=end.end_point[0] + 1,
                name_line=line + 1,
                name_column=column,
                signature=signature,
                exported=not name.startswith("_") and not name.startswith("<"),
                doc=doc,
                opens_scope=kind in SCOPE_KINDS,
            )
        )

    def text_between(self, start: int, end: int) -> str:
        return one_line(self.source[start:end].decode("utf-8", errors="replace"))

    # -- top level -----------------------------------------------------------------------------

    def walk_program(self, root: ts.Node) -> None:
        children = root.children
        docs: list[ts.Node] = []
        prefix: ts.Node | None = None
        constant = False
        i = 0
        while i < len(children):
            child = children[i]
            kind = child.type
            i += 1
            if kind == "documentation_comment":
                docs.append(child)
                continue
            if kind in ("comment", "annotation"):
                continue
            if (
                kind in CONSTANT_KEYWORDS
                or kind
                in (
                    "inferred_type",
                    "type_identifier",
                    "type_arguments",
                    "nullable_type",
                    "function_type",
                    "record_type",
                    "void_type",
                )
                or (not child.is_named and kind != ";")
            ):
                # Keywords and the type of a top-level variable stand beside its names.
                if prefix is None:
                    prefix = child
                constant = constant or kind in CONSTANT_KEYWORDS
                continue
            if kind in TYPE_DECLARATIONS:
                self.type_declaration(child, TYPE_DECLARATIONS[kind], docs)
            elif kind in FUNCTION_SIGNATURES:
                body = children[i] if i < len(children) and children[i].type == "function_body" else None
                if body is not None:
                    i += 1
                name_node = child.child_by_field_name("name")
                if name_node is not None:
                    start = prefix if prefix is not None else child
                    self.add(
                        node_text(name_node, self.source),
                        name_node,
                        FUNCTION_SIGNATURES[kind],
                        start,
                        body if body is not None else child,
                        self.text_between(start.start_byte, child.end_byte),
                        docs,
                    )
            elif kind in VARIABLE_LISTS:
                self.variables(child, prefix, SymbolKind.CONSTANT if constant else SymbolKind.VARIABLE, docs)
            elif kind == "type_alias":
                self.type_alias(child, docs)
            elif kind == "import_or_export":
                directive = child.named_children[0] if child.named_child_count else None
                if directive is not None:
                    self.directive(directive)
            elif kind == "part_directive":
                # A part shares the library's scope (the wildcard) and its public names are the
                # library's own, so importers of the library see them (the re-export).
                uri = uri_text(_first_of(child, "uri"), self.source)
                self.add_import(child, uri, None, None, True, False)
                self.add_import(child, uri, None, None, True, True)
            elif kind == "library_name":
                self.package_clause = node_text(child, self.source).removeprefix("library").strip().rstrip(";")
            elif kind == "part_of_directive":
                target = _first_of(child, "uri")
                dotted = _first_of(child, "dotted_identifier_list")
                if target is not None:
                    self.package_clause = uri_text(target, self.source)
                elif dotted is not None:
                    self.package_clause = node_text(dotted, self.source)
            docs = []
            prefix = None
            constant = False

    def type_declaration(self, node: ts.Node, kind: SymbolKind, docs: list[ts.Node]) -> None:
        name_node = node.child_by_field_name("name")
        body = node.child_by_field_name("body")
        if node.type == "mixin_declaration":
            name_node = _first_of(node, "identifier")
            body = _first_of(node, "class_body")
        if name_node is not None:
            name = node_text(name_node, self.source)
        elif node.type == "extension_declaration":
            # An unnamed extension cannot be named by other code; it still owns its members.
            target = node.child_by_field_name("class")
            name = f"<extension on {node_text(target, self.source) if target is not None else '?'}>"
            name_node = node
        else:
            return
        end = body.start_byte if body is not None else node.end_byte
        self.add(name, name_node, kind, node, node, self.text_between(node.start_byte, end), docs)
        representation = _first_of(node, "representation_declaration")
        if representation is not None:
            self.representation_field(representation)
        if body is not None:
            superclass = _first_of(node, "superclass")
            self.superclass = tuple(
                node_text(c, self.source)
                for c in (superclass.named_children if superclass is not None else ())
                if c.type == "type_identifier"
            )
            self.walk_body(body)
            self.superclass = ()

    def representation_field(self, node: ts.Node) -> None:
        """`extension type Meters(int value)`: `value` is the extension type's one field."""
        named = node.named_children
        name_node = named[-1] if named and named[-1].type == "identifier" else None
        opening = next((c for c in node.children if c.type == "("), None)
        if name_node is None or opening is None or opening.end_byte >= name_node.start_byte:
            return
        first = next((c for c in named if c.start_byte >= opening.end_byte), name_node)
        signature = self.text_between(first.start_byte, name_node.end_byte)
        self.add(node_text(name_node, self.source), name_node, SymbolKind.FIELD, first, name_node, signature, [])

    def type_alias(self, node: ts.Node, docs: list[ts.Node]) -> None:
        name_node: ts.Node | None = None
        previous: ts.Node | None = None
        for child in node.named_children:
            if child.type == "formal_parameter_list":
                name_node = previous  # `typedef void Name(int x);`
                break
            if child.type == "type_identifier" and name_node is None and previous is None:
                name_node = child  # `typedef Name = …;`
            previous = child if child.type == "type_identifier" else previous
        if name_node is None or name_node.type != "type_identifier":
            return
        self.names.add(name_node.id)
        self.add(
            node_text(name_node, self.source),
            name_node,
            SymbolKind.TYPE_ALIAS,
            node,
            node,
            self.text_between(node.start_byte, node.end_byte),
            docs,
        )

    def variables(self, names: ts.Node, prefix: ts.Node | None, kind: SymbolKind, docs: list[ts.Node]) -> None:
        """One declaration per name of `int a = 1, b;`; the first one spans the keywords and type."""
        start = prefix if prefix is not None else names
        head = self.source[start.start_byte : names.start_byte].decode("utf-8", errors="replace")
        entries = names.named_children
        for index, entry in enumerate(entries):
            name_node = entry if entry.type == "identifier" else _first_of(entry, "identifier")
            if name_node is None:
                continue
            name = node_text(name_node, self.source)
            first = start if index == 0 else entry
            last = entry if len(entries) > 1 else names
            self.add(name, name_node, kind, first, last, one_line(head + name), docs if index == 0 else [])

    # -- class bodies --------------------------------------------------------------------------

    def walk_body(self, body: ts.Node) -> None:
        children = body.children
        docs: list[ts.Node] = []
        i = 0
        while i < len(children):
            child = children[i]
            kind = child.type
            i += 1
            if kind == "documentation_comment":
                docs.append(child)
                continue
            if kind in ("comment", "annotation"):
                continue
            if kind == "enum_constant":
                name_node = child.child_by_field_name("name")
                if name_node is not None:
                    self.add(
                        node_text(name_node, self.source),
                        name_node,
                        SymbolKind.ENUM_MEMBER,
                        child,
                        child,
                        self.text_between(child.start_byte, child.end_byte),
                        docs,
                    )
            elif kind in ("method_signature", "declaration"):
                end = child
                if i < len(children) and children[i].type == "function_body":
                    end = children[i]
                    i += 1
                self.member(child, end, docs)
            docs = []

    def member(self, node: ts.Node, end: ts.Node, docs: list[ts.Node]) -> None:
        for child in node.named_children:
            kind = child.type
            if kind in MEMBER_SIGNATURES:
                name_node, name = self.member_name(child)
                if name_node is None:
                    return
                self.add(
                    name,
                    name_node,
                    MEMBER_SIGNATURES[kind],
                    node,
                    end,
                    self.text_between(node.start_byte, child.end_byte),
                    docs,
                )
                parameters = _first_of(child, "formal_parameter_list")
                if parameters is not None:
                    self.initializing_formals(parameters)
                return
            if kind in VARIABLE_LISTS:
                self.variables(child, node, SymbolKind.FIELD, docs)
                return

    def initializing_formals(self, parameters: ts.Node) -> None:
        """`Box(this.value)` uses the field `value` of its own class; `Crate(super.value)` passes
        it on to the superclass constructor, whose `this.value` is the superclass's field."""
        for entry in parameters.named_children:
            group = entry.named_children if entry.type == "optional_formal_parameters" else [entry]
            for parameter in group:
                formal = parameter.named_children[0] if parameter.named_child_count else None
                if formal is None or formal.type not in ("constructor_param", "super_formal_parameter"):
                    continue
                keyword = _first_of(formal, "this" if formal.type == "constructor_param" else "super")
                name_node = _first_of(formal, "identifier")
                if keyword is None or name_node is None or name_node.start_byte < keyword.end_byte:
                    continue
                if keyword.type == "this":
                    path: tuple[str, ...] = ("this",)
                elif self.superclass:
                    path = self.superclass
                else:
                    continue  # no `extends`: the superclass is Object, whose constructor takes nothing
                line, column = keyword.start_point
                names = (*path, node_text(name_node, self.source))
                self.formals.append(Reference(names, Role.READ, line + 1, column, keyword.start_byte))

    def member_name(self, signature: ts.Node) -> tuple[ts.Node | None, str]:
        kind = signature.type
        names: list[ts.Node]
        if kind in ("function_signature", "getter_signature", "setter_signature"):
            name_node = signature.child_by_field_name("name")
            return name_node, node_text(name_node, self.source) if name_node is not None else ""
        if kind == "operator_signature":
            raw = node_text(signature, self.source)
            after = raw.find("operator")
            symbol = raw[after + len("operator") : raw.find("(", after)].strip() if after >= 0 else ""
            return (signature, symbol) if symbol else (None, "")
        if kind == "constructor_signature":
            names = signature.children_by_field_name("name")
        else:
            # `const Foo.named(…)`, `factory Foo.make(…)`: the identifiers before the parameters.
            names = []
            for child in signature.named_children:
                if child.type == "formal_parameter_list":
                    break
                if child.type == "identifier":
                    names.append(child)
        if not names:
            return None, ""
        if len(names) == 1:
            # The unnamed constructor: Dart calls it `Foo.new`, and naming it after the class
            # would shadow the class inside its own body.
            return names[0], "new"
        return names[-1], node_text(names[-1], self.source)

    # -- imports -------------------------------------------------------------------------------

    def directive(self, node: ts.Node) -> None:
        reexport = node.type == "library_export"
        spec = node if reexport else _first_of(node, "import_specification")
        if spec is None:
            return
        uri_holder = _first_of(spec, "configurable_uri") or spec
        uri = uri_text(_first_of(uri_holder, "uri"), self.source)
        prefix: ts.Node | None = None
        shown: list[ts.Node] = []
        for child in spec.named_children:
            if child.type == "identifier":
                prefix = child
            elif child.type == "combinator" and self.source[child.start_byte : child.start_byte + 4] == b"show":
                shown.extend(c for c in child.named_children if c.type == "identifier")
        if prefix is not None and not reexport:
            self.add_import(node, uri, None, node_text(prefix, self.source), False, False)
        elif shown:
            for name_node in shown:
                name = node_text(name_node, self.source)
                self.add_import(name_node, uri, name, name, False, reexport)
        else:
            self.add_import(node, uri, None, None, True, reexport)

    def add_import(
        self, node: ts.Node, uri: str, name: str | None, local: str | None, wildcard: bool, reexport: bool
    ) -> None:
        if not uri:
            return
        line, column = node.start_point
        self.imports.append(Import(uri, name, local, line + 1, column, node.start_byte, wildcard, reexport))


def _first_of(node: ts.Node, kind: str) -> ts.Node | None:
    for child in node.named_children:
        if child.type == kind:
            return child
    return None
