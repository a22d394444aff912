"""Shared tree-sitter plumbing for the adapters: grammars, parsers, queries, node text, doc comments.

Queries live as package data (`languages/<lang>/*.scm`) and are compiled once per process; a file
is parsed and queried within one time budget. Nothing here knows a language's rules; adapters do.
"""

import os
import time
from collections.abc import Callable
from functools import cache
from importlib import resources

import tree_sitter as ts

from kivgraph.languages.syntax import FileSyntax, SyntaxProblem

MAX_SIGNATURE = 240
PARSE_BUDGET_SECONDS = float(os.environ.get("KIVGRAPH_PARSE_TIMEOUT", "10"))
"""One file's time in the syntax layer, parse and query together. Some grammars go quadratic on
pathological input (100 KB of `a.a.a…` takes tree-sitter-dart 17 s to parse): past this budget a
file is given up on, recorded `skipped_parse_timeout`, and indexing goes on. Tests lower it."""
QUERY_BAND_DEPTH = 64
"""Tree levels in which one query cursor may start patterns (see `captures`); real code is shallower."""
CHUNK = 1 << 22
MAX_DOC = 400

Captures = dict[str, list[ts.Node]]


@cache
def grammar(name: str) -> ts.Language:
    """The tree-sitter Language for a grammar wheel: python, go, rust, typescript, tsx, javascript, dart."""
    loaders: dict[str, Callable[[], object]] = {}
    if name == "python":
        import tree_sitter_python as mod

        loaders[name] = mod.language
    elif name == "go":
        import tree_sitter_go as mod

        loaders[name] = mod.language
    elif name == "rust":
        import tree_sitter_rust as mod

        loaders[name] = mod.language
    elif name in ("typescript", "tsx"):
        import tree_sitter_typescript as mod

        loaders[name] = mod.language_typescript if name == "typescript" else mod.language_tsx
    elif name == "javascript":
        import tree_sitter_javascript as mod

        loaders[name] = mod.language
    elif name == "dart":
        import tree_sitter_dart as mod

        loaders[name] = mod.language
    else:
        raise ValueError(f"no tree-sitter grammar named {name!r}")
    return ts.Language(loaders[name]())


def parser(name: str) -> ts.Parser:
    """A fresh parser (parsers hold state, so they are not shared across threads)."""
    return ts.Parser(grammar(name))


def deadline(budget: float | None = None) -> float:
    """When a file's syntax-layer budget (`PARSE_BUDGET_SECONDS` unless given) runs out, on `time.monotonic`."""
    return time.monotonic() + (PARSE_BUDGET_SECONDS if budget is None else budget)


def parse_tree(p: ts.Parser, source: bytes, until: float | None = None) -> ts.Tree | None:
    """Parse before the deadline `until` (a fresh budget by default); None when it passed.

    tree-sitter only honours a progress callback when it reads through a callable, so the source is
    served in large chunks (no measurable overhead against parsing the bytes directly).
    """
    stop = deadline() if until is None else until

    def read(offset: int, _point: tuple[int, int]) -> bytes:
        return source[offset : offset + CHUNK]

    def over_budget(*_state: object) -> bool:
        return time.monotonic() > stop

    try:
        return p.parse(read, progress_callback=over_budget)
    except ValueError:
        p.reset()
        return None


def captures(q: ts.Query, root: ts.Node, until: float) -> Captures | None:
    """Every capture of `q` under `root`, as `QueryCursor.captures` gives them; None past `until`.

    A cursor keeps a pattern's state alive while the node it started on may still have a matching
    child (a closing `)` counts), and checks every live state at every node it enters: N nested
    parentheses cost N². So a cursor starts patterns only in the top QUERY_BAND_DEPTH levels, and
    each node on its last level roots the next band. That root has no parent in its own cursor, so
    patterns needing one (a field, a supertype) match it in the band above; double finds are merged.
    Real code fits in one band: one run, as before. The deadline is checked between runs, since
    py-tree-sitter 0.26.1 crashes when a query is given a progress callback.
    """
    found: Captures = {}
    runs = 0
    bands = [root]
    while bands:
        band = bands.pop()
        cursor = ts.QueryCursor(q)
        cursor.set_max_start_depth(QUERY_BAND_DEPTH)
        band_captures = cursor.captures(band)
        runs += 1
        if runs == 1:
            found = band_captures
        else:
            for name, nodes in band_captures.items():
                found.setdefault(name, []).extend(nodes)
        if time.monotonic() > until:
            return None
        bands.extend(band_roots(band, QUERY_BAND_DEPTH))
    if runs == 1:
        return found
    return {name: list(dict.fromkeys(nodes)) for name, nodes in found.items()}


def band_roots(band: ts.Node, depth: int) -> list[ts.Node]:
    """The nodes `depth` levels below `band` that have children: where the next bands start.

    Only subtrees that can reach that deep are entered (a node `d` levels down with `n` nodes in
    its subtree reaches at most `d + n - 1`), so a shallow tree costs a few nodes of Python.
    """
    found: list[ts.Node] = []
    stack = [(band, 0)]
    while stack:
        node, level = stack.pop()
        level += 1
        for child in node.children:
            if level + child.descendant_count < depth + 2:
                continue
            if level == depth:
                found.append(child)
            else:
                stack.append((child, level))
    return found


def syntax_tree(p: ts.Parser, q: ts.Query, source: bytes) -> tuple[ts.Node, Captures] | None:
    """Parse `source` and run `q` over the tree, both within one file budget; None when it ran out."""
    until = deadline()
    tree = parse_tree(p, source, until)
    if tree is None:
        return None
    found = captures(q, tree.root_node, until)
    return None if found is None else (tree.root_node, found)


def timed_out(path: str) -> FileSyntax:
    """What an adapter returns for a file whose parse or query ran out of budget."""
    detail = (
        f"parsing and querying took longer than {PARSE_BUDGET_SECONDS:g}s; the file was skipped "
        "(raise KIVGRAPH_PARSE_TIMEOUT to index it)"
    )
    return FileSyntax(path, problems=(SyntaxProblem(1, detail),), timed_out=True)


@cache
def query(grammar_name: str, package: str, filename: str) -> ts.Query:
    """Compile `filename` from package data of `kivgraph.languages.<package>` for a grammar."""
    text = resources.files(f"kivgraph.languages.{package}").joinpath(filename).read_text(encoding="utf-8")
    return ts.Query(grammar(grammar_name), text)


def matches(q: ts.Query, node: ts.Node) -> list[tuple[int, dict[str, list[ts.Node]]]]:
    return ts.QueryCursor(q).matches(node)


def text(node: ts.Node | None, source: bytes) -> str:
    if node is None:
        return ""
    return source[node.start_byte : node.end_byte].decode("utf-8", errors="replace")


def collapse(snippet: str, limit: int = MAX_SIGNATURE) -> str:
    """One line, single spaces, capped: how signatures and docs are stored."""
    flat = " ".join(snippet.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def signature(node: ts.Node, source: bytes, body: ts.Node | None) -> str:
    """The declaration's text up to its body (or all of it when it has none), on one line."""
    end = body.start_byte if body is not None else node.end_byte
    return collapse(source[node.start_byte : end].decode("utf-8", errors="replace").rstrip(" {=:"))


def leading_comments(node: ts.Node, source: bytes, comment_types: frozenset[str]) -> str:
    """Doc text from the comments directly above a declaration (no blank line between)."""
    lines: list[str] = []
    prev = node.prev_sibling
    expected_row = node.start_point[0]
    while prev is not None and prev.type in comment_types and prev.end_point[0] >= expected_row - 1:
        lines.insert(0, text(prev, source))
        expected_row = prev.start_point[0]
        prev = prev.prev_sibling
    return clean_doc("\n".join(lines))


def clean_doc(raw: str) -> str:
    """Strip comment markers and keep the first paragraph."""
    out: list[str] = []
    for line in raw.splitlines():
        stripped = line.strip()
        for marker in ("///", "//!", "//", "/**", "/*", "*/", "#", "*"):
            if stripped.startswith(marker):
                stripped = stripped[len(marker) :].strip()
                break
        if stripped.endswith("*/"):
            stripped = stripped[:-2].strip()
        if not stripped and out:
            break
        if stripped:
            out.append(stripped)
    return collapse(" ".join(out), MAX_DOC)


def syntax_errors(root: ts.Node, limit: int = 20) -> list[tuple[int, str]]:
    """(line, detail) for ERROR and MISSING nodes, outermost first, at most `limit`."""
    if not root.has_error:
        return []
    found: list[tuple[int, str]] = []
    stack = [root]
    while stack and len(found) < limit:
        node = stack.pop()
        if node.is_error:
            found.append((node.start_point[0] + 1, "syntax error"))
            continue
        if node.is_missing:
            found.append((node.start_point[0] + 1, f"missing {node.type}"))
            continue
        if node.has_error:
            stack.extend(reversed(node.children))
    return found
