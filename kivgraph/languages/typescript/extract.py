"""Parse one TypeScript/JavaScript file into `FileSyntax`: one query run, then the passes in order.

Order matters: declarations claim their names, imports theirs, bindings theirs; whatever name is
left is a reference. Never raises on bad input: tree-sitter recovers, text decodes with
replacement, and the problems list says where the tree broke.
"""

import threading

import tree_sitter as ts

from kivgraph.languages.syntax import FileSyntax, SyntaxProblem
from kivgraph.languages.treesitter import grammar, syntax_errors, syntax_tree, timed_out
from kivgraph.languages.typescript.declarations import Declarations
from kivgraph.languages.typescript.imports import collect_imports
from kivgraph.languages.typescript.objects import typed_keys
from kivgraph.languages.typescript.references import collect_bindings, collect_references
from kivgraph.languages.typescript.scan import FileScan, file_query

_parsers = threading.local()


def thread_parser(grammar_name: str) -> ts.Parser:
    """Parsers keep state between calls, so each thread keeps its own per grammar."""
    cached: dict[str, ts.Parser] | None = getattr(_parsers, "by_grammar", None)
    if cached is None:
        cached = _parsers.by_grammar = {}
    found = cached.get(grammar_name)
    if found is None:
        found = cached[grammar_name] = ts.Parser(grammar(grammar_name))
    return found


def grammar_for(path: str, default: str) -> str:
    return "tsx" if path.endswith(".tsx") else default


def parse_file(path: str, source: bytes, grammar_name: str) -> FileSyntax:
    parsed = syntax_tree(thread_parser(grammar_name), file_query(grammar_name), source)
    if parsed is None:
        return timed_out(path)
    root, captures = parsed
    scan = FileScan(source, captures, declaration_file=is_declaration_file(path))
    declarations = Declarations(scan, root).build()
    collect_imports(scan)
    bindings = collect_bindings(scan)
    references = collect_references(scan)
    # after the shorthand `{ run }`'s own use at the same byte: where a type checker reports one
    # occurrence there, it is the member the key implements, and this role is what it takes
    references.extend(typed_keys(scan))
    references.sort(key=lambda r: r.start_byte)
    scan.imports.sort(key=lambda i: i.start_byte)
    scan.exports.sort(key=lambda e: e.line)
    return FileSyntax(
        path=path,
        declarations=tuple(declarations),
        imports=tuple(scan.imports),
        references=tuple(references),
        bindings=tuple(bindings),
        exports=tuple(scan.exports),
        problems=tuple(SyntaxProblem(line, detail) for line, detail in syntax_errors(root)),
    )


def is_declaration_file(path: str) -> bool:
    name = path.rpartition("/")[2]
    return name.endswith((".d.ts", ".d.mts", ".d.cts")) or (".d." in name and name.endswith(".ts"))
