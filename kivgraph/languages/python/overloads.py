"""Python `@overload` sets folded into one declaration: the implementation (or the first overload
when there is none) spanning every signature, which its own signature lists.

Syntax only: a set is a run of sibling defs of one name whose decorator is named `overload`.
"""

from typing import NamedTuple

import tree_sitter as ts

from kivgraph.languages.syntax import Declaration
from kivgraph.languages.treesitter import MAX_SIGNATURE, text

OVERLOAD_PREFIX = "@overload "


class Definition(NamedTuple):
    """One def as `python_syntax` sees it: the statement (with its decorators) and its scope."""

    outer: ts.Node
    parent: int
    """Index of the enclosing def or class scope, -1 for the module."""
    is_class: bool


def is_overload(outer: ts.Node, source: bytes) -> bool:
    """`@overload`, `@typing.overload`, `@t.overload` above a def."""
    if outer.type != "decorated_definition":
        return False
    for decorator in outer.named_children:
        expression = decorator.named_children[0] if decorator.named_child_count else None
        if (
            decorator.type == "decorator"
            and expression is not None
            and expression.type in ("identifier", "attribute")
            and text(expression, source).rpartition(".")[2].strip() == "overload"
        ):
            return True
    return False


def previous_statement(node: ts.Node) -> ts.Node | None:
    sibling = node.prev_named_sibling
    while sibling is not None and sibling.type == "comment":
        sibling = sibling.prev_named_sibling
    return sibling


def fold_overloads(declarations: list[Declaration], definitions: list[Definition], source: bytes) -> list[Declaration]:
    """`declarations[i]` is the declaration of `definitions[i]`; returns them with each overload set
    as one declaration. Its name is where the first overload names it (where a type checker's index
    defines the symbol); its signature is the implementation's, then each overload's."""
    order = sorted(range(len(definitions)), key=lambda i: definitions[i].outer.start_byte)
    groups: list[list[int]] = []
    for i in order:
        d = definitions[i]
        if d.is_class:
            continue
        if groups:
            group = groups[-1]
            last = definitions[group[-1]]
            if (
                is_overload(last.outer, source)
                and last.parent == d.parent
                and declarations[group[-1]].name == declarations[i].name
                and previous_statement(d.outer) == last.outer
            ):
                group.append(i)
                continue
        if is_overload(d.outer, source):
            groups.append([i])
    dropped: set[int] = set()
    folded: dict[int, Declaration] = {}
    for group in groups:
        if len(group) < 2:
            continue
        first, last = declarations[group[0]], declarations[group[-1]]
        implemented = not is_overload(definitions[group[-1]].outer, source)
        stubs = group[:-1] if implemented else group
        signatures = [OVERLOAD_PREFIX + declarations[i].signature for i in stubs]
        if implemented:
            signatures.insert(0, last.signature)
        kept = last if implemented else first
        folded[group[0]] = kept._replace(
            start_byte=first.start_byte,
            start_line=first.start_line,
            end_byte=last.end_byte,
            end_line=last.end_line,
            name_line=first.name_line,
            name_column=first.name_column,
            signature=cap("; ".join(signatures)),
            exported=any(declarations[i].exported for i in group),
            doc=kept.doc or next((declarations[i].doc for i in group if declarations[i].doc), ""),
        )
        dropped.update(group[1:])
    return [folded.get(i, d) for i, d in enumerate(declarations) if i not in dropped]


def cap(signature: str) -> str:
    # Each signature is already capped; the set may hold several, all worth keeping.
    limit = 4 * MAX_SIGNATURE
    return signature if len(signature) <= limit else signature[: limit - 1] + "…"
