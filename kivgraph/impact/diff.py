"""What a change touched: the files of a git diff (pygit2) with the line ranges changed on each side,
their contents before and after, and a comment-blind token fingerprint to tell edits from rewording."""

import os
from collections.abc import Callable
from dataclasses import dataclass, field

import pygit2

from kivgraph.languages import language_of
from kivgraph.languages.treesitter import parse_tree, parser
from kivgraph.model import Language
from kivgraph.store.git import changed_lines, prefetch, read_blob, tree_changes, worktree_changes

GRAMMAR = {
    Language.PYTHON: "python",
    Language.GO: "go",
    Language.RUST: "rust",
    Language.TYPESCRIPT: "typescript",
    Language.JAVASCRIPT: "javascript",
    Language.DART: "dart",
}


@dataclass(slots=True)
class FileChange:
    """One file of the diff. `old_path`/`new_path` are "" on the side where it does not exist."""

    old_path: str
    new_path: str
    status: str
    """added, deleted, modified or renamed."""
    old_lines: set[int] = field(default_factory=set[int])
    """1-based lines removed or rewritten on the base side."""
    new_lines: set[int] = field(default_factory=set[int])
    """1-based lines added or rewritten on the head side."""
    binary: bool = False
    old_source: Callable[[], bytes] = lambda: b""
    new_source: Callable[[], bytes] = lambda: b""

    @property
    def path(self) -> str:
        return self.new_path or self.old_path


def changed_files(repo: pygit2.Repository, base: pygit2.Commit, head: pygit2.Commit | None) -> list[FileChange]:
    """Files of a known language changed between `base` and `head` (None: the working tree)."""
    paths = worktree_changes(repo, base) if head is None else tree_changes(repo, base, head)
    paths = [p for p in paths if any(path and language_of(path) for path in (p.old_path, p.new_path))]
    prefetch(repo, [oid for p in paths for oid in (p.old_oid, p.new_oid) if oid])
    root = repo.workdir or ""
    changes: list[FileChange] = []
    for p in paths:
        change = FileChange(p.old_path, p.new_path, p.status)
        if p.old_path:
            change.old_source = _blob_reader(repo, p.old_oid)
        if p.new_path:
            on_disk = os.path.join(root, p.new_path)
            change.new_source = _blob_reader(repo, p.new_oid) if p.new_oid else _disk_reader(on_disk)
        change.old_lines, change.new_lines, change.binary = changed_lines(change.old_source(), change.new_source())
        changes.append(change)
    return changes


def _blob_reader(repo: pygit2.Repository, oid: str) -> Callable[[], bytes]:
    return lambda: read_blob(repo, oid) if oid else b""


def _disk_reader(path: str) -> Callable[[], bytes]:
    def read() -> bytes:
        if os.path.islink(path):
            return b""
        try:
            with open(path, "rb") as handle:
                return handle.read()
        except OSError:
            return b""

    return read


def grammar_of(path: str) -> str | None:
    language = language_of(path)
    if language is None:
        return None
    if language is Language.TYPESCRIPT and path.endswith(".tsx"):
        return "tsx"
    return GRAMMAR[language]


class Fingerprints:
    """The tokens of a line range with comments and layout dropped, per file side: two versions
    of a declaration with the same fingerprint differ only in comments and whitespace."""

    def __init__(self) -> None:
        self.files: dict[tuple[str, int], dict[int, list[str]]] = {}

    def tokens(self, path: str, source: bytes, lines: range, skip: list[range]) -> tuple[str, ...]:
        """Tokens starting on `lines` and on none of `skip` (the spans of nested declarations)."""
        by_line = self._by_line(path, source)
        found: list[str] = []
        for line in lines:
            if line in by_line and not any(line in s for s in skip):
                found.extend(by_line[line])
        return tuple(found)

    def _by_line(self, path: str, source: bytes) -> dict[int, list[str]]:
        key = (path, hash(source))
        if key in self.files:
            return self.files[key]
        by_line: dict[int, list[str]] = {}
        name = grammar_of(path)
        tree = parse_tree(parser(name), source) if name else None
        if tree is None:
            # No grammar or no parse: every non-blank line is a token, so any edit counts.
            text = source.decode("utf-8", "replace").splitlines()
            by_line = {i: [line.strip()] for i, line in enumerate(text, 1) if line.strip()}
        else:
            stack = [tree.root_node]
            while stack:
                node = stack.pop()
                if "comment" in node.type:
                    continue
                if node.child_count == 0:
                    token = source[node.start_byte : node.end_byte].decode("utf-8", "replace")
                    by_line.setdefault(node.start_point[0] + 1, []).append(token)
                else:
                    stack.extend(reversed(node.children))
        self.files[key] = by_line
        return by_line
