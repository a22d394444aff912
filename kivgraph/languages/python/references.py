"""Python references: name paths as written, with their role, from the reference captures of `python.scm`.

Works on captured atoms only (an identifier or the outermost attribute of a chain); it never walks
the tree. Which names are locals is not decided here: bindings are reported and the resolver decides.
"""

from bisect import bisect_right
from operator import attrgetter

import tree_sitter as ts

from kivgraph.languages.emit import LONG_PATH, emit_references, right_operands
from kivgraph.languages.syntax import Reference, Role

# Processing order matters: a superclass is also an argument, and a node seen once is not seen again.
ROLE_ORDER: tuple[tuple[str, Role], ...] = (
    ("extends", Role.EXTENDS),
    ("call", Role.CALL),
    ("type", Role.TYPE),
    ("return", Role.RETURN),
    ("assign", Role.ASSIGN),
    ("callback", Role.CALLBACK),
    ("read", Role.READ),
)
# An argument or an expression inside an annotation (`Dict[str, Foo]`, `Callable[[A], B]`) is a type use.
RETYPED = frozenset({Role.CALLBACK, Role.READ, Role.ASSIGN})


def atom_names(node: ts.Node, source: bytes) -> tuple[tuple[str, ...], ts.Node]:
    """The path an identifier or attribute chain spells, and the node where that path starts.

    `a.b.c` → ("a", "b", "c"); `f().m` → ("", "m") placed at `m`, because nothing names the receiver.
    A long chain is read by its syntax only (see `LONG_PATH`).
    """
    if node.type != "attribute" or node.end_byte - node.start_byte <= LONG_PATH:
        raw = source[node.start_byte : node.end_byte]
        if b"." not in raw:
            return (raw.decode("utf-8", "replace"),), node
        parts = raw.decode("utf-8", "replace").split(".")
        names = tuple(part.strip() for part in parts)
        if all(name.isidentifier() for name in names):
            return names, node
    # A call, subscript, comment or line continuation inside the chain: follow the syntax instead.
    members: list[str] = []
    current: ts.Node | None = node
    last = node
    while current is not None and current.type == "attribute":
        member = current.child_by_field_name("attribute")
        if member is not None:
            members.append(source[member.start_byte : member.end_byte].decode("utf-8", "replace"))
            last = member
        current = current.child_by_field_name("object")
    members.reverse()
    if current is not None and current.type == "identifier":
        head = source[current.start_byte : current.end_byte].decode("utf-8", "replace")
        return (head, *members), node
    return ("", *members), last


def annotation_names(node: ts.Node, source: bytes) -> tuple[tuple[str, ...], int]:
    """`"Foo"` or `"mod.Foo"` used as an annotation: the names it spells and their byte offset
    inside the string, else ((), 0)."""
    raw = source[node.start_byte : node.end_byte].decode("utf-8", "replace")
    body = raw.lstrip("rRuU").strip("\"'").strip()
    names = tuple(body.split("."))
    if body and all(name.isidentifier() for name in names):
        return names, raw.index(body)
    return (), 0


def in_literal(node: ts.Node, source: bytes) -> bool:
    """A string inside `Literal[...]` is a value, not the name of a type."""
    current = node.parent
    for _ in range(4):
        if current is None or current.type in ("typed_parameter", "typed_default_parameter", "assignment"):
            return False
        if current.type in ("generic_type", "subscript") and current.named_child_count:
            base = current.named_children[0]
            return source[base.start_byte : base.end_byte].endswith(b"Literal")
        current = current.parent
    return False


def split_by_ranges(nodes: list[ts.Node], starts: list[int], ends: list[int]) -> tuple[list[ts.Node], list[ts.Node]]:
    """Nodes outside and inside the given sorted, disjoint ranges."""
    outside: list[ts.Node] = []
    inside: list[ts.Node] = []
    for node in nodes:
        start = node.start_byte
        index = bisect_right(starts, start) - 1
        (inside if index >= 0 and start < ends[index] else outside).append(node)
    return outside, inside


def python_references(
    captures: dict[str, list[ts.Node]],
    source: bytes,
    type_ranges: list[tuple[int, int]],
    skip: set[int],
) -> list[Reference]:
    """Every reference in the file. `type_ranges` are the annotations (sorted, disjoint) whose
    reads count as type uses; `skip` holds ids of identifier nodes that are binding sites."""
    refs: list[Reference] = []
    get = captures.get
    names_of: dict[bytes, tuple[str, ...]] = {}
    starts = [start for start, _ in type_ranges]
    ends = [end for _, end in type_ranges]
    excluded = set(skip)
    reads = get("read", [])
    binary = get("binary")
    if binary:
        reads = reads + right_operands(binary, ("identifier", "attribute"))
    for capture, role in ROLE_ORDER:
        nodes = reads if capture == "read" else get(capture)
        if not nodes:
            continue
        if role in RETYPED:
            if excluded:
                nodes = [node for node in nodes if node.id not in excluded]
            if starts:
                nodes, annotations = split_by_ranges(nodes, starts, ends)
                emit_references(annotations, Role.TYPE, source, names_of, atom_names, refs)
        elif role is Role.EXTENDS:
            excluded.update(node.id for node in nodes)
        emit_references(nodes, role, source, names_of, atom_names, refs)
    strings = captures.get("annotation", [])
    if starts:
        # `typing.Optional["Foo"]` is a subscript: its strings are annotations only inside one.
        strings = strings + split_by_ranges(get("maybe_annotation", []), starts, ends)[1]
    for node in strings:
        names, offset = annotation_names(node, source)
        if names and not in_literal(node, source):
            row, column = node.start_point
            refs.append(Reference(names, Role.TYPE, row + 1, column + offset, node.start_byte + offset))
    for node in captures.get("pattern", ()):
        # A dotted name in a `case` pattern is a value looked up, not a capture.
        raw = source[node.start_byte : node.end_byte].decode("utf-8", "replace")
        row, column = node.start_point
        refs.append(Reference(tuple(p.strip() for p in raw.split(".")), Role.READ, row + 1, column, node.start_byte))
    refs.sort(key=attrgetter("start_byte"))
    return refs
