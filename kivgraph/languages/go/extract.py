"""Go's syntax layer for one file: declarations, bindings, the package clause and problems.

Everything comes from one pass of `go.scm` captures plus a bisect over the file's function ranges
(no walk over the tree). References are `references.py`, imports `imports.py`, module and package
resolution `modules.py`.
"""

import re
from bisect import bisect_right
from operator import attrgetter

import tree_sitter as ts

from kivgraph.languages.go.imports import go_imports
from kivgraph.languages.go.references import go_references
from kivgraph.languages.syntax import Binding, Declaration, FileSyntax, SyntaxProblem
from kivgraph.languages.treesitter import (
    clean_doc,
    collapse,
    parser,
    query,
    signature,
    syntax_errors,
    syntax_tree,
    text,
    timed_out,
)
from kivgraph.model import SymbolKind

TYPE_KINDS = {
    "struct_type": SymbolKind.STRUCT,
    "interface_type": SymbolKind.INTERFACE,
}

# `//go:embed`, `//go:build`, `//line`, `//export`: instructions to tools, not documentation.
DIRECTIVE = re.compile(r"//(line |extern |export |[a-z0-9]+:[a-z0-9])")


def is_exported(name: str) -> bool:
    return name[:1].isupper()


def plain_type(node: ts.Node | None, source: bytes) -> str:
    """The named type a type expression denotes: `*Server` → "Server", `List[T]` → "List",
    `pkg.T` → "pkg.T"; "" for slices, maps, funcs and other unnamed types."""
    while node is not None:
        kind = node.type
        if kind == "type_identifier":
            return text(node, source)
        if kind == "qualified_type":
            return "".join(text(node, source).split())
        if kind == "pointer_type":
            node = node.named_children[0] if node.named_child_count else None
        elif kind == "generic_type":
            node = node.child_by_field_name("type")
        elif kind == "parenthesized_type":
            node = node.named_children[0] if node.named_child_count else None
        else:
            return ""
    return ""


def embedded_name(node: ts.Node | None) -> ts.Node | None:
    """The name an embedded field goes by: its type's last name (`*pkg.Logger` → `Logger`)."""
    while node is not None:
        kind = node.type
        if kind == "type_identifier":
            return node
        if kind == "qualified_type":
            node = node.child_by_field_name("name")
        elif kind == "generic_type":
            node = node.child_by_field_name("type")
        elif kind in ("pointer_type", "parenthesized_type"):
            node = node.named_children[0] if node.named_child_count else None
        else:
            return None
    return None


def value_type(node: ts.Node | None, source: bytes) -> str:
    """The type a value expression visibly constructs: `T{}`, `&T{}`, `new(T)`; else ""."""
    if node is None:
        return ""
    if node.type == "unary_expression":
        node = node.child_by_field_name("operand")
        if node is None:
            return ""
    if node.type == "composite_literal":
        return plain_type(node.child_by_field_name("type"), source)
    if node.type == "call_expression":
        function = node.child_by_field_name("function")
        arguments = node.child_by_field_name("arguments")
        if function is not None and arguments is not None and text(function, source) == "new":
            first = arguments.named_children[0] if arguments.named_child_count else None
            return plain_type(first, source)
    return ""


class CommentIndex:
    """Doc comments by position: the comment lines directly above a declaration.

    Built from the captured comments because `prev_sibling` re-walks the parent's children, which
    is quadratic in files with thousands of top-level declarations or huge `const` blocks.
    """

    def __init__(self, comments: list[ts.Node], source: bytes) -> None:
        self.source = source
        self.by_end = {comment.end_byte: comment for comment in comments}

    def line_above(self, start: int) -> ts.Node | None:
        """The comment that alone ends the line above the line holding byte `start`, if any."""
        source = self.source
        line_start = source.rfind(b"\n", 0, start) + 1
        if line_start == 0 or source[line_start:start].strip():
            return None
        end = line_start - 1
        while end > 0 and source[end - 1 : end] in (b" ", b"\t", b"\r"):
            end -= 1
        return self.by_end.get(end)

    def doc(self, node: ts.Node) -> str:
        if not self.by_end:
            return ""
        comment = self.line_above(node.start_byte)
        if comment is None:
            return ""
        lines: list[str] = []
        while comment is not None:
            start = comment.start_byte
            line_start = self.source.rfind(b"\n", 0, start) + 1
            if self.source[line_start:start].strip():
                break  # a trailing comment of the code above, not documentation
            line = text(comment, self.source)
            if not DIRECTIVE.match(line):
                lines.append(line)
            comment = self.line_above(start)
        lines.reverse()
        return clean_doc("\n".join(lines))


class Ranges:
    """Sorted, disjoint byte ranges (function bodies at file level): is a position inside one?"""

    def __init__(self, ranges: list[tuple[int, int]]) -> None:
        ranges.sort()
        self.starts = [start for start, _ in ranges]
        self.ends = [end for _, end in ranges]

    def contains(self, position: int) -> bool:
        index = bisect_right(self.starts, position) - 1
        return index >= 0 and position < self.ends[index]


def declaration(
    name_node: ts.Node,
    kind: SymbolKind,
    extent: ts.Node,
    source: bytes,
    signature_text: str,
    doc: str = "",
    owner: str = "",
    opens_scope: bool = False,
    span: tuple[int, int, tuple[int, int], tuple[int, int]] | None = None,
    type_name: str = "",
) -> Declaration:
    name = text(name_node, source)
    row, column = name_node.start_point
    if span is None:
        span = (extent.start_byte, extent.end_byte, extent.start_point, extent.end_point)
    start, end, start_point, end_point = span
    return Declaration(
        name,
        kind,
        start,
        end,
        start_point[0] + 1,
        end_point[0] + 1,
        row + 1,
        column,
        signature_text,
        name[:1].isupper(),
        doc,
        owner,
        opens_scope,
        type_name,
    )


def name_spans(names: list[ts.Node], extent: ts.Node) -> list[tuple[int, int, tuple[int, int], tuple[int, int]]]:
    """Ranges for the names of one spec or field. One name covers the whole spec; with several
    (`a, b int`), each gets its own range so that neither nests in the other."""
    if len(names) == 1:
        return [(extent.start_byte, extent.end_byte, extent.start_point, extent.end_point)]
    spans: list[tuple[int, int, tuple[int, int], tuple[int, int]]] = []
    for index, name in enumerate(names):
        last = index == len(names) - 1
        end, end_point = (extent.end_byte, extent.end_point) if last else (name.end_byte, name.end_point)
        spans.append((name.start_byte, end, name.start_point, end_point))
    return spans


def first_line(node: ts.Node, source: bytes) -> str:
    snippet, newline, _ = text(node, source).partition("\n")
    return collapse(snippet.rstrip(" ({[=") if newline else snippet)


def go_syntax(path: str, source: bytes) -> FileSyntax:
    parsed = syntax_tree(parser("go"), query("go", "go", "go.scm"), source)
    if parsed is None:
        return timed_out(path)
    root, captures = parsed
    get = captures.get
    package_nodes = get("package")
    package = text(package_nodes[0], source) if package_nodes else ""

    comments = CommentIndex(get("comment", []), source)
    declarations: list[Declaration] = []
    bindings: list[Binding] = []
    skip: set[int] = set()
    hidden: list[tuple[int, int, frozenset[str]]] = []
    scopes: list[tuple[int, int]] = []

    for function in get("function", ()):
        name_node = function.child_by_field_name("name")
        if name_node is None:
            continue
        body = function.child_by_field_name("body")
        declarations.append(
            declaration(
                name_node,
                SymbolKind.FUNCTION,
                function,
                source,
                signature(function, source, body),
                comments.doc(function),
                opens_scope=True,
            )
        )
        scopes.append((function.start_byte, function.end_byte))
    for method in get("method", ()):
        name_node = method.child_by_field_name("name")
        if name_node is None:
            continue
        owner = receiver_owner(method.child_by_field_name("receiver"), source, bindings, skip)
        declarations.append(
            declaration(
                name_node,
                SymbolKind.METHOD,
                method,
                source,
                signature(method, source, method.child_by_field_name("body")),
                comments.doc(method),
                owner=owner,
                opens_scope=True,
            )
        )
        scopes.append((method.start_byte, method.end_byte))
    in_function = Ranges(list(scopes))

    for group in get("type_declaration", ()):
        declarations.extend(type_declarations(group, source, comments, skip, hidden))
    for field in get("field", ()):
        names = field.children_by_field_name("name")
        header = first_line(field, source)
        doc = comments.doc(field)
        type_name = plain_type(field.child_by_field_name("type"), source)
        for name_node, span in zip(names, name_spans(names, field), strict=True):
            declarations.append(
                declaration(name_node, SymbolKind.FIELD, field, source, header, doc, span=span, type_name=type_name)
            )
    for field in get("embedded_field", ()):
        type_node = field.child_by_field_name("type")
        name_node = embedded_name(type_node)
        if type_node is not None and name_node is not None:
            header = first_line(field, source)
            type_name = plain_type(type_node, source)
            declarations.append(
                declaration(
                    name_node, SymbolKind.FIELD, field, source, header, comments.doc(field), type_name=type_name
                )
            )
    for element in get("method_elem", ()):
        name_node = element.child_by_field_name("name")
        if name_node is not None:
            header = first_line(element, source)
            doc = comments.doc(element)
            declarations.append(declaration(name_node, SymbolKind.METHOD, element, source, header, doc))

    closures = sorted(node.start_byte for node in get("closure", ()))
    for capture, kind, keyword in (
        ("const_declaration", SymbolKind.CONSTANT, "const"),
        ("var_declaration", SymbolKind.VARIABLE, "var"),
    ):
        for group in get(capture, ()):
            specs = group_specs(group)
            if in_function.contains(group.start_byte):
                for spec in specs:
                    local_spec_bindings(spec, source, bindings, skip)
                continue
            lone = len(specs) == 1 and not is_parenthesized(group)
            for spec in specs:
                # A package-level `var h = func(...) {...}` has locals of its own.
                index = bisect_right(closures, spec.start_byte)
                opens = index < len(closures) and closures[index] < spec.end_byte
                if opens:
                    scopes.append((spec.start_byte, spec.end_byte))
                extent = group if lone else spec
                declarations.extend(spec_declarations(spec, extent, kind, keyword, opens, comments.doc(extent), source))

    scoped = Ranges(scopes)
    for param in get("param", ()):
        if not scoped.contains(param.start_byte):
            continue
        type_name = plain_type(param.child_by_field_name("type"), source)
        for name_node in param.children_by_field_name("name"):
            bind(name_node, type_name, source, bindings, skip)
    for statement in get("short_var", ()):
        left = statement.child_by_field_name("left")
        right = statement.child_by_field_name("right")
        if left is None:
            continue
        targets = left.named_children
        values = right.named_children if right is not None else []
        paired = len(values) == len(targets)
        for index, target in enumerate(targets):
            if target.type == "identifier":
                bind(target, value_type(values[index], source) if paired else "", source, bindings, skip)
    for capture in ("bind", "type_param"):
        for node in get(capture, ()):
            if capture == "bind" or scoped.contains(node.start_byte):
                bind(node, "", source, bindings, skip)

    references = go_references(captures, source, skip, hidden)
    declarations.sort(key=lambda decl: (decl.start_byte, -decl.end_byte))
    bindings.sort(key=attrgetter("start_byte"))
    return FileSyntax(
        path=path,
        declarations=tuple(declarations),
        imports=tuple(go_imports(get("import", []), source)),
        references=tuple(references),
        bindings=tuple(bindings),
        problems=tuple(SyntaxProblem(line, detail) for line, detail in syntax_errors(root)),
        package_clause=package,
    )


def bind(name_node: ts.Node, type_name: str, source: bytes, bindings: list[Binding], skip: set[int]) -> None:
    start = name_node.start_byte
    skip.add(name_node.id)
    name = source[start : name_node.end_byte].decode("utf-8", "replace")
    if name != "_":
        bindings.append(Binding(name, start, type_name))


def receiver_owner(receiver: ts.Node | None, source: bytes, bindings: list[Binding], skip: set[int]) -> str:
    """The receiver's type name (the method's owner). `func (l *List[T])` also binds `T`."""
    if receiver is None:
        return ""
    for param in receiver.named_children:
        if param.type != "parameter_declaration":
            continue
        type_node = param.child_by_field_name("type")
        while type_node is not None and type_node.type in ("pointer_type", "parenthesized_type"):
            type_node = type_node.named_children[0] if type_node.named_child_count else None
        if type_node is not None and type_node.type == "generic_type":
            arguments = type_node.child_by_field_name("type_arguments")
            for argument in arguments.named_children if arguments is not None else []:
                for name in argument.named_children:
                    if name.type == "type_identifier":
                        bind(name, "", source, bindings, skip)
        return plain_type(type_node, source)
    return ""


def type_declarations(
    group: ts.Node,
    source: bytes,
    comments: CommentIndex,
    skip: set[int],
    hidden: list[tuple[int, int, frozenset[str]]],
) -> list[Declaration]:
    """The types a `type` declaration declares. A lone spec spans the whole declaration (its doc
    comment sits above `type`); in a `type (...)` group each spec spans itself."""
    specs = [child for child in group.named_children if child.type in ("type_spec", "type_alias")]
    grouped = len(specs) != 1 or is_parenthesized(group)
    found: list[Declaration] = []
    for spec in specs:
        name_node = spec.child_by_field_name("name")
        if name_node is None:
            continue
        skip.add(name_node.id)
        type_node = spec.child_by_field_name("type")
        if spec.type == "type_alias":
            kind = SymbolKind.TYPE_ALIAS
        else:
            kind = TYPE_KINDS.get(type_node.type, SymbolKind.TYPE) if type_node is not None else SymbolKind.TYPE
        extent = spec if grouped else group
        doc = comments.doc(extent)
        parameters = spec.child_by_field_name("type_parameters")
        if parameters is not None:
            names = frozenset(
                text(name, source)
                for param in parameters.named_children
                for name in param.children_by_field_name("name")
            )
            hidden.append((spec.start_byte, spec.end_byte, names))
            for param in parameters.named_children:
                for name in param.children_by_field_name("name"):
                    skip.add(name.id)
        found.append(declaration(name_node, kind, extent, source, type_signature(extent, spec, type_node, source), doc))
    return found


def type_signature(extent: ts.Node, spec: ts.Node, type_node: ts.Node | None, source: bytes) -> str:
    """`type Server[T any] struct`: the text up to the struct or interface body."""
    body: ts.Node | None = None
    if type_node is not None and type_node.type == "struct_type":
        body = type_node.named_children[0] if type_node.named_child_count else None
    elif type_node is not None and type_node.type == "interface_type":
        body = next((child for child in type_node.children if child.type == "{"), None)
    header = signature(extent, source, body) if body is not None else first_line(extent, source)
    return header if extent is not spec else collapse(f"type {header}")


def is_parenthesized(group: ts.Node) -> bool:
    return group.child_count > 1 and group.child(1).type in ("(", "var_spec_list")


def group_specs(group: ts.Node) -> list[ts.Node]:
    """The specs of a `const` or `var` declaration, grouped or not."""
    specs: list[ts.Node] = []
    for child in group.named_children:
        if child.type == "var_spec_list":
            specs.extend(spec for spec in child.named_children if spec.type == "var_spec")
        elif child.type in ("const_spec", "var_spec"):
            specs.append(child)
    return specs


def local_spec_bindings(spec: ts.Node, source: bytes, bindings: list[Binding], skip: set[int]) -> None:
    """`var x T` / `var x = T{}` / `const c = 1` inside a function body."""
    names = [name for name in spec.children_by_field_name("name") if name.type == "identifier"]
    type_name = plain_type(spec.child_by_field_name("type"), source)
    values = spec.child_by_field_name("value")
    value_nodes = values.named_children if values is not None else []
    for index, name_node in enumerate(names):
        name_type = type_name
        if not name_type and len(value_nodes) == len(names):
            name_type = value_type(value_nodes[index], source)
        bind(name_node, name_type, source, bindings, skip)


def spec_declarations(
    spec: ts.Node, extent: ts.Node, kind: SymbolKind, keyword: str, opens: bool, doc: str, source: bytes
) -> list[Declaration]:
    """Package-level constants or variables of one spec; `extent` is the whole declaration for a
    lone spec, else the spec."""
    names = [name for name in spec.children_by_field_name("name") if name.type == "identifier"]
    header = collapse(f"{keyword} {first_line(spec, source)}")
    type_name = plain_type(spec.child_by_field_name("type"), source)
    values = spec.child_by_field_name("value")
    value_nodes = values.named_children if values is not None and not type_name else []
    found: list[Declaration] = []
    for index, (name_node, span) in enumerate(zip(names, name_spans(names, extent), strict=True)):
        if text(name_node, source) == "_":
            continue
        name_type = type_name
        if not name_type and len(value_nodes) == len(names):
            name_type = value_type(value_nodes[index], source)
        found.append(
            declaration(name_node, kind, extent, source, header, doc, opens_scope=opens, span=span, type_name=name_type)
        )
    return found
