"""Dart syntax layer: one parse and one query pass per file → `FileSyntax`.

Declarations and imports come from walking the top level and class bodies
(`declarations.py`); references and bindings from query captures (`references.py`).
"""

import threading

import tree_sitter as ts

from kivgraph.languages import treesitter
from kivgraph.languages.dart.declarations import DeclarationWalk, node_text, one_line
from kivgraph.languages.dart.references import ReferenceBuilder, bindings
from kivgraph.languages.syntax import Declaration, FileSyntax, SyntaxProblem
from kivgraph.model import SymbolKind

_local = threading.local()


def _parser() -> ts.Parser:
    parser: ts.Parser | None = getattr(_local, "parser", None)
    if parser is None:
        parser = treesitter.parser("dart")
        _local.parser = parser
    return parser


def parse_dart(path: str, source: bytes) -> FileSyntax:
    parsed = treesitter.syntax_tree(_parser(), treesitter.query("dart", "dart", "dart.scm"), source)
    if parsed is None:
        return treesitter.timed_out(path)
    root, captures = parsed
    walk = DeclarationWalk(source)
    walk.walk_program(root)
    declarations = walk.declarations
    declarations.extend(_local_functions(captures.get("local_function", []), source))
    declarations.sort(key=lambda d: (d.start_byte, -d.end_byte))
    claimed = set(walk.names)
    found_bindings = bindings(captures, source, claimed)
    references = ReferenceBuilder(captures, source, claimed).build()
    references.extend(walk.formals)
    references.sort(key=lambda r: r.start_byte)
    problems = tuple(SyntaxProblem(line, detail) for line, detail in treesitter.syntax_errors(root))
    return FileSyntax(
        path=path,
        declarations=tuple(declarations),
        imports=tuple(walk.imports),
        references=tuple(references),
        bindings=tuple(found_bindings),
        problems=problems,
        package_clause=walk.package_clause,
    )


def _local_functions(nodes: list[ts.Node], source: bytes) -> list[Declaration]:
    """`int twice(int x) => x * 2;` inside a body: a nested function declaration."""
    out: list[Declaration] = []
    for node in nodes:
        lambda_node = node.named_child(0) if node.named_child_count else None
        signature = lambda_node.child_by_field_name("parameters") if lambda_node is not None else None
        name = signature.child_by_field_name("name") if signature is not None else None
        if signature is None or name is None:
            continue
        text = node_text(name, source)
        line, column = name.start_point
        out.append(
            Declaration(
                name=text,
                kind=SymbolKind.FUNCTION,
                start_byte=node.start_byte,
                end_byte=node.end_byte,
                start_line=node.start_point[0] + 1,
                end_line=node.end_point[0] + 1,
                name_line=line + 1,
                name_column=column,
                signature=one_line(source[signature.start_byte : signature.end_byte].decode("utf-8", errors="replace")),
                exported=False,
                opens_scope=True,
            )
        )
    return out
