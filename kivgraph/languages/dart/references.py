"""Dart references and bindings from query captures, with member-access chains rebuilt from bytes.

tree-sitter-dart writes `a.b.c()` as `a` followed by sibling selectors, so each selector part is
an event (member, call, index, type arguments) and an event continues the chain that ends right
before it (whitespace, `.`, `?.` and `!` aside). Siblings are never walked: on long bodies each
sibling step costs O(siblings).
"""

import re
from bisect import bisect_right
from dataclasses import dataclass, field

import tree_sitter as ts

from kivgraph.languages.syntax import Binding, Reference, Role

IDENT_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$")
DIGIT_BYTES = frozenset(b"0123456789")
SPACE_BYTES = frozenset(b" \t\r\n")
IDENT_LOOKUP = frozenset(bytes([b]) for b in IDENT_BYTES)
NEWLINE = re.compile(b"\n")
MEMBER, CASCADE, CALL, INDEX, TYPE_ARGUMENTS = range(5)
EVENT_CAPTURES = (
    ("chain.member", MEMBER),
    ("chain.cascade", CASCADE),
    ("chain.call", CALL),
    ("chain.index", INDEX),
    ("chain.type_arguments", TYPE_ARGUMENTS),
)
ROLE_CAPTURES = (
    ("role.callback", Role.CALLBACK),
    ("role.return", Role.RETURN),
    ("role.assign", Role.ASSIGN),
    ("role.read", Role.READ),
)


class Lines:
    """Byte offset → (line, column) for positions that have no node of their own."""

    def __init__(self, source: bytes) -> None:
        self.source = source
        self.starts: list[int] | None = None

    def point(self, position: int) -> tuple[int, int]:
        if self.starts is None:
            self.starts = [0] + [m.end() for m in NEWLINE.finditer(self.source)]
        row = bisect_right(self.starts, position) - 1
        return row + 1, position - self.starts[row]


@dataclass(slots=True)
class Chain:
    """A member-access chain being rebuilt: the names so far, or "" once the receiver is an
    expression (after a call or an index)."""

    names: list[str]
    start: int
    line: int
    column: int
    head_start: int
    last: int = MEMBER
    emitted: list[Reference] = field(default_factory=list[Reference])


def _back_space(source: bytes, position: int) -> int:
    while position > 0 and source[position - 1] in SPACE_BYTES:
        position -= 1
    return position


def _skip_bang(source: bytes, position: int) -> int:
    """Step back over `!` null assertions (`a!.b`), which do not change what is named."""
    while position > 0 and source[position - 1] == 0x21 and source[position - 2 : position] != b"!=":
        position = _back_space(source, position - 1)
    return position


def node_text(node: ts.Node, source: bytes) -> str:
    return source[node.start_byte : node.end_byte].decode("utf-8", errors="replace")


class ReferenceBuilder:
    def __init__(self, captures: dict[str, list[ts.Node]], source: bytes, claimed: set[int]) -> None:
        self.captures = captures
        self.source = source
        self.claimed = claimed
        self.lines = Lines(source)
        self.out: list[Reference] = []
        self.heads: set[int] = set()
        self.roles: dict[int, Role] = {}

    def build(self) -> list[Reference]:
        for capture, role in ROLE_CAPTURES:
            for node in self.captures.get(capture, ()):
                self.roles.setdefault(node.start_byte, role)
        self.constructions()
        self.chains()
        self.bare_names()
        self.qualified_names()
        self.annotations()
        self.types()
        return self.out

    # -- chains --------------------------------------------------------------------------------

    def chains(self) -> None:
        source = self.source
        events: list[tuple[int, int, int, ts.Node]] = []
        for capture, kind in EVENT_CAPTURES:
            for node in self.captures.get(capture, ()):
                events.append((node.start_byte, node.end_byte, kind, node))
        events.sort(key=lambda e: (e[0], e[2]))
        sections = {n.start_byte: n.end_byte for n in self.captures.get("cascade_section", ())}
        receivers: dict[int, tuple[str, int]] = {}
        open_chains: dict[int, Chain] = {}
        for start, end, kind, node in events:
            if kind in (MEMBER, CASCADE):
                dot = _back_space(source, start)
                cascade = source[dot - 2 : dot] == b".."
                if source[dot - 1 : dot] != b".":
                    continue
                dot -= 2 if cascade else 1
                if source[dot - 1 : dot] == b"?":
                    dot -= 1
                before = _skip_bang(source, _back_space(source, dot))
                name = node_text(node, source)
                if cascade:
                    chain = self.cascade_chain(before, node, sections.get(dot, -1), receivers, open_chains)
                    chain.names.append(name)
                else:
                    chain = open_chains.pop(before, None) or self.new_chain(before, node)
                    if chain.names == [""]:
                        row, column = node.start_point
                        chain.names.append(name)
                        chain.start, chain.line, chain.column = start, row + 1, column
                    else:
                        chain.names.append(name)
                chain.last = MEMBER
                open_chains[end] = chain
            else:
                before = _back_space(source, start)
                if kind == INDEX and source[before - 1 : before] == b"?":
                    before = _back_space(source, before - 1)
                before = _skip_bang(source, before)
                chain = open_chains.pop(before, None) or self.new_chain(before, node)
                if kind == CALL:
                    if chain.names != [""]:
                        self.emit(chain, Role.CALL)
                    chain.names = [""]
                    chain.last = CALL
                elif kind == INDEX:
                    if chain.last == MEMBER and chain.names != [""]:
                        self.emit(chain, Role.READ)
                    chain.names = [""]
                    chain.last = INDEX
                open_chains[end] = chain
        for chain in open_chains.values():
            if chain.last == MEMBER and chain.names != [""]:
                self.emit(chain, self.roles.get(chain.head_start, Role.READ))

    def new_chain(self, end: int, event: ts.Node) -> Chain:
        """A chain whose receiver ends at `end`: a plain name, `this`/`super`, or an expression."""
        source = self.source
        begin = end
        while begin > 0 and source[begin - 1] in IDENT_BYTES:
            begin -= 1
        dotted = source[begin - 1 : begin] == b"." and source[begin - 2 : begin] != b".."
        if begin == end or source[begin] in DIGIT_BYTES or dotted:
            row, column = event.start_point
            return Chain([""], event.start_byte, row + 1, column, -1)
        self.heads.add(begin)
        line, column = self.lines.point(begin)
        return Chain([source[begin:end].decode("utf-8", errors="replace")], begin, line, column, begin)

    def cascade_chain(
        self,
        before: int,
        node: ts.Node,
        section_end: int,
        receivers: dict[int, tuple[str, int]],
        open_chains: dict[int, Chain],
    ) -> Chain:
        """`a..b()..c = 1`: every section's receiver is the expression before the first `..`."""
        receiver = receivers.get(before)
        if receiver is None:
            chain = open_chains.get(before)
            if chain is not None:
                receiver = (chain.names[0] if len(chain.names) == 1 and chain.last == MEMBER else "", chain.head_start)
            else:
                head = self.new_chain(before, node)
                receiver = (head.names[0], head.head_start)
        if section_end >= 0:
            receivers[section_end] = receiver
        name, head_start = receiver
        if name:
            line, column = self.lines.point(head_start)
            return Chain([name], head_start, line, column, head_start)
        row, column = node.start_point
        return Chain([""], node.start_byte, row + 1, column, -1)

    def emit(self, chain: Chain, role: Role) -> None:
        self.out.append(Reference(tuple(chain.names), role, chain.line, chain.column, chain.start))

    # -- other references ----------------------------------------------------------------------

    def constructions(self) -> None:
        """`new Foo()`, `const Foo.named()`: calls of the type (or its named constructor)."""
        for node in self.captures.get("construct", ()):
            names: list[str] = []
            for child in node.named_children:
                if child.type == "type_identifier" or child.type == "identifier":
                    names.append(node_text(child, self.source))
                    if child.type == "type_identifier":
                        self.claimed.add(child.id)
                elif child.type == "arguments":
                    break
            if names:
                row, column = node.start_point
                self.out.append(Reference(tuple(names), Role.CALL, row + 1, column, node.start_byte))

    def bare_names(self) -> None:
        seen: set[int] = set()
        for capture, role in ROLE_CAPTURES:
            for node in self.captures.get(capture, ()):
                start = node.start_byte
                if start in self.heads or start in seen:
                    continue
                seen.add(start)
                row, column = node.start_point
                self.out.append(Reference((node_text(node, self.source),), role, row + 1, column, start))

    def qualified_names(self) -> None:
        """`case Color.red:` and `Color.red =>` in patterns: the grammar's only `qualified` nodes,
        whose `Color` is not the head of a member chain."""
        for node in self.captures.get("qualified", ()):
            names: list[str] = []
            for child in node.named_children:
                if child.type == "type_identifier":
                    self.claimed.add(child.id)
                names.append(node_text(child, self.source))
            row, column = node.start_point
            self.out.append(Reference(tuple(names), Role.READ, row + 1, column, node.start_byte))

    def annotations(self) -> None:
        for node in self.captures.get("annotation", ()):
            after = node.end_byte
            while after < len(self.source) and self.source[after] in SPACE_BYTES:
                after += 1
            role = Role.CALL if self.source[after : after + 1] == b"(" else Role.READ
            row, column = node.start_point
            self.out.append(Reference((node_text(node, self.source),), role, row + 1, column, node.start_byte))

    def types(self) -> None:
        source = self.source
        for capture, role in (("extends", Role.EXTENDS), ("implements", Role.IMPLEMENTS), ("type", Role.TYPE)):
            for node in self.captures.get(capture, ()):
                if node.id in self.claimed:
                    continue
                self.claimed.add(node.id)
                start = node.start_byte
                end = node.end_byte
                if source[end : end + 1] == b"." and source[end + 1 : end + 2] in IDENT_LOOKUP:
                    continue  # the prefix of `p.Type`: reported with the name it qualifies
                name = source[start:end].decode("utf-8", errors="replace")
                if source[start - 1 : start] == b"." and source[start - 2 : start - 1] in IDENT_LOOKUP:
                    prefix_start = start - 1
                    while prefix_start > 0 and source[prefix_start - 1] in IDENT_BYTES:
                        prefix_start -= 1
                    prefix = source[prefix_start : start - 1].decode("utf-8", errors="replace")
                    line, column = self.lines.point(prefix_start)
                    self.out.append(Reference((prefix, name), role, line, column, prefix_start))
                    continue
                row, column = node.start_point
                self.out.append(Reference((name,), role, row + 1, column, start))


def plain_type(first: ts.Node | None, source: bytes) -> str:
    """A binding's declared type when it is a plain name: `Foo x`, `Foo? x`, `List<Foo> x` → List."""
    if first is None or first.type != "type_identifier":
        return ""
    after = first.end_byte
    if source[after : after + 1] == b".":
        return ""  # `p.Foo`: a prefixed type, which a single name cannot carry
    return node_text(first, source)


def constructed_type(values: list[ts.Node], source: bytes) -> str:
    """`Foo(…)`, `Foo.named(…)`, `new Foo()`, `const Foo()`: the class a local is built from."""
    while values and values[-1].type == "cascade_section":
        values = values[:-1]  # `Foo()..a = 1` is still the Foo
    if not values:
        return ""
    first = values[0]
    if first.type in ("new_expression", "const_object_expression"):
        for child in first.named_children:
            if child.type == "type_identifier":
                return plain_type(child, source)
        return ""
    if first.type != "identifier" or len(values) < 2 or len(values) > 4:
        return ""
    name = node_text(first, source)
    if not name[:1].isupper():
        return ""
    last = values[-1]
    if last.type == "selector" and last.named_child_count and last.named_child(0).type == "argument_part":
        return name
    return ""


def bindings(captures: dict[str, list[ts.Node]], source: bytes, claimed: set[int]) -> list[Binding]:
    out: list[Binding] = []
    for node in captures.get("binding.parameter", ()):
        name = node.child_by_field_name("name")
        children = node.named_children
        if name is None:
            name = children[-1] if children and children[-1].type == "identifier" else None
        if name is None:
            continue
        first = children[0] if children else None
        out.append(Binding(node_text(name, source), name.start_byte, plain_type(first, source)))
    for node in captures.get("binding.local", ()):
        name = node.child_by_field_name("name")
        if name is None:
            continue
        type_name = ""
        for child in node.named_children:
            if child.start_byte >= name.start_byte:
                break
            if child.type == "type_identifier":
                type_name = plain_type(child, source)
                break
        if not type_name:
            type_name = constructed_type(node.children_by_field_name("value"), source)
        out.append(Binding(node_text(name, source), name.start_byte, type_name))
    for node in captures.get("binding.for", ()):
        previous = node.prev_named_sibling
        out.append(Binding(node_text(node, source), node.start_byte, plain_type(previous, source)))
    for node in captures.get("binding.name", ()):
        out.append(Binding(node_text(node, source), node.start_byte))
    for node in captures.get("binding.generic", ()):
        claimed.add(node.id)
        out.append(Binding(node_text(node, source), node.start_byte))
    out.sort(key=lambda b: b.start_byte)
    return out
