"""Imports and re-exports of a TypeScript/JavaScript file: what each statement binds, and where from.

`import` forms, `import x = require()`, `export … from`, dynamic `import()` and bare `require()`
calls. `const x = require("m")` declarators are recognised in `declarations` (they are the
module-level variable statements) and land in the same list.
"""

import tree_sitter as ts

from kivgraph.languages.syntax import Import
from kivgraph.languages.typescript.scan import FileScan, first_named, string_value


def collect_imports(scan: FileScan) -> None:
    for statement in scan.top_imports:
        import_statement(scan, statement)
    for statement in scan.top_exports:
        source = statement.child_by_field_name("source")
        if source is not None:
            reexport(scan, statement, string_value(source, scan.source))
    for call in scan.nodes("import.dynamic") + scan.nodes("import.require"):
        if call.id in scan.claimed:
            continue
        arguments = call.child_by_field_name("arguments")
        argument = first_named(arguments) if arguments is not None else None
        if argument is not None:
            add(scan, string_value(argument, scan.source), None, None, argument)


def add(
    scan: FileScan,
    module: str,
    name: str | None,
    local: ts.Node | None,
    at: ts.Node,
    *,
    wildcard: bool = False,
    reexport: bool = False,
) -> None:
    point = at.start_point
    if local is not None:
        scan.claimed.add(local.id)
    scan.imports.append(
        Import(
            module=module,
            name=name,
            local_name=scan.text(local) if local is not None else None,
            line=point[0] + 1,
            column=point[1],
            start_byte=at.start_byte,
            wildcard=wildcard,
            reexport=reexport,
        )
    )


def specifier_name(scan: FileScan, node: ts.Node) -> str:
    return string_value(node, scan.source) if node.type == "string" else scan.text(node)


def import_statement(scan: FileScan, statement: ts.Node) -> None:
    source = statement.child_by_field_name("source")
    for clause in statement.named_children:
        if clause.type == "import_require_clause":
            # import fs = require("fs")
            required = clause.child_by_field_name("source")
            local = first_named(clause)
            if required is not None and local is not None and local.type == "identifier":
                add(scan, string_value(required, scan.source), None, local, local)
            return
    if source is None:
        return
    module = string_value(source, scan.source)
    bound = False
    for clause in statement.named_children:
        if clause.type != "import_clause":
            continue
        for part in clause.named_children:
            kind = part.type
            if kind == "identifier":
                add(scan, module, "default", part, part)
                bound = True
            elif kind == "namespace_import":
                local = first_named(part)
                if local is not None:
                    add(scan, module, None, local, local)
                    bound = True
            elif kind == "named_imports":
                for specifier in part.named_children:
                    if specifier.type != "import_specifier":
                        continue
                    name_node = specifier.child_by_field_name("name")
                    if name_node is None:
                        continue
                    alias = specifier.child_by_field_name("alias")
                    local = alias if alias is not None else name_node
                    scan.claimed.add(name_node.id)
                    add(scan, module, specifier_name(scan, name_node), local, local)
                    bound = True
    if not bound:
        # import "./polyfill" (or an empty `import {} from`): the module runs, nothing is bound.
        add(scan, module, None, None, source)


def reexport(scan: FileScan, statement: ts.Node, module: str) -> None:
    source = statement.child_by_field_name("source")
    at = source if source is not None else statement
    for part in statement.named_children:
        kind = part.type
        if kind == "export_clause":
            for specifier in part.named_children:
                name_node = specifier.child_by_field_name("name")
                if name_node is None:
                    continue
                alias = specifier.child_by_field_name("alias")
                local = alias if alias is not None else name_node
                scan.claimed.add(name_node.id)
                add(scan, module, specifier_name(scan, name_node), local, local, reexport=True)
            return
        if kind == "namespace_export":
            local = first_named(part)
            if local is not None:
                add(scan, module, None, local, local, reexport=True)
            return
    # export * from "m"
    add(scan, module, None, None, at, wildcard=True, reexport=True)
