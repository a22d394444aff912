"""Emitting references from captured name nodes on the hot path, shared by the adapters.

`emit_references` is the loop every captured name goes through: keep it free of branches that do
not depend on the node. Plain names and ASCII dotted paths are decoded once per file.
"""

import re
from collections.abc import Callable

import tree_sitter as ts

from kivgraph.languages.syntax import Reference, Role

DOTTED = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+").fullmatch
"""`a.b.c` in plain ASCII, the shape almost every name path has."""
LONG_PATH = 256
"""Name nodes longer than this go to the slow path unread: in `x.a().a()…` each callee spans every
call before it, so reading the text of each would be quadratic in the length of the chain."""
SlowPath = Callable[[ts.Node, bytes], tuple[tuple[str, ...], ts.Node]]


def emit_references(
    nodes: list[ts.Node],
    role: Role,
    source: bytes,
    names_of: dict[bytes, tuple[str, ...]],
    slow_path: SlowPath,
    out: list[Reference],
) -> None:
    """Append a reference for each captured name or name path.

    `names_of` caches the names a plain `a` or `a.b.c` spells (an empty tuple drops the node);
    anything else (a call or index inside the chain, a comment, non-ASCII) goes to `slow_path`,
    which returns the names and the node the reference is placed at; so does a node longer than
    LONG_PATH, which the slow path reads by its syntax rather than its text.
    """
    append = out.append
    cached = names_of.get
    for node in nodes:
        start = node.start_byte
        end = node.end_byte
        site = node
        if end - start > LONG_PATH:
            names, site = slow_path(node, source)
            start = site.start_byte
        else:
            raw = source[start:end]
            names = cached(raw)
            if names is None:
                if b"." not in raw:
                    names = names_of[raw] = (raw.decode("utf-8", "replace"),)
                elif DOTTED(raw):
                    names = names_of[raw] = tuple(raw.decode("ascii").split("."))
                else:
                    names, site = slow_path(node, source)
                    start = site.start_byte
            elif not names:
                continue
        row, column = site.start_point
        append(Reference(names, role, row + 1, column, start))


def right_operands(nodes: list[ts.Node], name_types: tuple[str, ...]) -> list[ts.Node]:
    """The right operands of binary expressions that are names (`a + b` → `b`).

    Queries capture the binary expression rather than its right operand because matching the
    operand directly goes quadratic on long `a + b + c + …` chains in generated code.
    """
    operands: list[ts.Node] = []
    for node in nodes:
        right = node.child_by_field_name("right")
        if right is not None and right.type in name_types:
            operands.append(right)
    return operands
