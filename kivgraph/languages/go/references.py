"""Go references: name paths as written, with their role, from the reference captures of `go.scm`.

Works on captured atoms only (an identifier, a type name, `pkg.Type`, or the outermost selector of
a chain); it never walks the tree. Whether a head is a local is left to the resolver.
"""

from operator import attrgetter

import tree_sitter as ts

from kivgraph.languages.emit import LONG_PATH, emit_references, right_operands
from kivgraph.languages.syntax import Reference, Role

# Processing order matters: a node met in an earlier bucket is not reported again by a later one
# (`expression_list` reads also match assignment values and returns; embedded fields are types).
ROLE_ORDER: tuple[tuple[str, Role], ...] = (
    ("embeds", Role.EMBEDS),
    ("index_key", Role.READ),
    ("call", Role.CALL),
    ("generic_call", Role.CALL),
    ("callback", Role.CALLBACK),
    ("assign", Role.ASSIGN),
    ("return", Role.RETURN),
    ("qualified", Role.TYPE),
    ("type", Role.TYPE),
    ("read_once", Role.READ),
    ("read", Role.READ),
)
MARKS = frozenset({"embeds", "index_key", "generic_call", "assign", "return"})
CHAINS = ("selector_expression", "qualified_type")
CHECKED = frozenset({"qualified", "type", "read_once"})


def selector_names(node: ts.Node, source: bytes) -> tuple[tuple[str, ...], ts.Node]:
    """The path a selector chain spells, and the node where it starts. `a.b.c` → ("a", "b", "c");
    `f().m` → ("", "m") placed at `m`, because nothing names the receiver. A long chain is read by
    its syntax only (see `LONG_PATH`)."""
    if node.type not in CHAINS or node.end_byte - node.start_byte <= LONG_PATH:
        raw = source[node.start_byte : node.end_byte].decode("utf-8", "replace")
        names = tuple(part.strip() for part in raw.split("."))
        if all(name.isidentifier() for name in names):
            return names, node
    members: list[str] = []
    current: ts.Node | None = node
    last = node
    while current is not None and current.type in CHAINS:
        member = current.child_by_field_name("field") or current.child_by_field_name("name")
        if member is not None:
            members.append(source[member.start_byte : member.end_byte].decode("utf-8", "replace"))
            last = member
        current = current.child_by_field_name("operand") or current.child_by_field_name("package")
    members.reverse()
    if current is not None and current.type in ("identifier", "package_identifier"):
        head = source[current.start_byte : current.end_byte].decode("utf-8", "replace")
        return (head, *members), node
    return ("", *members), last


def go_references(
    captures: dict[str, list[ts.Node]],
    source: bytes,
    skip: set[int],
    hidden: list[tuple[int, int, frozenset[str]]],
) -> list[Reference]:
    """Every reference in the file. `skip` holds ids of nodes that are not uses (binding sites,
    declared type names); `hidden` are (start, end, names) of generic type declarations whose
    type parameters are not references to anything outside."""
    refs: list[Reference] = []
    get = captures.get
    seen = set(skip)
    qualified_ends = {node.end_byte for node in get("qualified", ())}
    # The blank identifier `_` is never a use of anything.
    names_of: dict[bytes, tuple[str, ...]] = {b"_": ()}
    reads = get("read", [])
    binary = get("binary")
    if binary:
        reads = reads + right_operands(binary, ("identifier", "selector_expression"))
    for capture, role in ROLE_ORDER:
        nodes = reads if capture == "read" else get(capture)
        if not nodes:
            continue
        if capture in CHECKED and seen:
            nodes = [node for node in nodes if node.id not in seen]
        if capture == "type" and qualified_ends:
            # the `T` of `pkg.T` is reported with its package
            nodes = [
                node
                for node in nodes
                if node.end_byte not in qualified_ends or source[node.start_byte - 1 : node.start_byte] != b"."
            ]
        if capture in MARKS:
            seen.update(node.id for node in nodes)
        emit_references(nodes, role, source, names_of, selector_names, refs)
    if hidden:
        refs = [ref for ref in refs if not type_parameter_use(ref, hidden)]
    refs.sort(key=attrgetter("start_byte"))
    return refs


def type_parameter_use(ref: Reference, hidden: list[tuple[int, int, frozenset[str]]]) -> bool:
    if len(ref.names) != 1:
        return False
    return any(start <= ref.start_byte < end and ref.names[0] in names for start, end, names in hidden)
