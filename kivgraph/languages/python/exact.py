"""What scip-python's index leaves unsaid about a Python file, read from syntax for the exact layer:
`__all__` entries, receivers declared as unions, names a `def` redeclares, slots it names a class for.

Syntax and one file's scopes only: `scip/ingest.py` binds these positions to the index's
resolutions. A union receiver is `narrowed` unless syntax proves the type checker saw its declared type.
"""

import re
from dataclasses import dataclass, field
from typing import NamedTuple

import tree_sitter as ts

from kivgraph.languages.scopes import FileScopes
from kivgraph.languages.treesitter import parser, text
from kivgraph.model import SymbolKind

DUNDER_ALL = re.compile(rb"(?m)^__all__\s*(?::[^=\n]*)?\+?=")
UNION_HINT = re.compile(rb"\||\bUnion\[")
STATEMENTS = frozenset({"block", "module", "expression_statement", "return_statement", "function_definition"})
DOTTED = r"[A-Za-z_]\w*(?:\s*\.\s*[A-Za-z_]\w*)*"
STRING_UNION = re.compile(rf"\s*{DOTTED}(?:\s*\|\s*{DOTTED})*\s*")
NAME = re.compile(r"[A-Za-z_]\w*")
REDECLARING = re.compile(rb"(?:^|[\s;:])(?:def|class)\s+$")

TESTS = frozenset(
    {"boolean_operator", "not_operator", "comparison_operator", "conditional_expression", "assert_statement",
     "if_clause", "case_pattern"}
)  # fmt: skip
"""Expressions whose outcome can narrow a name they mention (pyright narrows on all of these)."""
TESTED_FIELD = {"if_statement": "condition", "elif_clause": "condition", "while_statement": "condition",
                "match_statement": "subject"}  # fmt: skip
READS = frozenset(
    {"attribute", "argument_list", "return_statement", "expression_statement", "list", "tuple", "set", "pair",
     "binary_operator", "unary_operator", "subscript", "slice", "call", "parenthesized_expression", "await",
     "yield", "interpolation", "list_splat", "dictionary_splat", "expression_list", "keyword_argument",
     "assignment", "lambda"}
)  # fmt: skip
"""Parents under which a name is only read (the field checked where the parent also binds)."""


class ExportEntry(NamedTuple):
    """A string of `__all__`: the name and where its text starts."""

    name: str
    byte: int
    line: int


class ExportBinding(NamedTuple):
    """What binds an `__all__` name in its module."""

    entry: ExportEntry
    declaration: int
    """Index of the module-level declaration of that name in this file; -1 when an import binds it."""
    resolved_at: int
    """Byte where the index resolves what the import binds; -1 when nothing here binds the name."""
    wildcard: bool
    """Nothing here binds the name, but `from m import *` could."""
    module: str = ""
    """The module the import names, were it a submodule (`from . import a` → `.a`)."""


class UnionReceiver(NamedTuple):
    """`x.member` where the parameter `x` is declared `A | B` (or `Union[A, B]`)."""

    receiver: str
    annotation: str
    members: tuple[int, ...]
    """Byte of each class the annotation names (its last name), where the index resolves it."""
    narrowed: bool
    """The function may narrow or rebind `x`: the type checker's one answer may be all there is."""


@dataclass(slots=True)
class PythonExtras:
    exports: list[ExportEntry] = field(default_factory=list[ExportEntry])
    unions: dict[int, UnionReceiver] = field(default_factory=dict[int, UnionReceiver])
    """Byte of the member name in `x.member` → its receiver."""


def python_extras(source: bytes) -> PythonExtras:
    """Both facts, from a parse of the file only when a cheap look at its text says it may hold one
    (a module-level `__all__`; a `|` between two names neither of which is None, or `Union[`)."""
    extras = PythonExtras()
    exports = DUNDER_ALL.search(source) is not None
    hints = [m.start() for m in UNION_HINT.finditer(source) if could_join_classes(source, m.start(), m.group())]
    if not exports and not hints:
        return extras
    root = parser("python").parse(source).root_node
    if exports:
        for statement in root.named_children:
            assignment = statement.named_children[0] if statement.type == "expression_statement" else None
            if assignment is not None and assignment.type in ("assignment", "augmented_assignment"):
                left, right = assignment.child_by_field_name("left"), assignment.child_by_field_name("right")
                if left is not None and text(left, source) == "__all__" and right is not None:
                    extras.exports.extend(export_entries(right) if right.type in ("list", "tuple") else [])
    seen: set[int] = set()
    for hint in hints:
        parameter = enclosing_parameter(root.descendant_for_byte_range(hint, hint + 1))
        if parameter is None or parameter.id in seen:
            continue
        seen.add(parameter.id)
        name = parameter.child_by_field_name("name") or parameter.named_children[0]
        annotation = parameter.child_by_field_name("type")
        function = parameter.parent.parent if parameter.parent is not None else None
        body = function.child_by_field_name("body") if function is not None else None
        members = union_members(annotation, source) if annotation is not None else ()
        if members and body is not None and name.type == "identifier":
            receiver = text(name, source)
            sites, narrowed = receiver_sites(body, receiver.encode("utf-8"), source)
            held = UnionReceiver(receiver, " ".join(text(annotation, source).split()), members, narrowed)
            for site in sites:
                extras.unions[site] = held
    return extras


def could_join_classes(source: bytes, at: int, hint: bytes) -> bool:
    """`A | B` may be a union of classes; `X | None`, `None | X` and `|=` are not worth a parse."""
    if hint != b"|":
        return True
    after = source[at + 1 : at + 8].lstrip()
    if after.startswith(b"=") or (after.startswith(b"None") and not after[4:5].isalnum() and after[4:5] != b"_"):
        return False
    before = source[max(0, at - 8) : at].rstrip()
    return not (before.endswith(b"None") and not before[-5:-4].isalnum() and before[-5:-4] != b"_")


def enclosing_parameter(node: ts.Node | None) -> ts.Node | None:
    """The typed parameter of a `def` whose annotation holds `node`, if any."""
    for _ in range(16):
        if node is None or node.type in STATEMENTS:
            return None
        if node.type in ("typed_parameter", "typed_default_parameter"):
            holder = node.parent
            function = holder.parent if holder is not None else None
            if holder is not None and holder.type == "parameters" and function is not None:
                return node if function.type == "function_definition" else None
            return None
        node = node.parent
    return None


def export_entries(sequence: ts.Node) -> list[ExportEntry]:
    found: list[ExportEntry] = []
    for item in sequence.named_children:
        contents = [child for child in item.named_children if child.type == "string_content"]
        if item.type == "string" and len(contents) == 1 and item.named_child_count == 3:
            content = contents[0]
            name = content.text.decode("utf-8", "replace") if content.text is not None else ""
            if name.isidentifier():
                found.append(ExportEntry(name, content.start_byte, content.start_point[0] + 1))
    return found


def union_members(annotation: ts.Node, source: bytes) -> tuple[int, ...]:
    """Where each class of a union annotation is named; () unless it names two or more, all plainly."""
    members: list[int] = []
    if not collect_members(annotation, source, members, 0):
        return ()
    return tuple(members) if len(members) >= 2 else ()


def collect_members(node: ts.Node, source: bytes, members: list[int], depth: int) -> bool:
    kind = node.type
    if depth > 8:
        return False
    if kind == "type":
        return node.named_child_count == 1 and collect_members(node.named_children[0], source, members, depth + 1)
    if kind == "binary_operator":
        operator = node.child_by_field_name("operator")
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if operator is None or text(operator, source) != "|" or left is None or right is None:
            return False
        return collect_members(left, source, members, depth + 1) and collect_members(right, source, members, depth + 1)
    if kind == "union_type":
        return all(collect_members(child, source, members, depth + 1) for child in node.named_children)
    if kind == "none" or (kind == "identifier" and text(node, source) == "None"):
        return True
    if kind == "identifier":
        members.append(node.start_byte)
        return True
    if kind == "attribute":
        last = node.child_by_field_name("attribute")
        if last is None:
            return False
        members.append(last.start_byte)
        return True
    if kind in ("generic_type", "subscript"):
        base = node.named_children[0] if node.named_child_count else None
        if base is None or base.type not in ("identifier", "attribute"):
            return False
        base_name = text(base, source).rpartition(".")[2].strip()
        if base_name not in ("Union", "Optional"):
            return collect_members(base, source, members, depth + 1)  # `Box[int]`: the class is Box
        arguments = [child for child in node.named_children[1:]]
        if len(arguments) == 1 and arguments[0].type == "type_parameter":
            arguments = list(arguments[0].named_children)
        return bool(arguments) and all(collect_members(a, source, members, depth + 1) for a in arguments)
    if kind == "string":
        return string_members(node, source, members)
    return False


def string_members(node: ts.Node, source: bytes, members: list[int]) -> bool:
    """`"A | m.B"`: the classes a quoted annotation names, at their positions inside the string."""
    contents = [child for child in node.named_children if child.type == "string_content"]
    if len(contents) != 1 or node.named_child_count != 3:
        return False
    raw = source[contents[0].start_byte : contents[0].end_byte].decode("utf-8", "replace")
    if not raw.isascii() or STRING_UNION.fullmatch(raw) is None:
        return False
    offset = 0
    for part in raw.split("|"):
        names = [m for m in NAME.finditer(part)]
        if [m.group() for m in names] != ["None"]:
            members.append(contents[0].start_byte + offset + names[-1].start())
        offset += len(part) + 1
    return True


def receiver_sites(body: ts.Node, name: bytes, source: bytes) -> tuple[list[int], bool]:
    """Bytes of the member names in `name.member` within a function body, and whether the body
    may narrow or rebind `name`: it is mentioned in a test (a condition, a comparison, `and`/`or`,
    `not`, `assert`, `match`), assigned to something (pyright narrows on aliased conditions), or
    written anywhere a name is not only read (an assignment target, a loop variable, a nested
    parameter, `del`, `global`)."""
    sites: list[int] = []
    narrowed = False
    stack = [body]
    while stack:
        node = stack.pop()
        if node.type != "identifier":
            stack.extend(node.children)
            continue
        if source[node.start_byte : node.end_byte] != name:
            continue
        parent = node.parent
        if parent is None:
            continue
        if (parent.type == "attribute" and node_is(parent, "attribute", node)) or (
            parent.type == "keyword_argument" and node_is(parent, "name", node)
        ):
            continue  # `y.x` and `f(x=…)` name something else
        expression = node
        if parent.type == "attribute":
            member = parent.child_by_field_name("attribute")
            if member is not None:
                sites.append(member.start_byte)
            expression = parent
        elif parent.type not in READS or (parent.type == "assignment" and not node_is(parent, "right", node)):
            narrowed = True
            continue
        narrowed = narrowed or tested(expression, body) or aliased(expression)
    return sites, narrowed


def node_is(parent: ts.Node, field_name: str, node: ts.Node) -> bool:
    child = parent.child_by_field_name(field_name)
    return child is not None and child.id == node.id


def tested(expression: ts.Node, body: ts.Node) -> bool:
    child, parent = expression, expression.parent
    while parent is not None and parent.id != body.id and parent.type != "block":
        if parent.type in TESTS:
            return True
        condition = TESTED_FIELD.get(parent.type)
        if condition is not None and node_is(parent, condition, child):
            return True
        child, parent = parent, parent.parent
    return False


def aliased(expression: ts.Node) -> bool:
    """`flag = isinstance(x, A)`, `flag = x.kind`, `flag = x`: a test kept for later."""
    candidate = expression
    parent = expression.parent
    if parent is not None and parent.type == "argument_list" and parent.parent is not None:
        candidate = parent.parent
    holder = candidate.parent
    if holder is None:
        return False
    return (holder.type in ("assignment", "augmented_assignment") and node_is(holder, "right", candidate)) or (
        holder.type == "named_expression" and node_is(holder, "value", candidate)
    )


def redeclares(source: bytes, byte: int) -> bool:
    """The name at `byte` follows `def` or `class`: it declares (again), it does not use."""
    if byte == 0 or source[byte - 1] not in b" \t":
        return False
    line_start = source.rfind(b"\n", 0, byte) + 1
    return REDECLARING.search(source[line_start:byte]) is not None


def name_at(source: bytes, byte: int) -> str:
    """The identifier written at `byte`."""
    end = byte
    while end < len(source) and (source[end : end + 1].isalnum() or source[end] == 0x5F or source[end] >= 0x80):
        end += 1
    return source[byte:end].decode("utf-8", "replace")


def slot_field(scopes: FileScopes, class_index: int, name: str) -> int:
    """The field `name` declared in the body of class `class_index` (its `__slots__` entry), or -1.

    scip-python names the class where a member access resolves to a `__slots__` entry."""
    declarations = scopes.syntax.declarations
    owner = declarations[class_index]
    if owner.kind is not SymbolKind.CLASS or owner.name == name:
        return -1
    for i, d in enumerate(declarations):
        if (
            d.kind is SymbolKind.FIELD
            and d.name == name
            and owner.start_byte <= d.start_byte < owner.end_byte
            and (d.owner == owner.name or scopes.parents[i] == class_index)
        ):
            return i
    return -1


def export_bindings(entries: list[ExportEntry], scopes: FileScopes, source: bytes) -> list[ExportBinding]:
    """What binds each `__all__` name at module level: the later of a declaration and an import."""
    found: list[ExportBinding] = []
    declarations = scopes.syntax.declarations
    for entry in entries:
        top = scopes.last_binding(scopes.top.get(entry.name, []))
        declared = top[-1] if top else -1
        imports = scopes.imports.get(entry.name, [])
        imported = imports[-1] if imports else None
        if imported is not None and (declared < 0 or declarations[declared].start_byte < imported.start_byte):
            module, name = imported.module, imported.name
            site = import_site(module, name, imported.local_name, imported.start_byte, source)
            submodule = module if name is None else module + name if module.endswith(".") else f"{module}.{name}"
            found.append(ExportBinding(entry, -1, site, False, submodule))
        elif declared >= 0:
            found.append(ExportBinding(entry, declared, -1, False))
        else:
            found.append(ExportBinding(entry, -1, -1, bool(scopes.wildcards)))
    return found


def import_site(module: str, name: str | None, local: str | None, byte: int, source: bytes) -> int:
    """Where scip-python resolves what an import binds: the imported name (`from m import a as b`
    → `a`), or the module (`import a.b as c` → `a`); -1 for `import a.b`, which binds `a` but is
    resolved as `a.b`."""
    line_start = source.rfind(b"\n", 0, byte) + 1
    if name is not None:
        if local == name:
            return byte
        return source.rfind(name.encode("utf-8"), line_start, byte)
    if local == module:
        return -1 if source[byte + len(module) : byte + len(module) + 1] == b"." else byte
    return source.rfind(module.encode("utf-8"), line_start, byte)
