"""Rust syntax layer: one query pass over a file → declarations, imports, bindings, references.

Only captured nodes are visited (see rust.scm). Module paths are kept as written, except that
`self`/`super` inside an inline `mod` are rebased onto the file's module, because module
resolution only ever sees files.
"""

import re
import threading
from bisect import bisect_right
from collections.abc import Sequence
from operator import attrgetter
from typing import NamedTuple

import tree_sitter as ts

from kivgraph.languages import treesitter
from kivgraph.languages.rust.names import (
    PATH_KEYWORDS,
    PRIMITIVES,
    constructed_type,
    field_names,
    first_named,
    ident,
    node_text,
    pattern_bindings,
    plain_type,
    scoped_names,
    token_tree_path,
)
from kivgraph.languages.syntax import (
    Binding,
    Declaration,
    FileSyntax,
    Import,
    Reference,
    Role,
    SyntaxProblem,
)
from kivgraph.model import SymbolKind

DECLARATION_CAPTURES: tuple[tuple[str, SymbolKind], ...] = (
    ("decl.function", SymbolKind.FUNCTION),
    ("decl.struct", SymbolKind.STRUCT),
    ("decl.enum", SymbolKind.ENUM),
    ("decl.union", SymbolKind.UNION),
    ("decl.trait", SymbolKind.TRAIT),
    ("decl.type_alias", SymbolKind.TYPE_ALIAS),
    ("decl.constant", SymbolKind.CONSTANT),
    ("decl.macro", SymbolKind.MACRO),
    ("decl.module", SymbolKind.MODULE),
    ("decl.enum_member", SymbolKind.ENUM_MEMBER),
    ("decl.field", SymbolKind.FIELD),
)
ASSOCIATED_KINDS = frozenset({SymbolKind.FUNCTION, SymbolKind.CONSTANT, SymbolKind.TYPE_ALIAS})
SCOPE_KINDS = frozenset(
    {SymbolKind.FUNCTION, SymbolKind.METHOD, SymbolKind.STRUCT, SymbolKind.ENUM, SymbolKind.UNION, SymbolKind.TRAIT}
)
SIGNATURE_BODIES = frozenset({"block", "field_declaration_list", "enum_variant_list", "declaration_list"})
ROLE_CAPTURES: tuple[tuple[str, Role], ...] = (
    ("ref.call", Role.CALL),
    ("ref.callback", Role.CALLBACK),
    ("ref.return", Role.RETURN),
    ("ref.assign", Role.ASSIGN),
    ("ref.implements", Role.IMPLEMENTS),
    ("ref.extends", Role.EXTENDS),
    ("ref.type", Role.TYPE),
    ("ref.path", Role.READ),
    ("ref.read", Role.READ),
)
IMPL_BODY, TRAIT_BODY, ENUM_BODY, FUNCTION_BODY = range(4)
IDENTIFIER_NODES = frozenset({"identifier", "type_identifier", "self", "super", "crate", "metavariable"})

BY_START = attrgetter("start_byte")

_local = threading.local()


def _parser() -> ts.Parser:
    parser: ts.Parser | None = getattr(_local, "parser", None)
    if parser is None:
        parser = treesitter.parser("rust")
        _local.parser = parser
    return parser


class Ranges:
    """Disjoint byte ranges (use declarations, attributes) whose names are not references."""

    def __init__(self, spans: list[tuple[int, int]]) -> None:
        spans.sort()
        self.starts = [s for s, _ in spans]
        self.ends = [e for _, e in spans]

    def __contains__(self, position: int) -> bool:
        i = bisect_right(self.starts, position) - 1
        return i >= 0 and position < self.ends[i]


class InlineModules:
    """The file's `mod x { … }` bodies, to rebase `self`/`super` paths written inside them."""

    def __init__(self) -> None:
        self.spans: list[tuple[int, int, str]] = []

    def rebase(self, keywords: tuple[str, ...], position: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """Leading path keywords written at `position` → keywords relative to the file's module,
        plus the inline module names that now start the path (`super` in `mod tests` → `self`)."""
        if not self.spans or keywords[0] == "crate":
            return keywords, ()
        chain = tuple(name for start, end, name in self.spans if start <= position < end)
        if not chain:
            return keywords, ()
        if keywords[0] == "self":
            return ("self",), chain
        ups = len(keywords)
        if ups <= len(chain):
            return ("self",), chain[: len(chain) - ups]
        return ("super",) * (ups - len(chain)), ()

    def module(self, segments: list[str], position: int) -> str:
        """A module path as written at `position`, rebased onto the file's module."""
        cut = 0
        while cut < len(segments) and (segments[cut] == "super" or (cut == 0 and segments[cut] in PATH_KEYWORDS)):
            cut += 1
        if cut == 0:
            return "::".join(segments)
        keywords, prefix = self.rebase(tuple(segments[:cut]), position)
        return "::".join((*keywords, *prefix, *segments[cut:]))


def parse_rust(path: str, source: bytes) -> FileSyntax:
    parsed = treesitter.syntax_tree(_parser(), treesitter.query("rust", "rust", "rust.scm"), source)
    if parsed is None:
        return treesitter.timed_out(path)
    root, captures = parsed
    visible = {node.start_byte for node in captures.get("visibility", ())}
    modules = InlineModules()
    claimed: set[int] = set()

    impls = Impls(captures, source)
    declarations, methods, trait_methods = _declarations(captures, source, visible, modules, claimed, impls)
    modules.spans.sort()
    imports, skip_spans = _imports(captures, source, visible, modules)
    skip = Ranges(skip_spans + [(n.start_byte, n.end_byte) for n in captures.get("attribute", ())])
    bindings = _bindings(captures, source, methods, claimed)
    in_scope = {i.local_name for i in imports if i.local_name} | {d.name for d in declarations}
    references = _references(captures, source, skip, modules, claimed, impls, in_scope)
    if trait_methods:
        references = _trait_method_references(references, impls, trait_methods, source)
    problems = tuple(SyntaxProblem(line, detail) for line, detail in treesitter.syntax_errors(root))
    return FileSyntax(
        path=path,
        declarations=tuple(declarations),
        imports=tuple(imports),
        references=tuple(references),
        bindings=tuple(bindings),
        problems=problems,
        test_regions=_test_regions(captures.get("attribute", ()), source),
    )


TEST_ATTRIBUTE = re.compile(rb"#\[\s*(?:cfg\s*\(\s*(?:all\s*\(\s*)?test\b[^\]]*|(?:\w+::)*test)\s*\]")
"""`#[cfg(test)]` (also `#[cfg(all(test, …))]`), `#[test]`, `#[tokio::test]`."""
TEST_ITEMS = frozenset({"mod_item", "function_item", "impl_item"})


def _test_regions(attributes: Sequence[ts.Node], source: bytes) -> tuple[tuple[int, int], ...]:
    """The lines of each module, function or impl a test attribute marks, attribute included."""
    regions: list[tuple[int, int]] = []
    for node in attributes:
        if not TEST_ATTRIBUTE.fullmatch(source[node.start_byte : node.end_byte]):
            continue
        item = node.next_named_sibling
        while item is not None and item.type in ("attribute_item", "line_comment", "block_comment"):
            item = item.next_named_sibling
        if item is not None and item.type in TEST_ITEMS:
            regions.append((node.start_point[0] + 1, item.end_point[0] + 1))
    return tuple(regions)


def _declarations(
    captures: dict[str, list[ts.Node]],
    source: bytes,
    visible: set[int],
    modules: InlineModules,
    claimed: set[int],
    impls: "Impls",
) -> tuple[list[Declaration], list[tuple[int, int, str]], list["TraitMethod"]]:
    """Every item, variant and field, plus the methods of `impl Trait for Type` bodies. Which
    `impl`/`trait` body an item sits in comes from a sweep over byte ranges: `parent` and sibling
    calls cost O(siblings) on long item lists."""
    docs = DocComments(captures, source)
    containers: list[tuple[int, int, int, str, bool]] = []
    for _, _, body_start, body_end, owner, trait_impl in impls.spans:
        containers.append((body_start, body_end, IMPL_BODY, owner, trait_impl))
    for node in captures.get("decl.trait", ()):
        body = node.child_by_field_name("body")
        if body is not None:
            containers.append((body.start_byte, body.end_byte, TRAIT_BODY, "", node.start_byte in visible))
    for node in captures.get("decl.enum", ()):
        body = node.child_by_field_name("body")
        if body is not None:
            containers.append((body.start_byte, body.end_byte, ENUM_BODY, "", node.start_byte in visible))
    for node in captures.get("decl.function", ()):
        containers.append((node.start_byte, node.end_byte, FUNCTION_BODY, "", False))
    containers.sort(key=lambda c: (c[0], -c[1]))

    items: list[tuple[int, int, ts.Node, SymbolKind]] = []
    for capture, kind in DECLARATION_CAPTURES:
        for node in captures.get(capture, ()):
            items.append((node.start_byte, -node.end_byte, node, kind))
    items.sort(key=lambda i: (i[0], i[1]))

    out: list[Declaration] = []
    methods: list[tuple[int, int, str]] = []
    trait_methods: list[TraitMethod] = []
    stack: list[tuple[int, int, int, str, bool]] = []
    pending = 0
    for start, negative_end, node, kind in items:
        end = -negative_end
        # Open every container that starts before this item (or is this item's own function).
        while pending < len(containers) and containers[pending][0] <= start:
            container = containers[pending]
            while stack and stack[-1][1] <= container[0]:
                stack.pop()
            stack.append(container)
            pending += 1
        while stack and stack[-1][1] <= start:
            stack.pop()
        enclosing = None
        for candidate in reversed(stack):
            if not (candidate[0] == start and candidate[1] == end):
                enclosing = candidate
                break
        name_node = node.child_by_field_name("name")
        if name_node is None or name_node.is_missing:
            continue
        claimed.add(name_node.id)
        owner = ""
        exported = start in visible
        body = node.child_by_field_name("body")
        if kind is SymbolKind.MODULE:
            if body is None:
                continue  # `mod x;` binds a file module: an import, not a declaration
            modules.spans.append((body.start_byte, body.end_byte, node_text(name_node, source)))
        elif kind in ASSOCIATED_KINDS and enclosing is not None:
            if enclosing[2] == IMPL_BODY:
                owner = enclosing[3]
                exported = exported or enclosing[4]
                if kind is SymbolKind.FUNCTION:
                    kind = SymbolKind.METHOD
                    methods.append((start, end, owner))
                    if enclosing[4] and node.type == "function_item":
                        trait_methods.append(TraitMethod(enclosing[0], name_node))
            elif enclosing[2] == TRAIT_BODY:
                exported = enclosing[4]
                if kind is SymbolKind.FUNCTION:
                    kind = SymbolKind.METHOD
        elif kind is SymbolKind.ENUM_MEMBER:
            exported = enclosing is not None and enclosing[2] == ENUM_BODY and enclosing[4]
        start_point = node.start_point
        line, column = name_node.start_point
        out.append(
            Declaration(
                name=ident(node_text(name_node, source)),
                kind=kind,
                start_byte=start,
                end_byte=end,
                start_line=start_point[0] + 1,
                end_line=node.end_point[0] + 1,
                name_line=line + 1,
                name_column=column,
                signature=_signature(node, name_node, body, source),
                exported=exported,
                doc=docs.above(start, start_point),
                owner=owner,
                opens_scope=kind in SCOPE_KINDS,
            )
        )
    methods.sort()
    return out, methods, trait_methods


class TraitMethod(NamedTuple):
    """A method written in the body of an `impl Trait for Type` (starting at `body_start`)."""

    body_start: int
    name: ts.Node


class Impls:
    """The file's `impl` blocks: the type each is for (`impl<T> Foo<T>` → Foo), whether it
    implements a trait, and its body's range."""

    def __init__(self, captures: dict[str, list[ts.Node]], source: bytes) -> None:
        self.spans: list[tuple[int, int, int, int, str, bool]] = []
        for impl in captures.get("impl", ()):
            body = impl.child_by_field_name("body")
            if body is None:
                continue
            target = impl.child_by_field_name("type")
            name = plain_type(target, source)
            if not name and target is not None and target.type == "primitive_type":
                name = node_text(target, source)
            trait_impl = impl.child_by_field_name("trait") is not None
            self.spans.append((impl.start_byte, impl.end_byte, body.start_byte, body.end_byte, name, trait_impl))
        self.spans.sort()
        self.starts = [span[0] for span in self.spans]

    def subject(self, position: int) -> str:
        """The type of the `impl` whose header holds `position` (where a trait is named)."""
        i = bisect_right(self.starts, position) - 1
        return self.spans[i][4] if i >= 0 and position < self.spans[i][1] else ""

    def body(self, position: int) -> int:
        """Where the body of the `impl` whose header holds `position` starts (-1: none)."""
        i = bisect_right(self.starts, position) - 1
        return self.spans[i][2] if i >= 0 and position < self.spans[i][2] else -1


def _signature(node: ts.Node, name_node: ts.Node, body: ts.Node | None, source: bytes) -> str:
    """The item's text up to its body (or value), on one line."""
    kind = node.type
    if kind == "macro_definition":
        end = name_node.end_byte
    elif kind in ("const_item", "static_item"):
        value = node.child_by_field_name("value")
        end = value.start_byte if value is not None else node.end_byte
    elif body is not None and body.type in SIGNATURE_BODIES:
        end = body.start_byte
    else:
        end = node.end_byte
    raw = source[node.start_byte : end].decode("utf-8", errors="replace")
    if "\n" in raw or "  " in raw or "\t" in raw or "\r" in raw:
        raw = " ".join(raw.split())
    raw = raw.rstrip(" {=:;")
    return raw if len(raw) <= treesitter.MAX_SIGNATURE else treesitter.collapse(raw)


class DocComments:
    """Outer doc comments (`///`, `/** */`) and attributes by line, so the doc above an item is a
    few dict lookups rather than a walk over its siblings."""

    def __init__(self, captures: dict[str, list[ts.Node]], source: bytes) -> None:
        self.source = source
        self.docs: dict[int, tuple[int, ts.Node]] = {}
        self.attributes: dict[int, int] = {}
        for node in captures.get("doc", ()):
            first = node.start_point[0]
            last = node.end_point[0]
            if node.type == "line_comment" and node.end_point[1] == 0:
                last -= 1  # a line comment's node ends after its newline
            self.docs[last] = (first, node)
        for node in captures.get("attribute", ()):
            self.attributes[node.end_point[0]] = node.start_point[0]

    def above(self, start: int, point: tuple[int, int]) -> str:
        if not self.docs:
            return ""
        row, column = point
        if column and self.source[start - column : start].strip():
            if row not in self.attributes:
                return ""  # something else starts the line: not the first item on it
            row = self.attributes[row]
        row -= 1
        while row in self.attributes:
            row = self.attributes[row] - 1
        found: list[ts.Node] = []
        while row in self.docs:
            first, node = self.docs[row]
            found.append(node)
            row = first - 1
        if not found:
            return ""
        found.reverse()
        return treesitter.clean_doc("\n".join(node_text(node, self.source) for node in found))


def _imports(
    captures: dict[str, list[ts.Node]], source: bytes, visible: set[int], modules: InlineModules
) -> tuple[list[Import], list[tuple[int, int]]]:
    out: list[Import] = []
    spans: list[tuple[int, int]] = []
    for node in captures.get("use", ()):
        spans.append((node.start_byte, node.end_byte))
        argument = node.child_by_field_name("argument")
        if argument is not None:
            reexport = node.start_byte in visible
            _expand_use(argument, [], source, reexport, modules, out)
    for node in captures.get("extern_crate", ()):
        spans.append((node.start_byte, node.end_byte))
        name = node.child_by_field_name("name")
        if name is None:
            continue
        alias = node.child_by_field_name("alias")
        crate = node_text(name, source)
        line, column = node.start_point
        out.append(
            Import(
                module="crate" if crate == "self" else crate,
                name=None,
                local_name=node_text(alias if alias is not None else name, source),
                line=line + 1,
                column=column,
                start_byte=node.start_byte,
                reexport=node.start_byte in visible,
            )
        )
    for node in captures.get("decl.module", ()):
        name = node.child_by_field_name("name")
        if name is None or name.is_missing or node.child_by_field_name("body") is not None:
            continue
        local = node_text(name, source)
        line, column = node.start_point
        out.append(
            Import(
                module=modules.module(["self", local], node.start_byte),
                name=None,
                local_name=local,
                line=line + 1,
                column=column,
                start_byte=node.start_byte,
                reexport=node.start_byte in visible,
            )
        )
    out.sort(key=lambda i: i.start_byte)
    return out, spans


def _expand_use(
    node: ts.Node,
    prefix: list[str],
    source: bytes,
    reexport: bool,
    modules: InlineModules,
    out: list[Import],
) -> None:
    """One `use` tree → an Import per name it binds (`{self, C, d::E}` expands to three)."""
    kind = node.type
    alias: str | None = None
    wildcard = False
    if kind == "use_list":
        for child in node.named_children:
            _expand_use(child, prefix, source, reexport, modules, out)
        return
    if kind == "scoped_use_list":
        path = node.child_by_field_name("path")
        inner = [*prefix, *scoped_names(path, source)] if path is not None else prefix
        listed = node.child_by_field_name("list")
        if listed is not None:
            _expand_use(listed, inner, source, reexport, modules, out)
        return
    target: ts.Node | None = node
    if kind == "use_as_clause":
        alias_node = node.child_by_field_name("alias")
        alias = node_text(alias_node, source) if alias_node is not None else None
        target = node.child_by_field_name("path")
    elif kind == "use_wildcard":
        wildcard = True
        target = first_named(node)
    segments = list(prefix)
    if target is not None:
        if target.type in ("scoped_identifier", "scoped_type_identifier"):
            segments.extend(scoped_names(target, source))
        elif target.type in IDENTIFIER_NODES:
            segments.append(ident(node_text(target, source)))
    segments = [s for s in segments if s]
    if not segments:
        return
    line, column = node.start_point
    position = node.start_byte
    if wildcard:
        module, name, local = "::".join(segments), None, None
    elif segments[-1] == "self":
        if len(segments) < 2:
            return
        module, name, local = "::".join(segments[:-1]), None, alias or segments[-2]
    elif len(segments) == 1:
        module, name, local = segments[0], None, alias or segments[0]
    else:
        module, name, local = "::".join(segments[:-1]), segments[-1], alias or segments[-1]
    if local == "_":
        local = None  # `use Trait as _;` brings methods into scope without a name
    out.append(
        Import(
            module=modules.module(module.split("::"), position),
            name=name,
            local_name=local,
            line=line + 1,
            column=column,
            start_byte=position,
            wildcard=wildcard,
            reexport=reexport,
        )
    )


def _bindings(
    captures: dict[str, list[ts.Node]],
    source: bytes,
    methods: list[tuple[int, int, str]],
    claimed: set[int],
) -> list[Binding]:
    out: list[Binding] = []
    starts = [start for start, _, _ in methods]

    def owner_at(position: int) -> str:
        """The `impl` type of the method around `position`: what `self` and `Self` stand for."""
        i = bisect_right(starts, position) - 1
        return methods[i][2] if i >= 0 and position < methods[i][1] else ""

    for node in captures.get("binding.parameter", ()):
        pattern = node.child_by_field_name("pattern")
        if pattern is None:
            continue
        if pattern.type == "identifier":
            type_name = plain_type(node.child_by_field_name("type"), source)
            if type_name == "Self":
                type_name = owner_at(pattern.start_byte)
            out.append(Binding(ident(node_text(pattern, source)), pattern.start_byte, type_name))
        else:
            _pattern_bindings(pattern, source, out)
    for node in captures.get("binding.self", ()):
        owner = owner_at(node.start_byte)
        if owner:
            out.append(Binding("self", node.start_byte, owner))
    for node in captures.get("binding.let", ()):
        pattern = node.child_by_field_name("pattern")
        if pattern is None:
            continue
        if pattern.type == "identifier":
            type_name = plain_type(node.child_by_field_name("type"), source) or constructed_type(
                node.child_by_field_name("value"), source
            )
            if type_name == "Self":
                type_name = owner_at(pattern.start_byte)
            out.append(Binding(ident(node_text(pattern, source)), pattern.start_byte, type_name))
        else:
            _pattern_bindings(pattern, source, out)
    for node in captures.get("binding.pattern", ()):
        _pattern_bindings(node, source, out)
    for node in captures.get("binding.generic", ()):
        claimed.add(node.id)
        out.append(Binding(node_text(node, source), node.start_byte))
    out.sort(key=BY_START)
    return out


def _pattern_bindings(pattern: ts.Node, source: bytes, out: list[Binding]) -> None:
    found: list[ts.Node] = []
    pattern_bindings(pattern, found)
    for node in found:
        out.append(Binding(ident(node_text(node, source)), node.start_byte))


def _references(
    captures: dict[str, list[ts.Node]],
    source: bytes,
    skip: Ranges,
    modules: InlineModules,
    claimed: set[int],
    impls: Impls,
    in_scope: set[str],
) -> list[Reference]:
    """One Reference per captured name node; the first capture (most specific role) wins."""
    for node in captures.get("ref.inner", ()):
        claimed.add(node.id)
    out: list[Reference] = []
    append = out.append
    for capture, role in ROLE_CAPTURES:
        for node in captures.get(capture, ()):
            node_id = node.id
            if node_id in claimed:
                continue
            claimed.add(node_id)
            kind = node.type
            if kind == "type_identifier" or kind == "identifier":
                start = node.start_byte
                name = source[start : node.end_byte].decode("utf-8", errors="replace")
                if name[:2] == "r#":
                    name = name[2:]
                row, column = node.start_point
                if role is Role.IMPLEMENTS:
                    subject = impls.subject(start)
                    append(Reference((name,), role, row + 1, column, start, "", subject))
                else:
                    append(Reference((name,), role, row + 1, column, start))
                continue
            if kind == "generic_type":
                # `impl From<T> for X`, `Foo::<T> { .. }`: the reference is the generic's base name.
                base = node.child_by_field_name("type")
                if base is None or base.id in claimed:
                    continue
                claimed.add(base.id)
                node = base
                kind = node.type
            module = ""
            if kind == "scoped_identifier" or kind == "scoped_type_identifier":
                if node.start_byte in skip:
                    continue
                names = scoped_names(node, source)
                if len(names) > 1:
                    head = names[0]
                    if head in PATH_KEYWORDS:
                        module, names = _split_module(names, modules, node.start_byte)
                    elif head[:1].islower() and head not in in_scope and head not in PRIMITIVES:
                        # Nothing in the file binds the head: a crate from the extern prelude
                        # (`serde_json::to_string`, `std::mem::swap`), looked up as a module.
                        module, names = head, names[1:]
            elif kind == "field_expression":
                names = field_names(node, source)
                if not names[0]:
                    # Point at the member itself: the receiver is an expression, not a name.
                    field = node.child_by_field_name("field")
                    if field is not None:
                        node = field
            elif kind == "type_identifier" or kind == "identifier":
                names = (ident(node_text(node, source)),)
            else:
                continue
            subject = impls.subject(node.start_byte) if role is Role.IMPLEMENTS else ""
            row, column = node.start_point
            append(Reference(names, role, row + 1, column, node.start_byte, module, subject))
    for node in captures.get("ref.pattern_name", ()):
        text = node.text or b""
        if text[:1].isupper() and node.id not in claimed:
            row, column = node.start_point
            append(
                Reference((ident(text.decode("utf-8", errors="replace")),), Role.READ, row + 1, column, node.start_byte)
            )
    for node in captures.get("ref.macro_call", ()):
        if node.start_byte in skip:
            continue
        names = token_tree_path(node, source)
        module = ""
        if len(names) > 1 and names[0] in PATH_KEYWORDS and names[0] != "self":
            module, names = _split_module(names, modules, node.start_byte)
        row, column = node.start_point
        append(Reference(names, Role.CALL, row + 1, column, node.start_byte, module))
    out.sort(key=BY_START)
    return out


def _trait_method_references(
    references: list[Reference], impls: Impls, trait_methods: list[TraitMethod], source: bytes
) -> list[Reference]:
    """Each method of `impl Trait for Type` implements the trait's method of its name (the compiler
    holds them to it): an IMPLEMENTS reference to `Trait::m`, written where the method's name is,
    so its source is the method. Provided trait methods the impl does not write get nothing."""
    by_body: dict[int, list[ts.Node]] = {}
    for method in trait_methods:
        by_body.setdefault(method.body_start, []).append(method.name)
    found: list[Reference] = []
    for ref in references:
        if ref.role is not Role.IMPLEMENTS:
            continue
        for name in by_body.get(impls.body(ref.start_byte), ()):
            row, column = name.start_point
            member = ident(node_text(name, source))
            found.append(Reference((*ref.names, member), Role.IMPLEMENTS, row + 1, column, name.start_byte, ref.module))
    if not found:
        return references
    found.extend(references)
    found.sort(key=BY_START)
    return found


def _split_module(names: tuple[str, ...], modules: InlineModules, position: int) -> tuple[str, tuple[str, ...]]:
    """`crate::a::f` → ("crate", ("a", "f")); `super::super::X` → ("super::super", ("X",)).

    Only the leading keywords become the module: the resolver walks the rest member by member,
    which reaches file modules, inline modules and items alike.
    """
    cut = 1
    while cut < len(names) - 1 and names[cut] == "super":
        cut += 1
    keywords, prefix = modules.rebase(names[:cut], position)
    return "::".join(keywords), prefix + names[cut:]
