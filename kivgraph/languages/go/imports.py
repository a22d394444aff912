"""Go import specs → `Import` records: the import path and the name it binds in the file.

The bound name is the alias, or the package name guessed from the path as the go tool would
read it from the package clause (`gopkg.in/yaml.v3` → `yaml`, `.../v2` → the element before).
"""

import re

import tree_sitter as ts

from kivgraph.languages.syntax import Import

MAJOR_VERSION = re.compile(r"v[0-9]+")
DOT_VERSION = re.compile(r"\.v[0-9]+$")


def package_name(path: str) -> str:
    """The identifier an unaliased import of `path` binds, by the usual naming conventions."""
    parts = [part for part in path.split("/") if part]
    if not parts:
        return ""
    last = parts[-1]
    if MAJOR_VERSION.fullmatch(last) and len(parts) > 1:
        last = parts[-2]
    last = DOT_VERSION.sub("", last)
    for prefix in ("go-", "go."):
        if last.startswith(prefix) and len(last) > len(prefix):
            last = last[len(prefix) :]
    if last.endswith("-go"):
        last = last[:-3]
    return last.replace("-", "_").replace(".", "_")


def go_imports(specs: list[ts.Node], source: bytes) -> list[Import]:
    imports: list[Import] = []
    for spec in specs:
        path_node = spec.child_by_field_name("path")
        if path_node is None:
            continue
        path = source[path_node.start_byte : path_node.end_byte].decode("utf-8", "replace").strip('"`')
        name_node = spec.child_by_field_name("name")
        site = name_node if name_node is not None else path_node
        row, column = site.start_point
        if name_node is None:
            local: str | None = package_name(path)
            wildcard = False
        else:
            alias = source[name_node.start_byte : name_node.end_byte].decode("utf-8", "replace")
            wildcard = alias == "."
            local = None if alias in (".", "_") else alias
        imports.append(Import(path, None, local, row + 1, column, site.start_byte, wildcard=wildcard))
    imports.sort(key=lambda record: record.start_byte)
    return imports
