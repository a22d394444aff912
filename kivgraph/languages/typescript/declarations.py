"""Which TypeScript/JavaScript syntax declares what: kind, name node, span and signature cut.

Covers functions, classes and their members, interfaces, type aliases, enums, namespaces,
module-level variables (and the members of object literals they hold), `export default` values
and CommonJS `exports.x =`. Members are reached
downward from their container and module-level statements from the root; nothing walks `.parent`.
"""

import tree_sitter as ts

from kivgraph.languages.syntax import Declaration, ExportAlias, Import
from kivgraph.languages.treesitter import collapse
from kivgraph.languages.typescript.drafts import Draft
from kivgraph.languages.typescript.exports import export_facts
from kivgraph.languages.typescript.objects import FUNCTION_VALUES, ObjectMembers, object_literal
from kivgraph.languages.typescript.scan import FileScan, first_child, first_named, string_value
from kivgraph.model import SymbolKind

CLASS_VALUES = frozenset({"class"})
VARIABLE_STATEMENTS = frozenset({"lexical_declaration", "variable_declaration"})


class Declarations(ObjectMembers):
    """Builds the declarations of one file from its captures and its module-level statements."""

    def __init__(self, scan: FileScan, root: ts.Node) -> None:
        self.scan = scan
        self.variable_statements: list[ts.Node] = []
        self.assignments: list[ts.Node] = []
        for statement in root.named_children:
            self.module_statement(statement)
        super().__init__(scan, export_facts(scan))

    # ---- entry point ------------------------------------------------------------------------

    def module_statement(self, statement: ts.Node) -> None:
        """Sort a statement of the module (or of a namespace body) by what it may declare."""
        kind = statement.type
        if kind in VARIABLE_STATEMENTS:
            self.variable_statements.append(statement)
        elif kind == "export_statement":
            declaration = statement.child_by_field_name("declaration")
            if declaration is not None and declaration.type in VARIABLE_STATEMENTS:
                self.variable_statements.append(declaration)
        elif kind == "expression_statement":
            inner = first_named(statement)
            if inner is not None and inner.type == "assignment_expression":
                self.assignments.append(inner)
        elif kind == "import_statement":
            self.scan.top_imports.append(statement)
        if kind == "export_statement":
            self.scan.top_exports.append(statement)

    def build(self) -> list[Declaration]:
        scan = self.scan
        for node in scan.nodes("ambient"):
            inner = first_named(node)
            if inner is None:
                continue
            if inner.type in VARIABLE_STATEMENTS:
                self.variable_statements.append(inner)
            elif inner.type == "statement_block":
                # `declare global { … }`
                for statement in inner.named_children:
                    self.module_statement(statement)
        # outer namespaces first: an ambient one decides what its members export
        for node in sorted(scan.nodes("decl.namespace"), key=lambda n: n.start_byte):
            self.namespace(node)
        for node in scan.nodes("decl.function"):
            self.function(node)
        for node in scan.nodes("decl.class"):
            self.class_declaration(node)
        for node in scan.nodes("decl.interface"):
            self.interface(node)
        for node in scan.nodes("decl.type_alias"):
            self.type_alias(node)
        for node in scan.nodes("decl.enum"):
            self.enum(node)
        for node in self.variable_statements:
            self.variables(node)
        for node in scan.top_exports:
            self.default_export(node)
        for node in self.assignments:
            self.commonjs(node)
        return self.finish()

    def outer(self, node: ts.Node) -> ts.Node:
        return self.facts.wrapper.get(node.id, node)

    # ---- top-level and nested declarations ----------------------------------------------------

    def function(self, node: ts.Node) -> None:
        name_node = node.child_by_field_name("name")
        if name_node is None:
            return
        body = node.child_by_field_name("body")
        draft = self.draft(
            self.text(name_node),
            SymbolKind.FUNCTION,
            node,
            name_node,
            outer=self.outer(node),
            cut=body.start_byte if body is not None else None,
        )
        draft.opens_scope = True
        draft.bodiless = body is None

    def class_declaration(self, node: ts.Node) -> None:
        found = self.type_with_body(node, SymbolKind.CLASS)
        if found is not None and found[1] is not None:
            self.class_members(found[1], found[0])

    def type_with_body(self, node: ts.Node, kind: SymbolKind) -> tuple[Draft, ts.Node | None] | None:
        """A named class or interface: its draft (signature cut at the body) and its body."""
        name_node = node.child_by_field_name("name")
        if name_node is None:
            return None
        body = node.child_by_field_name("body")
        draft = self.draft(
            self.text(name_node),
            kind,
            node,
            name_node,
            outer=self.outer(node),
            cut=body.start_byte if body is not None else None,
        )
        draft.opens_scope = True
        return draft, body

    def class_members(self, body: ts.Node, owner: Draft) -> None:
        decorated: ts.Node | None = None
        for member in body.named_children:
            kind = member.type
            if kind == "decorator":
                # TypeScript puts a method's decorators before it in the class body
                decorated = decorated or member
                continue
            if kind in ("method_definition", "method_signature", "abstract_method_signature"):
                self.method(member, owner, decorated)
            elif kind in ("public_field_definition", "field_definition"):
                self.field(member)
            if kind != "comment":
                decorated = None

    def modifiers(self, member: ts.Node) -> tuple[set[str], bool]:
        """Keyword modifiers written before a member's name, and whether it is private."""
        words: set[str] = set()
        private = False
        for child in member.children:
            kind = child.type
            if kind == "accessibility_modifier":
                private = self.text(child) == "private"
            elif not child.is_named:
                words.add(kind)
            elif kind != "decorator" and kind != "override_modifier":
                break
        return words, private

    def member_name(self, member: ts.Node, field: str = "name") -> tuple[str, ts.Node] | None:
        name_node = member.child_by_field_name(field)
        if name_node is None:
            return None
        if name_node.type == "string":
            return string_value(name_node, self.source), name_node
        return self.text(name_node), name_node

    def method(self, member: ts.Node, owner: Draft, decorated: ts.Node | None = None) -> None:
        named = self.member_name(member)
        if named is None:
            return
        name, name_node = named
        words, private = self.modifiers(member)
        if name == "constructor":
            kind = SymbolKind.CONSTRUCTOR
        elif "get" in words:
            kind = SymbolKind.GETTER
        elif "set" in words:
            kind = SymbolKind.SETTER
        else:
            kind = SymbolKind.METHOD
        body = member.child_by_field_name("body")
        draft = self.draft(
            name,
            kind,
            member,
            name_node,
            outer=decorated,
            end_node=member if decorated is not None else None,
            cut=body.start_byte if body is not None else None,
        )
        draft.opens_scope = True
        draft.private = private or name.startswith("#")
        draft.bodiless = body is None
        if kind is SymbolKind.CONSTRUCTOR:
            self.parameter_properties(member, owner)

    def parameter_properties(self, constructor: ts.Node, owner: Draft) -> None:
        """`constructor(private readonly x: X)` also declares the property `x` on the class."""
        parameters = constructor.child_by_field_name("parameters")
        if parameters is None:
            return
        for parameter in parameters.named_children:
            if parameter.type not in ("required_parameter", "optional_parameter"):
                continue
            words, private = self.modifiers(parameter)
            has_modifier = (
                private
                or "readonly" in words
                or any(c.type in ("accessibility_modifier", "override_modifier") for c in parameter.named_children)
            )
            pattern = parameter.child_by_field_name("pattern")
            if not has_modifier or pattern is None or pattern.type != "identifier":
                continue
            draft = self.draft(self.text(pattern), SymbolKind.PROPERTY, parameter, pattern)
            self.scan.claimed.discard(pattern.id)  # still a parameter binding inside the constructor
            draft.owner = owner.name
            draft.owner_draft = owner
            draft.private = private

    def field(self, member: ts.Node) -> None:
        named = self.member_name(member, "name") or self.member_name(member, "property")
        if named is None:
            return
        name, name_node = named
        _, private = self.modifiers(member)
        value = member.child_by_field_name("value")
        if value is not None and value.type in FUNCTION_VALUES:
            body = value.child_by_field_name("body")
            draft = self.draft(name, SymbolKind.METHOD, member, name_node, cut=body.start_byte if body else None)
            draft.opens_scope = True
        else:
            draft = self.draft(name, SymbolKind.PROPERTY, member, name_node, cut=self.value_cut(value))
            literal = object_literal(value)
            if literal is not None:
                self.object_members(literal, draft)
        draft.private = private or name.startswith("#")

    def interface(self, node: ts.Node) -> None:
        found = self.type_with_body(node, SymbolKind.INTERFACE)
        if found is not None and found[1] is not None:
            self.signature_members(found[1])

    def signature_members(self, body: ts.Node) -> None:
        """Members of an interface body or of an object type literal."""
        for member in body.named_children:
            kind = member.type
            if kind == "property_signature":
                named = self.member_name(member)
                if named is not None:
                    self.draft(named[0], SymbolKind.PROPERTY, member, named[1])
            elif kind == "method_signature":
                named = self.member_name(member)
                if named is not None:
                    draft = self.draft(named[0], SymbolKind.METHOD, member, named[1])
                    draft.opens_scope = True
                    draft.bodiless = True

    def type_alias(self, node: ts.Node) -> None:
        name_node = node.child_by_field_name("name")
        if name_node is None:
            return
        value = node.child_by_field_name("value")
        cut = value.start_byte if value is not None and value.type == "object_type" else None
        draft = self.draft(
            self.text(name_node), SymbolKind.TYPE_ALIAS, node, name_node, outer=self.outer(node), cut=cut
        )
        draft.opens_scope = True
        if value is not None and value.type == "object_type":
            self.signature_members(value)

    def enum(self, node: ts.Node) -> None:
        name_node = node.child_by_field_name("name")
        if name_node is None:
            return
        body = node.child_by_field_name("body")
        self.draft(
            self.text(name_node),
            SymbolKind.ENUM,
            node,
            name_node,
            outer=self.outer(node),
            cut=body.start_byte if body is not None else None,
        )
        if body is None:
            return
        for member in body.named_children:
            kind = member.type
            if kind == "enum_assignment":
                named = self.member_name(member)
                if named is not None:
                    self.draft(named[0], SymbolKind.ENUM_MEMBER, member, named[1])
            elif kind in ("property_identifier", "string"):
                name = string_value(member, self.source) if kind == "string" else self.text(member)
                self.draft(name, SymbolKind.ENUM_MEMBER, member, member)

    def namespace(self, node: ts.Node) -> None:
        name_node = node.child_by_field_name("name")
        if name_node is None:
            return
        if name_node.type == "string":
            name = string_value(name_node, self.source)
        else:
            name = "".join(self.text(name_node).split())
        body = node.child_by_field_name("body")
        draft = self.draft(
            name,
            SymbolKind.NAMESPACE,
            node,
            name_node,
            outer=self.outer(node),
            cut=body.start_byte if body is not None else None,
        )
        draft.opens_scope = True
        if name_node.type == "string":
            draft.exported = True  # `declare module "x" { … }` augments a module for every file
        if name_node.type == "nested_identifier":
            for part in name_node.named_children:
                self.scan.claimed.add(part.id)
        if body is None:
            return
        statements = body.named_children
        ambient = node.id in self.facts.ambient or self.scan.declaration_file
        # An ambient namespace without any `export` in it exports everything it declares.
        export_all = ambient and not any(s.type == "export_statement" for s in statements)
        for statement in statements:
            kind = statement.type
            inner = first_named(statement) if kind == "expression_statement" else statement
            if inner is not None and ambient and inner.type in ("internal_module", "module"):
                self.facts.ambient.add(inner.id)
            if export_all and inner is not None:
                self.facts.exported.add(inner.id)
            if kind in VARIABLE_STATEMENTS:
                self.variables(statement)
            elif kind == "export_statement":
                declaration = statement.child_by_field_name("declaration")
                if declaration is not None and declaration.type in VARIABLE_STATEMENTS:
                    self.variables(declaration)

    # ---- module-level variables ---------------------------------------------------------------

    def variables(self, statement: ts.Node) -> None:
        outer = self.outer(statement)
        declarators = [c for c in statement.named_children if c.type == "variable_declarator"]
        if not declarators:
            return
        keyword = first_child(statement)
        constant = keyword is not None and keyword.type == "const"
        exported = statement.id in self.facts.exported
        prefix_end = declarators[0].start_byte
        single = len(declarators) == 1
        for declarator in declarators:
            self.scan.declared_declarators.add(declarator.id)
            name_node = declarator.child_by_field_name("name")
            if name_node is None:
                continue
            value = declarator.child_by_field_name("value")
            if value is not None and self.required(value, name_node):
                continue
            span = outer if single else declarator
            if name_node.type != "identifier":
                for part in pattern_names(name_node):
                    draft = self.draft(
                        self.text(part),
                        SymbolKind.CONSTANT if constant else SymbolKind.VARIABLE,
                        declarator,
                        part,
                        outer=span,
                        cut=self.value_cut(value),
                    )
                    draft.exported = exported
                continue
            name = self.text(name_node)
            value_kind = value.type if value is not None else ""
            if value_kind in FUNCTION_VALUES or value_kind in CLASS_VALUES:
                body = value.child_by_field_name("body") if value is not None else None
                kind = SymbolKind.CLASS if value_kind in CLASS_VALUES else SymbolKind.FUNCTION
                draft = self.draft(name, kind, declarator, name_node, outer=span, cut=body.start_byte if body else None)
                draft.opens_scope = True
                if kind is SymbolKind.CLASS and body is not None:
                    self.class_members(body, draft)
            else:
                kind = SymbolKind.CONSTANT if constant else SymbolKind.VARIABLE
                draft = self.draft(name, kind, declarator, name_node, outer=span, cut=self.value_cut(value))
                literal = object_literal(value)
                if literal is not None:
                    self.object_members(literal, draft)
            draft.exported = exported
            if not single:
                prefix = self.source[outer.start_byte : prefix_end].decode("utf-8", errors="replace")
                draft.signature = collapse(prefix + draft.signature)

    def required(self, value: ts.Node, name_node: ts.Node) -> bool:
        """`const x = require("m")`, `const {a} = require("m")`, `const y = require("m").y` bind
        imports, not declarations."""
        member: str | None = None
        whole = value
        if value.type == "member_expression":
            property_node = value.child_by_field_name("property")
            inner = value.child_by_field_name("object")
            if property_node is None or inner is None or name_node.type != "identifier":
                return False
            member, value = self.text(property_node), inner
        if value.type != "call_expression":
            return False
        function = value.child_by_field_name("function")
        arguments = value.child_by_field_name("arguments")
        if function is None or arguments is None or self.text(function) != "require":
            return False
        first = first_named(arguments)
        if first is None or first.type != "string" or arguments.named_child_count != 1:
            return False
        module = string_value(first, self.source)
        self.scan.claimed.add(value.id)
        self.scan.claimed.add(whole.id)
        if name_node.type == "identifier":
            self.add_import(module, member, name_node)
            return True
        if name_node.type != "object_pattern":
            return False
        for part in name_node.named_children:
            if part.type == "shorthand_property_identifier_pattern":
                self.add_import(module, self.text(part), part)
            elif part.type == "pair_pattern":
                key = part.child_by_field_name("key")
                local = part.child_by_field_name("value")
                if key is not None and local is not None and local.type == "identifier":
                    self.add_import(module, self.text(key), local)
        return True

    def add_import(self, module: str, name: str | None, local: ts.Node) -> None:
        point = local.start_point
        self.scan.claimed.add(local.id)
        self.scan.imports.append(Import(module, name, self.text(local), point[0] + 1, point[1], local.start_byte))

    # ---- export default, CommonJS -------------------------------------------------------------

    def default_export(self, statement: ts.Node) -> None:
        default_keyword = None
        equals = False
        for child in statement.children:
            if child.type == "default":
                default_keyword = child
            elif child.type == "=":
                equals = True
        line = statement.start_point[0] + 1
        declaration = statement.child_by_field_name("declaration")
        if default_keyword is not None and declaration is not None:
            name_node = declaration.child_by_field_name("name")
            if name_node is not None:
                self.scan.exports.append(ExportAlias("default", self.text(name_node), line))
            return
        value = statement.child_by_field_name("value")
        if value is None and declaration is None and statement.child_by_field_name("source") is None:
            # `export = x`, `export as namespace X`
            value = statement.named_children[-1] if statement.named_children else None
            if value is not None and value.type == "identifier":
                self.scan.claimed.add(value.id)
                if equals:
                    self.scan.exports.append(ExportAlias("default", self.text(value), line))
                    self.facts.listed.add(self.text(value))
            return
        if default_keyword is None or value is None:
            return
        if value.type == "identifier":
            self.scan.claimed.add(value.id)
            self.scan.exports.append(ExportAlias("default", self.text(value), line))
            self.facts.listed.add(self.text(value))
            return
        self.value_declaration("default", value, default_keyword, statement)

    def value_declaration(self, name: str, value: ts.Node, name_node: ts.Node, outer: ts.Node) -> None:
        """A declaration whose name is given by its export (`export default …`, `exports.x = …`)."""
        if value.type in FUNCTION_VALUES:
            body = value.child_by_field_name("body")
            draft = self.draft(
                name,
                SymbolKind.FUNCTION,
                value,
                name_node,
                outer=outer,
                cut=body.start_byte if body else None,
            )
            draft.opens_scope = True
        elif value.type in CLASS_VALUES:
            body = value.child_by_field_name("body")
            draft = self.draft(
                name, SymbolKind.CLASS, value, name_node, outer=outer, cut=body.start_byte if body else None
            )
            draft.opens_scope = True
            if body is not None:
                self.class_members(body, draft)
        else:
            draft = self.draft(name, SymbolKind.CONSTANT, value, name_node, outer=outer, cut=self.value_cut(value))
            literal = object_literal(value)
            if literal is not None:
                self.object_members(literal, draft)
        draft.exported = True

    def commonjs(self, assignment: ts.Node) -> None:
        """`module.exports = …`, `exports.x = …`, `module.exports.x = …` at module level."""
        left = assignment.child_by_field_name("left")
        right = assignment.child_by_field_name("right")
        if left is None or right is None:
            return
        target = self.text(left)
        line = assignment.start_point[0] + 1
        if target == "module.exports":
            self.scan.claimed.add(left.id)  # the target names an export, it is not a use
            if right.type == "identifier":
                self.scan.exports.append(ExportAlias("default", self.text(right), line))
            elif right.type == "object":
                self.commonjs_object(right, line)
            elif right.type in FUNCTION_VALUES or right.type in CLASS_VALUES:
                property_node = left.child_by_field_name("property")
                if property_node is not None:
                    self.value_declaration("default", right, property_node, assignment)
            return
        head, _, name = target.rpartition(".")
        if head not in ("exports", "module.exports"):
            self.expando(assignment, left, right, head, name)
            return
        property_node = left.child_by_field_name("property")
        if property_node is None or not name.isidentifier():
            return
        self.scan.claimed.add(left.id)
        if right.type == "identifier":
            local = self.text(right)
            if local != name:
                self.scan.exports.append(ExportAlias(name, local, line))
            self.facts.list_name(local, name, line)
            return
        self.value_declaration(name, right, property_node, assignment)

    def expando(self, assignment: ts.Node, left: ts.Node, right: ts.Node, head: str, name: str) -> None:
        """`Fn.prototype.m = function…` and `Fn.helper = …` add members to a function or class
        declared in this file (how JavaScript wrote classes before `class`)."""
        owner_name = head.removesuffix(".prototype")
        property_node = left.child_by_field_name("property")
        if not owner_name.isidentifier() or not name.isidentifier() or property_node is None:
            return
        owners = [d for d in self.drafts if d.name == owner_name and d.kind in (SymbolKind.FUNCTION, SymbolKind.CLASS)]
        if len(owners) != 1:
            return
        self.scan.claimed.add(left.id)
        if right.type in FUNCTION_VALUES:
            body = right.child_by_field_name("body")
            draft = self.draft(
                name,
                SymbolKind.METHOD,
                right,
                property_node,
                outer=assignment,
                cut=body.start_byte if body else None,
            )
            draft.opens_scope = True
        else:
            kind = SymbolKind.CLASS if right.type in CLASS_VALUES else SymbolKind.PROPERTY
            draft = self.draft(name, kind, right, property_node, outer=assignment, cut=self.value_cut(right))
        draft.owner = owner_name
        draft.owner_draft = owners[0]

    def commonjs_object(self, obj: ts.Node, line: int) -> None:
        for entry in obj.named_children:
            if entry.type == "shorthand_property_identifier":
                name = self.text(entry)
                self.facts.list_name(name, name, line)
            elif entry.type == "pair":
                key = entry.child_by_field_name("key")
                value = entry.child_by_field_name("value")
                if key is None or value is None or value.type != "identifier":
                    continue
                exported, local = self.text(key), self.text(value)
                if exported != local:
                    self.scan.exports.append(ExportAlias(exported, local, line))
                self.facts.list_name(local, exported, line)


def pattern_names(pattern: ts.Node) -> list[ts.Node]:
    """The identifiers a destructuring pattern binds (`{a, b: c, ...d}`, `[x, [y]]`)."""
    found: list[ts.Node] = []
    stack = [pattern]
    while stack:
        node = stack.pop()
        kind = node.type
        if kind in ("identifier", "shorthand_property_identifier_pattern"):
            found.append(node)
        elif kind == "pair_pattern":
            value = node.child_by_field_name("value")
            if value is not None:
                stack.append(value)
        elif kind in ("assignment_pattern", "object_assignment_pattern"):
            left = node.child_by_field_name("left")
            if left is not None:
                stack.append(left)
        elif kind in ("object_pattern", "array_pattern", "rest_pattern"):
            stack.extend(reversed(node.named_children))
    return found
