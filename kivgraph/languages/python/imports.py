"""Python import statements → `Import` records: what each statement binds, and under which name.

Only the statement's own syntax is read; where a module lives is `modules.py`.
"""

import tree_sitter as ts

from kivgraph.languages.syntax import Import
from kivgraph.languages.treesitter import text


def python_imports(nodes: list[ts.Node], source: bytes, dunder_all: set[str] | None) -> list[Import]:
    """Each name an import statement binds (or the wildcard it opens)."""
    imports: list[Import] = []
    exported = dunder_all or set()
    for statement in nodes:
        if statement.type == "import_statement":
            for item in statement.children_by_field_name("name"):
                if item.type == "aliased_import":
                    dotted = item.child_by_field_name("name")
                    alias = item.child_by_field_name("alias")
                    if dotted is None or alias is None:
                        continue
                    module = "".join(text(dotted, source).split())
                    local = text(alias, source)
                    row, column = alias.start_point
                    reexport = local == module or local in exported
                    imports.append(Import(module, None, local, row + 1, column, alias.start_byte, reexport=reexport))
                else:
                    module = "".join(text(item, source).split())
                    head = module.partition(".")[0]
                    row, column = item.start_point
                    imports.append(
                        Import(head, None, head, row + 1, column, item.start_byte, reexport=head in exported)
                    )
            continue
        module_node = statement.child_by_field_name("module_name")
        if module_node is None:
            continue
        module = "".join(text(module_node, source).split())
        wildcard = next((child for child in statement.named_children if child.type == "wildcard_import"), None)
        if wildcard is not None:
            row, column = wildcard.start_point
            imports.append(Import(module, None, None, row + 1, column, wildcard.start_byte, wildcard=True))
            continue
        for item in statement.children_by_field_name("name"):
            if item.type == "aliased_import":
                name_node = item.child_by_field_name("name")
                alias = item.child_by_field_name("alias")
                if name_node is None or alias is None:
                    continue
                name = text(name_node, source)
                local = text(alias, source)
                site = alias
                reexport = local == name or local in exported
            else:
                name = text(item, source)
                local = name
                site = item
                reexport = local in exported
            row, column = site.start_point
            imports.append(Import(module, name, local, row + 1, column, site.start_byte, reexport=reexport))
    imports.sort(key=lambda record: record.start_byte)
    return imports
