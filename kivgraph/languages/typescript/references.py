"""Bindings (parameters, locals, catch and loop variables) and references (uses of names, by role).

Every candidate name node arrives as a capture; a node claimed earlier (a declaration's name, an
import name, a binding) or by a more specific role is never emitted again. This is the hot loop
of the adapter: it touches only captured nodes and keeps per-node work to a few C calls.
"""

import tree_sitter as ts

from kivgraph.languages.syntax import Binding, Reference, Role
from kivgraph.languages.typescript.scan import FileScan, first_child, first_named, last_named

ROLE_CAPTURES: tuple[tuple[str, str, Role, bool], ...] = tuple(
    (f"{capture}.name", f"{capture}.path", role, capture == "ref.jsx")
    for capture, role in (
        ("ref.extends", Role.EXTENDS),
        ("ref.implements", Role.IMPLEMENTS),
        ("ref.call", Role.CALL),
        ("ref.jsx", Role.CALL),
        ("ref.callback", Role.CALLBACK),
        ("ref.assign", Role.ASSIGN),
        ("ref.return", Role.RETURN),
        ("ref.type", Role.TYPE),
        ("ref.read", Role.READ),
    )
)
"""Most specific first: a node captured under several roles keeps the first."""
LITERAL_RECEIVERS = frozenset(
    {
        "string", "template_string", "number", "regex", "array", "object", "true", "false", "null",
        "meta_property", "import",
    }
)  # fmt: skip
"""Receivers whose members belong to the language (`"a".split()`, `[].map()`, `import.meta.url`)."""
NULLISH = frozenset({"null", "undefined"})


def collect_bindings(scan: FileScan) -> list[Binding]:
    claimed = scan.claimed
    source = scan.source
    found: list[Binding] = []
    for parameter in scan.nodes("bind.param"):
        pattern = parameter.child_by_field_name("pattern")
        if pattern is None:
            continue
        claimed.add(pattern.id)
        annotation = parameter.child_by_field_name("type")
        found.append(Binding(scan.text(pattern), pattern.start_byte, annotated_type(annotation, source)))
    for node in scan.nodes("bind.name"):
        node_id = node.id
        if node_id in claimed:
            continue
        claimed.add(node_id)
        found.append(Binding(scan.text(node), node.start_byte))
    declared = scan.declared_declarators
    for declarator in scan.nodes("bind.var"):
        name = declarator.child_by_field_name("name")
        if declarator.id in declared or name is None:
            continue
        claimed.add(name.id)
        type_name = annotated_type(declarator.child_by_field_name("type"), source)
        if not type_name:
            type_name = constructed_type(declarator.child_by_field_name("value"), source)
        found.append(Binding(scan.text(name), name.start_byte, type_name))
    found.sort(key=lambda b: b.start_byte)
    return found


def annotated_type(annotation: ts.Node | None, source: bytes) -> str:
    """`x: Foo`, `x: Foo<T>`, `x?: Foo | undefined` → "Foo"; anything else → ""."""
    if annotation is None:
        return ""
    node = first_named(annotation) if annotation.type == "type_annotation" else annotation
    return plain_type(node, source)


def plain_type(node: ts.Node | None, source: bytes) -> str:
    while node is not None:
        kind = node.type
        if kind == "type_identifier":
            return source[node.start_byte : node.end_byte].decode("utf-8", "replace")
        if kind == "generic_type":
            node = node.child_by_field_name("name")
        elif kind == "parenthesized_type":
            node = first_named(node)
        elif kind == "union_type":
            members = [m for m in node.named_children if not nullish(m, source)]
            if len(members) != 1:
                return ""
            node = members[0]
        else:
            return ""
    return ""


def nullish(node: ts.Node, source: bytes) -> bool:
    if node.type == "literal_type":
        inner = first_named(node)
        return inner is not None and inner.type in NULLISH
    if node.type == "union_type":
        return all(nullish(m, source) for m in node.named_children)
    return node.type in NULLISH or (
        node.type == "predefined_type" and source[node.start_byte : node.end_byte] in (b"undefined", b"null")
    )


def constructed_type(value: ts.Node | None, source: bytes) -> str:
    """`new Foo(…)` and `… as Foo` state the variable's type as plainly as an annotation."""
    if value is None:
        return ""
    if value.type == "new_expression":
        constructor = value.child_by_field_name("constructor")
        if constructor is not None and constructor.type == "identifier":
            return source[constructor.start_byte : constructor.end_byte].decode("utf-8", "replace")
        return ""
    if value.type == "as_expression":
        return plain_type(last_named(value), source)
    return ""


def collect_references(scan: FileScan) -> list[Reference]:
    seen = scan.claimed
    for node in scan.nodes("skip"):
        seen.add(node.id)
    source = scan.source
    captures = scan.captures
    found: list[Reference] = []
    append = found.append
    for name_capture, path_capture, role, jsx in ROLE_CAPTURES:
        nodes = captures.get(name_capture)
        if nodes:
            for node in nodes:
                node_id = node.id
                if node_id in seen:
                    continue
                seen.add(node_id)
                start = node.start_byte
                name = source[start : node.end_byte].decode("utf-8", "replace")
                if jsx and not name[:1].isupper():
                    continue  # <div>: an intrinsic element, not a component
                row, column = node.start_point
                append(Reference((name,), role, row + 1, column, start))
        nodes = captures.get(path_capture)
        if nodes:
            for node in nodes:
                node_id = node.id
                if node_id in seen:
                    continue
                seen.add(node_id)
                path = name_path(node, source)
                if path is None:
                    continue
                names, at = path
                row, column = at.start_point
                append(Reference(names, role, row + 1, column, at.start_byte))
    found.sort(key=lambda r: r.start_byte)
    return found


PROPERTY_NAMES = frozenset({"property_identifier", "private_property_identifier"})


def name_path(node: ts.Node, source: bytes) -> tuple[tuple[str, ...], ts.Node] | None:
    """The dotted path a member expression or qualified name spells, head first, and the node of
    its last name (where the reference is placed). An unnameable receiver becomes ""
    (`f().m` → ("", "m")); members of literals and `super` are not names of this repository."""
    if node.type != "member_expression":
        return qualified_path(node, source)
    # member_expression children: object, "." or "?.", property (comments may sit between)
    count = node.child_count
    if not count:
        return None
    last = node.child(count - 1)
    if last.type not in PROPERTY_NAMES:
        return None
    parts = [source[last.start_byte : last.end_byte].decode("utf-8", "replace")]
    current: ts.Node | None = node.child(0)
    while current is not None:
        kind = current.type
        if kind == "member_expression":
            count = current.child_count
            prop = current.child(count - 1) if count else None
            if prop is None or prop.type not in PROPERTY_NAMES:
                return None
            parts.append(source[prop.start_byte : prop.end_byte].decode("utf-8", "replace"))
            current = first_child(current)
        elif kind == "identifier":
            parts.append(source[current.start_byte : current.end_byte].decode("utf-8", "replace"))
            break
        elif kind == "this":
            parts.append("this")
            break
        elif kind == "non_null_expression":
            current = first_named(current)
        elif kind == "super" or kind in LITERAL_RECEIVERS:
            return None
        else:
            parts.append("")
            break
    parts.reverse()
    return tuple(parts), last


def qualified_path(node: ts.Node, source: bytes) -> tuple[tuple[str, ...], ts.Node] | None:
    """`ns.Type` (nested_type_identifier) and `A.B` (nested_identifier) as a name path."""
    parts: list[str] = []
    current: ts.Node | None = node
    last: ts.Node | None = None
    while current is not None and current.type in ("nested_type_identifier", "nested_identifier"):
        tail = last_named(current)
        if tail is None:
            return None
        last = last or tail
        parts.append(source[tail.start_byte : tail.end_byte].decode("utf-8", "replace"))
        current = first_named(current)
    if current is None or last is None or current.type not in ("identifier", "type_identifier"):
        return None
    parts.append(source[current.start_byte : current.end_byte].decode("utf-8", "replace"))
    parts.reverse()
    return tuple(parts), last
