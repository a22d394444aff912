"""Shared tree-sitter plumbing for the adapters: grammars, parsers, queries, node text, doc comments.

Queries live as package data (`languages/<lang>/*.scm`) and are compiled once per process.
Nothing here knows a language's rules; adapters do.
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
"""Some grammars go quadratic on pathological input (100 KB of `a.a.a…` takes tree-sitter-dart
17 s): past this budget a file is given up on, recorded, and indexing goes on."""
CHUNK = 1 << 22
MAX_DOC = 400


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


def parse_tree(p: ts.Parser, source: bytes, budget: float | None = None) -> ts.Tree | None:
    """Parse within a time budget; None when the budget ran out.

    tree-sitter only honours a progress callback when it reads through a callable, so the source is
    served in large chunks (no measurable overhead against parsing the bytes directly).
    """
    deadline = time.monotonic() + (PARSE_BUDGET_SECONDS if budget is None else budget)

    def read(offset: int, _point: tuple[int, int]) -> bytes:
        return source[offset : offset + CHUNK]

    def over_budget(*_state: object) -> bool:
        return time.monotonic() > deadline

    try:
        return p.parse(read, progress_callback=over_budget)
    except ValueError:
        p.reset()
        return None


def timed_out(path: str) -> FileSyntax:
    """What an adapter returns for a file whose parse ran out of budget."""
    detail = f"parsing took longer than {PARSE_BUDGET_SECONDS:g}s (KIVGRAPH_PARSE_TIMEOUT); the file was skipped"
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
