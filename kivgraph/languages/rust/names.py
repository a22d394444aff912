"""Names read off Rust syntax nodes: paths (`a::b::C`, `x.y.z`), plain type names, pattern bindings.

Pure functions over tree-sitter nodes of one file; they never look beyond the node they are given
(apart from a few siblings for paths inside macro token trees).
"""

import re

import tree_sitter as ts

IDENT_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$#")
DIGIT_BYTES = frozenset(b"0123456789")
SPACE_BYTES = frozenset(b" \t\r\n")
PATH_KEYWORDS = frozenset({"crate", "super", "self"})
SIMPLE_FIELD = re.compile(r"[A-Za-z_]\w*(?:\.\w+)+")
SMART_POINTERS = frozenset({"Box", "Rc", "Arc", "Cow", "Pin"})
PRIMITIVES = frozenset(
    {"i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize"}
    | {"f32", "f64", "bool", "char", "str"}
)
CONSTRUCTOR_NAMES = frozenset({"new", "default"})
CONSTRUCTOR_PREFIXES = ("new_", "with_")
PATTERN_CONTAINERS = frozenset(
    {
        "tuple_pattern",
        "slice_pattern",
        "or_pattern",
        "ref_pattern",
        "mut_pattern",
        "reference_pattern",
        "captured_pattern",
        "field_pattern",
        "box_pattern",
    }
)


def node_text(node: ts.Node, source: bytes) -> str:
    return source[node.start_byte : node.end_byte].decode("utf-8", errors="replace")


def first_named(node: ts.Node) -> ts.Node | None:
    """The first named child, or None (`Node.named_child` raises past the end)."""
    return node.named_child(0) if node.named_child_count else None


def ident(raw: str) -> str:
    """`r#type` → `type`, `$crate` → `crate`: the name a raw identifier or macro path stands for."""
    if raw.startswith("r#"):
        return raw[2:]
    if raw == "$crate":
        return "crate"
    return raw


def scoped_names(node: ts.Node, source: bytes) -> tuple[str, ...]:
    """`a::b::C` as ("a", "b", "C"); generic segments drop their arguments (`Vec::<u8>::new`)."""
    raw = node_text(node, source)
    if "<" not in raw and " " not in raw and "\n" not in raw and "/" not in raw:
        parts = raw.removeprefix("::").split("::")
        if "#" in raw or "$" in raw:
            return tuple(ident(part) for part in parts)
        return tuple(parts)
    return tuple(_walk_scoped(node, source))


def _walk_scoped(node: ts.Node, source: bytes) -> list[str]:
    kind = node.type
    if kind in ("scoped_identifier", "scoped_type_identifier"):
        path = node.child_by_field_name("path")
        name = node.child_by_field_name("name")
        head = _walk_scoped(path, source) if path is not None else []
        return [*head, ident(node_text(name, source)) if name is not None else ""]
    if kind in ("generic_type", "generic_type_with_turbofish"):
        inner = node.child_by_field_name("type")
        return _walk_scoped(inner, source) if inner is not None else [""]
    if kind == "bracketed_type":
        # `<T as Trait>::f` names the trait's item; `<T>::f` names nothing syntax can follow.
        qualified = first_named(node)
        alias = qualified.child_by_field_name("alias") if qualified is not None else None
        return _walk_scoped(alias, source) if alias is not None else [""]
    if kind in ("identifier", "type_identifier", "self", "super", "crate", "metavariable"):
        return [ident(node_text(node, source))]
    return [""]


def field_names(node: ts.Node, source: bytes) -> tuple[str, ...]:
    """`a.b.c` as ("a", "b", "c"); a receiver syntax cannot name becomes "" (`f().m` → ("", "m"))."""
    raw = node_text(node, source)
    if SIMPLE_FIELD.fullmatch(raw):
        return tuple(raw.split("."))
    return _walk_field(node, source)


def _walk_field(node: ts.Node, source: bytes) -> tuple[str, ...]:
    names: list[str] = []
    current: ts.Node | None = node
    while current is not None and current.type == "field_expression":
        field = current.child_by_field_name("field")
        names.append(node_text(field, source) if field is not None else "")
        current = current.child_by_field_name("value")
    if current is not None and current.type in ("identifier", "self"):
        names.append(ident(node_text(current, source)))
    else:
        names.append("")
    names.reverse()
    return tuple(names)


def token_tree_path(node: ts.Node, source: bytes) -> tuple[str, ...]:
    """The path ending at an identifier called inside a macro's token tree (`a::b(…)`, `x.m(…)`).

    Read backwards from the source bytes: sibling calls on a long token tree are O(siblings).
    """
    start = node.start_byte
    names = [ident(source[start : node.end_byte].decode("utf-8", errors="replace"))]
    while True:
        cut = _skip_space_back(source, start)
        if source[cut - 2 : cut] == b"::":
            cut -= 2
        elif source[cut - 1 : cut] == b"." and source[cut - 2 : cut - 1] != b".":
            cut -= 1
        else:
            break
        end = _skip_space_back(source, cut)
        begin = end
        while begin > 0 and source[begin - 1] in IDENT_BYTES:
            begin -= 1
        if begin == end or source[begin] in DIGIT_BYTES:
            names.append("")
            break
        names.append(ident(source[begin:end].decode("utf-8", errors="replace")))
        start = begin
    names.reverse()
    return tuple(names)


def _skip_space_back(source: bytes, position: int) -> int:
    while position > 0 and source[position - 1] in SPACE_BYTES:
        position -= 1
    return position


def plain_type(node: ts.Node | None, source: bytes) -> str:
    """The type a binding can be followed through: `&mut Foo<T>` → Foo, `Box<dyn Tr>` → Tr."""
    while node is not None:
        kind = node.type
        if kind == "type_identifier":
            return node_text(node, source)
        if kind == "scoped_type_identifier":
            name = node.child_by_field_name("name")
            return node_text(name, source) if name is not None else ""
        if kind == "generic_type":
            base = node.child_by_field_name("type")
            base_name = plain_type(base, source)
            if base_name in SMART_POINTERS:
                arguments = node.child_by_field_name("type_arguments")
                node = first_named(arguments) if arguments is not None else None
                continue
            return base_name
        if kind in ("reference_type", "pointer_type"):
            node = node.child_by_field_name("type")
        elif kind in ("dynamic_type", "abstract_type"):
            node = node.child_by_field_name("trait")
        else:
            return ""
    return ""


def constructed_type(value: ts.Node | None, source: bytes) -> str:
    """The type a `let` initializer plainly builds: `Foo { .. }`, `Foo::new(..)`, `Foo::default()`."""
    if value is None:
        return ""
    kind = value.type
    if kind == "struct_expression":
        name = value.child_by_field_name("name")
        if name is None:
            return ""
        names = scoped_names(name, source) if name.type != "type_identifier" else (node_text(name, source),)
        return names[-1]
    if kind == "call_expression":
        function = value.child_by_field_name("function")
        if function is None or function.type != "scoped_identifier":
            return ""
        names = scoped_names(function, source)
        if len(names) < 2 or not names[-2][:1].isupper():
            return ""
        last = names[-1]
        if last in CONSTRUCTOR_NAMES or last.startswith(CONSTRUCTOR_PREFIXES):
            return names[-2]
    return ""


def pattern_bindings(node: ts.Node, out: list[ts.Node]) -> None:
    """The identifiers a pattern binds; capitalised names are constants or variants, not bindings."""
    kind = node.type
    if kind in ("identifier", "shorthand_field_identifier"):
        first = node.text[:1] if node.text else b""
        if not first.isupper():
            out.append(node)
        return
    if kind in PATTERN_CONTAINERS:
        for child in node.named_children:
            pattern_bindings(child, out)
    elif kind in ("tuple_struct_pattern", "struct_pattern"):
        # The first named child is the path of the struct or variant being matched.
        for child in node.named_children[1:]:
            pattern_bindings(child, out)
    elif kind == "match_pattern":
        guard = node.child_by_field_name("condition")
        for child in node.named_children:
            if guard is None or child.start_byte != guard.start_byte:
                pattern_bindings(child, out)
