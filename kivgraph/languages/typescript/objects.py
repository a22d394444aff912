"""Object literals: the members of one that a module-level name holds, and the keys of one whose
type is written next to it.

`const handlers = { a() {…} }` declares `handlers.a`, so what its body does is `handlers.a`'s and
not the module's. In `const x: Action = { kind: "add" }` each key names a member of `Action`: a
reference, placed at the key. Syntax sees no other contextual type (an argument, a return value).
"""

import tree_sitter as ts

from kivgraph.languages.syntax import Reference, Role
from kivgraph.languages.typescript.drafts import Draft, DraftBook
from kivgraph.languages.typescript.references import annotated_type, plain_type
from kivgraph.languages.typescript.scan import FileScan, first_named, last_named, string_value
from kivgraph.model import SymbolKind

FUNCTION_VALUES = frozenset({"arrow_function", "function_expression", "generator_function", "function"})
OBJECT_WRAPPERS = frozenset(
    {"as_expression", "satisfies_expression", "parenthesized_expression", "non_null_expression"}
)
KEY_NAMES = frozenset({"property_identifier", "string"})


def object_literal(value: ts.Node | None) -> ts.Node | None:
    """The object literal a value is, through `( … )`, `… as T`, `… satisfies T` and `…!`."""
    while value is not None and value.type in OBJECT_WRAPPERS:
        value = first_named(value)
    return value if value is not None and value.type == "object" else None


class ObjectMembers(DraftBook):
    """Declares the members of object literals held by declarations (variables, fields, exports)."""

    def object_members(self, obj: ts.Node, owner: Draft) -> bool:
        """Methods and function-valued properties of `obj`, and nested literals that have such
        members. Data keys are not declarations, nor is a shorthand `{ handler }`: the resolver
        looks names up among a non-type's members, and `handler` would find itself there instead
        of the binding it names. True when any member was declared."""
        declared = False
        for member in obj.named_children:
            kind = member.type
            if kind == "method_definition":
                draft = self.literal_method(member)
            elif kind == "pair":
                draft = self.literal_pair(member)
            else:
                continue
            if draft is None:
                continue
            draft.owner_draft = owner
            declared = True
        return declared

    def key_name(self, member: ts.Node, field: str) -> tuple[str, ts.Node] | None:
        key = member.child_by_field_name(field)
        if key is None or key.type not in KEY_NAMES:
            return None  # a computed key (`[k]() {}`) has no name syntax can give
        name = string_value(key, self.source) if key.type == "string" else self.text(key)
        return (name, key) if name else None

    def literal_method(self, member: ts.Node) -> Draft | None:
        named = self.key_name(member, "name")
        if named is None:
            return None
        words = {c.type for c in member.children if not c.is_named}
        kind = SymbolKind.GETTER if "get" in words else SymbolKind.SETTER if "set" in words else SymbolKind.METHOD
        body = member.child_by_field_name("body")
        draft = self.draft(named[0], kind, member, named[1], cut=body.start_byte if body is not None else None)
        draft.opens_scope = True
        self.scan.member_keys.add(named[1].id)
        return draft

    def literal_pair(self, member: ts.Node) -> Draft | None:
        named = self.key_name(member, "key")
        value = member.child_by_field_name("value")
        if named is None or value is None:
            return None
        name, key = named
        if value.type in FUNCTION_VALUES:
            body = value.child_by_field_name("body")
            draft = self.draft(name, SymbolKind.METHOD, member, key, cut=body.start_byte if body is not None else None)
            draft.opens_scope = True
            self.scan.member_keys.add(key.id)
            return draft
        nested = object_literal(value)
        if nested is None:
            return None
        draft = self.draft(name, SymbolKind.PROPERTY, member, key, cut=self.value_cut(value))
        if not self.object_members(nested, draft):
            self.drafts.remove(draft)  # a data record, not an API: its keys are not declarations
            return None
        return draft


def typed_keys(scan: FileScan) -> list[Reference]:
    """References from the keys of object literals whose type is written beside them to the
    members of that type. A key that declares a member (`handlers.a`) implements the member of
    its name; any other key reads it."""
    found: list[Reference] = []
    for declarator in scan.nodes("typed.declarator"):
        value = declarator.child_by_field_name("value")
        while value is not None and value.type == "parenthesized_expression":
            value = first_named(value)
        if value is not None and value.type == "object":
            type_name = annotated_type(declarator.child_by_field_name("type"), scan.source)
            keys_of(scan, value, type_name, found)
    for expression in scan.nodes("typed.object"):
        value = object_literal(first_named(expression))
        if value is not None:
            keys_of(scan, value, plain_type(last_named(expression), scan.source), found)
    return found


def keys_of(scan: FileScan, obj: ts.Node, type_name: str, found: list[Reference]) -> None:
    if not type_name:
        return
    for member in obj.named_children:
        kind = member.type
        if kind == "shorthand_property_identifier":
            key: ts.Node | None = member
        elif kind == "method_definition":
            key = member.child_by_field_name("name")
        elif kind == "pair":
            key = member.child_by_field_name("key")
        else:
            continue
        if key is None or key.type not in ("property_identifier", "shorthand_property_identifier"):
            continue
        role = Role.IMPLEMENTS if key.id in scan.member_keys else Role.READ
        row, column = key.start_point
        found.append(Reference((type_name, scan.text(key)), role, row + 1, column, key.start_byte))
