"""Python's syntax layer for one file: declarations, bindings and problems, then the rest.

Everything comes from one pass of `python.scm` captures plus a bisect over the file's def/class
ranges (no walk over the tree). References are `references.py`, imports `imports.py`, module
resolution `modules.py`.
"""

from bisect import bisect_right
from dataclasses import dataclass, field
from operator import attrgetter

import tree_sitter as ts

from kivgraph.languages.python.imports import python_imports
from kivgraph.languages.python.overloads import Definition, fold_overloads
from kivgraph.languages.python.references import python_references
from kivgraph.languages.syntax import Binding, Declaration, FileSyntax, SyntaxProblem
from kivgraph.languages.treesitter import (
    MAX_DOC,
    collapse,
    parser,
    query,
    signature,
    syntax_errors,
    syntax_tree,
    text,
    timed_out,
)
from kivgraph.model import SymbolKind

SELF_NAMES = frozenset({"self", "cls"})


@dataclass(slots=True)
class Scope:
    """A def or class body, for deciding what an assignment inside it declares or binds."""

    start: int
    end: int
    is_class: bool
    parent: int = -1
    in_function: bool = False
    """True when this scope or an enclosing one is a function: nothing in it is exported."""
    name: str = ""
    exported: bool = True
    """False for a private class (or one inside one): its members are not public either."""
    defined: set[str] = field(default_factory=set[str])
    """Names of the defs and classes directly inside; a same-named assignment does not declare."""
    globals: set[str] = field(default_factory=set[str])


def build_scopes(
    definitions: list[tuple[ts.Node, ts.Node, bool]],
) -> tuple[list[Scope], list[int], list[int]]:
    """Scopes sorted by start, their starts, and for each of `definitions` (outer node, definition
    node, is_class) the index of its scope."""
    ranges: list[tuple[int, int, bool, int]] = []
    for position, (outer, _, is_class) in enumerate(definitions):
        ranges.append((outer.start_byte, -outer.end_byte, is_class, position))
    ranges.sort()
    scopes: list[Scope] = []
    index_of = [0] * len(definitions)
    stack: list[int] = []
    for start, neg_end, is_class, position in ranges:
        while stack and scopes[stack[-1]].end <= start:
            stack.pop()
        parent = stack[-1] if stack else -1
        in_function = not is_class or (parent >= 0 and scopes[parent].in_function)
        scopes.append(Scope(start, -neg_end, is_class, parent, in_function))
        index_of[position] = len(scopes) - 1
        stack.append(len(scopes) - 1)
    return scopes, [scope.start for scope in scopes], index_of


def innermost(scopes: list[Scope], starts: list[int], position: int) -> int:
    """Index of the innermost scope containing `position`, -1 for the module."""
    index = bisect_right(starts, position) - 1
    while index >= 0 and scopes[index].end <= position:
        index = scopes[index].parent
    return index


def is_exported(name: str, scope: int, scopes: list[Scope], dunder_all: set[str] | None) -> bool:
    if scope >= 0 and (scopes[scope].in_function or not scopes[scope].exported):
        return False
    if name.startswith("_") and not (name.startswith("__") and name.endswith("__")):
        return False
    if scope < 0 and dunder_all is not None:
        return name in dunder_all
    return True


def docstring(node: ts.Node, source: bytes) -> str:
    """The first paragraph of a docstring, on one line."""
    raw = text(node, source).lstrip("rRuUbBfF")
    for quote in ('"""', "'''", '"', "'"):
        if raw.startswith(quote):
            raw = raw[len(quote) :]
            if raw.endswith(quote):
                raw = raw[: -len(quote)]
            break
    lines: list[str] = []
    for line in raw.strip().splitlines():
        stripped = line.strip()
        if not stripped:
            if lines:
                break
            continue
        lines.append(stripped)
    return collapse(" ".join(lines), MAX_DOC)


def definition_signature(definition: ts.Node, source: bytes) -> str:
    """`def f(x) -> int` / `class A(Base)`: the header up to the body; a def whose body did not
    parse is cut at its first line."""
    body = definition.child_by_field_name("body")
    if body is None or body.start_byte == body.end_byte:
        return statement_signature(definition, source).rstrip(": ")
    return signature(definition, source, body).rstrip(": ")


def statement_signature(node: ts.Node, source: bytes) -> str:
    """An assignment's text, cut at its first line when the value spans several."""
    snippet = text(node, source)
    first, newline, _ = snippet.partition("\n")
    return collapse(first.rstrip(" ([{=\\") if newline else first)


def unwrap_type(node: ts.Node | None, source: bytes) -> str:
    """The class an annotation names: `Foo`, `mod.Foo`, `Optional[Foo]`, `Foo | None`, `"Foo"` → that
    name; `List[Foo]` → `List`. "" when the annotation names no single class."""
    depth = 0
    while node is not None and depth < 6:
        depth += 1
        kind = node.type
        if kind == "type":
            node = node.named_children[0] if node.named_child_count else None
        elif kind in ("identifier", "attribute"):
            names = text(node, source).split(".")
            stripped = [name.strip() for name in names]
            return ".".join(stripped) if all(name.isidentifier() for name in stripped) else ""
        elif kind == "string":
            body = text(node, source).strip("\"'").strip()
            return body if all(part.isidentifier() for part in body.split(".")) else ""
        elif kind in ("generic_type", "subscript"):
            base = node.named_children[0] if node.named_child_count else None
            base_name = unwrap_type(base, source)
            if base_name.rpartition(".")[2] != "Optional":
                return base_name
            rest = node.named_children[1] if node.named_child_count > 1 else None
            if rest is not None and rest.type == "type_parameter":
                rest = rest.named_children[0] if rest.named_child_count else None
            node = rest
        elif kind == "union_type" or (kind == "binary_operator" and b"|" in source[node.start_byte : node.end_byte]):
            # `Foo | None` (a `binary_operator` where the grammar does not expect a type)
            members = [child for child in node.named_children if text(child, source) != "None"]
            node = members[0] if len(members) == 1 else None
        else:
            return ""
    return ""


def constructor_type(value: ts.Node | None, source: bytes) -> str:
    """`x = Foo(...)`: a capitalised callee is taken as the class of `x` (PEP 8 names classes so)."""
    if value is None or value.type != "call":
        return ""
    callee = value.child_by_field_name("function")
    if callee is None or callee.type not in ("identifier", "attribute"):
        return ""
    name = unwrap_type(callee, source)
    last = name.rpartition(".")[2]
    return name if last[:1].isupper() else ""


def literal_names(nodes: list[ts.Node], source: bytes) -> set[str] | None:
    """The strings of `__all__ = [...]` (and `+=`); None when the module has no literal `__all__`."""
    if not nodes:
        return None
    names: set[str] = set()
    for sequence in nodes:
        for item in sequence.named_children:
            if item.type == "string":
                names.add(text(item, source).lstrip("rRuU").strip("\"'"))
    return names


def python_syntax(path: str, source: bytes) -> FileSyntax:
    parsed = syntax_tree(parser("python"), query("python", "python", "python.scm"), source)
    if parsed is None:
        return timed_out(path)
    root, captures = parsed
    get = captures.get
    dunder_all = literal_names(get("all", []), source)

    decorated: dict[int, ts.Node] = {}
    for outer in get("decorated", ()):
        inner = outer.child_by_field_name("definition")
        if inner is not None:  # the grammar requires it; a tree without one has nothing to decorate
            decorated[inner.id] = outer
    definitions: list[tuple[ts.Node, ts.Node, bool]] = []
    for capture, is_class in (("function", False), ("class", True)):
        for definition in get(capture, ()):
            definitions.append((decorated.get(definition.id, definition), definition, is_class))
    scopes, starts, scope_of = build_scopes(definitions)
    names = [text(definition.child_by_field_name("name"), source) for _, definition, _ in definitions]
    module_defined: set[str] = set()
    for position, name in enumerate(names):
        scopes[scope_of[position]].name = name
        parent = scopes[scope_of[position]].parent
        (scopes[parent].defined if parent >= 0 else module_defined).add(name)
    for scope in scopes:  # sorted by start, so a parent is settled before its members
        scope.exported = is_exported(scope.name, scope.parent, scopes, dunder_all)
    for node in get("global", ()):
        scope = innermost(scopes, starts, node.start_byte)
        if scope >= 0:
            scopes[scope].globals.add(text(node, source))

    docs = {innermost(scopes, starts, node.start_byte): node for node in get("docstring", ())}
    declarations = definition_declarations(definitions, names, scopes, scope_of, docs, dunder_all, source)
    outline = [Definition(outer, scopes[scope_of[i]].parent, kind) for i, (outer, _, kind) in enumerate(definitions)]
    declarations = fold_overloads(declarations, outline, source)
    bindings: list[Binding] = []
    assignments = Assignments(scopes, starts, module_defined, dunder_all, source, declarations, bindings)
    for capture in ("assignment", "unpacking"):
        # Document order decides which of several assignments to a name declares it.
        for assignment in sorted(get(capture, ()), key=attrgetter("start_byte")):
            assignments.add(assignment, capture == "unpacking")
    assignments.add_slots()
    for assignment in sorted(get("attribute_assignment", ()), key=attrgetter("start_byte")):
        assignments.add_instance_attribute(assignment)
    for statement in get("type_alias", ()):
        scope = innermost(scopes, starts, statement.start_byte)
        if scope < 0 or scopes[scope].is_class:
            declarations.append(alias_declaration(statement, scope, scopes, dunder_all, source))

    # A def's parameters are inside its own scope; `self` and `cls` stay unbound so that the
    # resolver reads them as the enclosing class.
    for param in get("param", ()):
        start = param.start_byte
        name = source[start : param.end_byte].decode("utf-8", "replace")
        if name not in SELF_NAMES:
            bindings.append(Binding(name, start))
    for param in get("typed_param", ()):
        name_node = param.child_by_field_name("name") or param.named_children[0]
        name = text(name_node, source)
        if name not in SELF_NAMES:
            type_name = unwrap_type(param.child_by_field_name("type"), source)
            bindings.append(Binding(name, name_node.start_byte, type_name))
    skip = assignments.skip
    for capture in ("lambda_param", "bind", "bind_in_tuple"):
        for node in get(capture, ()):
            start = node.start_byte
            if capture == "bind_in_tuple":
                skip.add(node.id)
            scope = innermost(scopes, starts, start)
            if scope < 0 or scopes[scope].is_class:
                continue
            name = source[start : node.end_byte].decode("utf-8", "replace")
            if name not in scopes[scope].globals:
                bindings.append(Binding(name, start))

    type_ranges = sorted((node.start_byte, node.end_byte) for node in get("annotated", ()))
    references = python_references(captures, source, type_ranges, skip)
    declarations.sort(key=lambda decl: (decl.start_byte, -decl.end_byte))
    bindings.sort(key=attrgetter("start_byte"))
    return FileSyntax(
        path=path,
        declarations=tuple(declarations),
        imports=tuple(python_imports(get("import", []), source, dunder_all)),
        references=tuple(references),
        bindings=tuple(bindings),
        problems=tuple(SyntaxProblem(line, detail) for line, detail in syntax_errors(root)),
    )


def unpacked_targets(left: ts.Node) -> list[ts.Node]:
    """The names `a, *b = ...` assigns (one level deep; nested unpacking is rare at module level)."""
    targets: list[ts.Node] = []
    for item in left.named_children:
        if item.type == "identifier":
            targets.append(item)
        elif item.type == "list_splat_pattern" and item.named_child_count:
            inner = item.named_children[0]
            if inner.type == "identifier":
                targets.append(inner)
    return targets


def definition_declarations(
    definitions: list[tuple[ts.Node, ts.Node, bool]],
    names: list[str],
    scopes: list[Scope],
    scope_of: list[int],
    docs: dict[int, ts.Node],
    dunder_all: set[str] | None,
    source: bytes,
) -> list[Declaration]:
    """One declaration per def and class, in the order of `definitions`; `docs` maps a scope
    index to its docstring node."""
    declarations: list[Declaration] = []
    for position, (outer, definition, is_class) in enumerate(definitions):
        parent = scopes[scope_of[position]].parent
        name = names[position]
        if is_class:
            kind = SymbolKind.CLASS
        elif parent >= 0 and scopes[parent].is_class:
            kind = SymbolKind.METHOD
        else:
            kind = SymbolKind.FUNCTION
        name_node = definition.child_by_field_name("name")
        row, column = name_node.start_point if name_node is not None else definition.start_point
        doc_node = docs.get(scope_of[position])
        declarations.append(
            Declaration(
                name=name,
                kind=kind,
                start_byte=outer.start_byte,
                end_byte=outer.end_byte,
                start_line=outer.start_point[0] + 1,
                end_line=outer.end_point[0] + 1,
                name_line=row + 1,
                name_column=column,
                signature=definition_signature(definition, source),
                exported=is_exported(name, parent, scopes, dunder_all),
                doc=docstring(doc_node, source) if doc_node is not None else "",
                opens_scope=True,
            )
        )
    return declarations


class Assignments:
    """What assignments declare or bind: module and class level names are declarations, names
    assigned inside a function are its bindings, `self.x = ...` in a method declares a field."""

    def __init__(
        self,
        scopes: list[Scope],
        starts: list[int],
        module_defined: set[str],
        dunder_all: set[str] | None,
        source: bytes,
        declarations: list[Declaration],
        bindings: list[Binding],
    ) -> None:
        self.scopes = scopes
        self.starts = starts
        self.module_defined = module_defined
        self.dunder_all = dunder_all
        self.source = source
        self.declarations = declarations
        self.bindings = bindings
        self.declared: set[tuple[int, str]] = set()
        self.skip: set[int] = set()
        """Ids of nodes that name what they declare, so are not references."""
        self.slots: list[tuple[int, ts.Node]] = []
        """`__slots__ = ...` in a class body (class scope, assignment)."""

    def add(self, assignment: ts.Node, unpacking: bool) -> None:
        left = assignment.child_by_field_name("left")
        if left is None:
            return
        scopes, source = self.scopes, self.source
        for target in unpacked_targets(left) if unpacking else [left]:
            name = text(target, source)
            if not name:
                continue  # error recovery can leave an empty target (`,:A`): it binds nothing
            scope = innermost(scopes, self.starts, target.start_byte)
            if scope >= 0 and not scopes[scope].is_class:
                if name not in scopes[scope].globals:
                    type_name = "" if unpacking else declared_type(assignment, source)
                    self.bindings.append(Binding(name, target.start_byte, type_name))
                continue
            if scope >= 0 and name == "__slots__" and not unpacking:
                self.slots.append((scope, assignment))
            defined = scopes[scope].defined if scope >= 0 else self.module_defined
            # Re-assignments and `f = wrap(f)` re-bind a name; the first statement declares it.
            if name in defined or (scope, name) in self.declared:
                continue
            self.declared.add((scope, name))
            if scope >= 0 and assignment.child_by_field_name("type") is not None:
                kind = SymbolKind.FIELD
            elif name.isupper():
                kind = SymbolKind.CONSTANT
            else:
                kind = SymbolKind.VARIABLE
            type_name = "" if unpacking else declared_type(assignment, source)
            self.declarations.append(self.declaration(name, kind, target, assignment, left, scope, type_name))

    def add_slots(self) -> None:
        """Each name a class lists in `__slots__` declares a field of it, at the string, unless
        the class body already declares that name (`lock: Lock` beside the slot)."""
        for scope, assignment in self.slots:
            owner = self.scopes[scope]
            for string, name, offset in slot_names(assignment.child_by_field_name("right"), self.source):
                if name in owner.defined or (scope, name) in self.declared:
                    continue
                self.declared.add((scope, name))
                row, column = string.start_point
                self.declarations.append(
                    Declaration(
                        name=name,
                        kind=SymbolKind.FIELD,
                        start_byte=string.start_byte,
                        end_byte=string.end_byte,
                        start_line=row + 1,
                        end_line=string.end_point[0] + 1,
                        name_line=row + 1,
                        name_column=column + offset,
                        signature=statement_signature(assignment, self.source),
                        exported=is_exported(name, scope, self.scopes, self.dunder_all),
                        # The string sits inside the `__slots__` assignment: the owner, not the
                        # nesting, says whose field it is (as for `self.x = ...` in a method).
                        owner=owner.name,
                    )
                )

    def add_instance_attribute(self, assignment: ts.Node) -> None:
        """`self.name = value` in a method: a field of the method's class, owned by it."""
        scopes, source = self.scopes, self.source
        method = innermost(scopes, self.starts, assignment.start_byte)
        if method < 0 or scopes[method].is_class:
            return
        owner = scopes[method].parent
        if owner < 0 or not scopes[owner].is_class:
            return
        left = assignment.child_by_field_name("left")
        receiver = left.child_by_field_name("object") if left is not None else None
        target = left.child_by_field_name("attribute") if left is not None else None
        if left is None or receiver is None or target is None or text(receiver, source) != "self":
            return
        name = text(target, source)
        if name in scopes[owner].defined or (owner, name) in self.declared:
            return
        self.declared.add((owner, name))
        declaration = self.declaration(
            name, SymbolKind.FIELD, target, assignment, left, owner, declared_type(assignment, source)
        )
        # The field spans only `self.name`: the value is computed by the method, whose code it stays.
        end_row = left.end_point[0] + 1
        self.declarations.append(
            declaration._replace(
                owner=scopes[owner].name,
                start_byte=left.start_byte,
                end_byte=left.end_byte,
                start_line=left.start_point[0] + 1,
                end_line=end_row,
            )
        )
        self.skip.add(left.id)  # the declaring `self.name` is the field's name, not a use of it

    def declaration(
        self,
        name: str,
        kind: SymbolKind,
        target: ts.Node,
        assignment: ts.Node,
        left: ts.Node,
        scope: int,
        type_name: str,
    ) -> Declaration:
        start, end = assignment.start_byte, assignment.end_byte
        start_point, end_point = assignment.start_point, assignment.end_point
        if left.type in ("pattern_list", "tuple_pattern", "list_pattern"):
            # `a, b = ...` declares two names: each gets its own range so neither nests in the other.
            start, start_point = target.start_byte, target.start_point
            if target.end_byte < left.end_byte:
                end, end_point = target.end_byte, target.end_point
        value = assignment.child_by_field_name("right")
        row, column = target.start_point
        return Declaration(
            name=name,
            kind=kind,
            start_byte=start,
            end_byte=end,
            start_line=start_point[0] + 1,
            end_line=end_point[0] + 1,
            name_line=row + 1,
            name_column=column,
            signature=statement_signature(assignment, self.source),
            exported=is_exported(name, scope, self.scopes, self.dunder_all),
            opens_scope=value is not None and value.type == "lambda",
            type_name=type_name,
        )


def declared_type(assignment: ts.Node, source: bytes) -> str:
    """`x: Foo = ...` → "Foo"; else `x = Foo(...)` → "Foo" (see `constructor_type`)."""
    annotation = assignment.child_by_field_name("type")
    type_name = unwrap_type(annotation, source) if annotation is not None else ""
    return type_name or constructor_type(assignment.child_by_field_name("right"), source)


def slot_names(value: ts.Node | None, source: bytes) -> list[tuple[ts.Node, str, int]]:
    """The strings `__slots__` lists (`"a"`, `("a", "b")`, `["a"]`, `{"a": "doc"}`): each string
    node, the name it holds and that name's offset in the string. `__dict__` and `__weakref__`
    are not fields."""
    if value is None:
        return []
    if value.type == "string":
        items = [value]
    elif value.type == "dictionary":
        items = [pair.child_by_field_name("key") for pair in value.named_children if pair.type == "pair"]
    elif value.type in ("tuple", "list", "set", "parenthesized_expression"):
        items = list(value.named_children)
    else:
        return []
    found: list[tuple[ts.Node, str, int]] = []
    for item in items:
        if item is None or item.type != "string":
            continue
        contents = [child for child in item.named_children if child.type == "string_content"]
        if len(contents) != 1 or item.named_child_count != 3:
            continue  # an f-string or an empty string names no slot
        name = text(contents[0], source)
        if name.isidentifier() and name not in ("__dict__", "__weakref__"):
            found.append((item, name, contents[0].start_byte - item.start_byte))
    return found


def alias_declaration(
    statement: ts.Node, scope: int, scopes: list[Scope], dunder_all: set[str] | None, source: bytes
) -> Declaration:
    """`type Alias = ...` (Python 3.12)."""
    left = statement.child_by_field_name("left")
    name_node = left.named_children[0] if left is not None and left.named_child_count else statement
    name = text(name_node, source)
    row, column = name_node.start_point
    return Declaration(
        name=name,
        kind=SymbolKind.TYPE_ALIAS,
        start_byte=statement.start_byte,
        end_byte=statement.end_byte,
        start_line=statement.start_point[0] + 1,
        end_line=statement.end_point[0] + 1,
        name_line=row + 1,
        name_column=column,
        signature=statement_signature(statement, source),
        exported=is_exported(name, scope, scopes, dunder_all),
    )
