"""What a change touched: the files of a git diff (pygit2) with the line ranges changed on each side,
their contents before and after, and a comment-blind token fingerprint to tell edits from rewording."""

import os
from collections.abc import Callable
from dataclasses import dataclass, field

import pygit2

from kivgraph.errors import InvalidArgumentError
from kivgraph.languages import language_of
from kivgraph.languages.treesitter import parse_tree, parser
from kivgraph.model import Language

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


STATUS = {
    pygit2.enums.DeltaStatus.ADDED: "added",
    pygit2.enums.DeltaStatus.UNTRACKED: "added",
    pygit2.enums.DeltaStatus.DELETED: "deleted",
    pygit2.enums.DeltaStatus.MODIFIED: "modified",
    pygit2.enums.DeltaStatus.RENAMED: "renamed",
    pygit2.enums.DeltaStatus.COPIED: "added",
    pygit2.enums.DeltaStatus.TYPECHANGE: "modified",
}


def changed_files(repo: pygit2.Repository, base: pygit2.Commit, head: pygit2.Commit | None) -> list[FileChange]:
    """Files of a known language changed between `base` and `head` (None: the working tree)."""
    if head is None:
        if not repo.workdir:
            raise InvalidArgumentError("a bare repository has no working tree to compare; pass --head REV.")
        flags = (
            pygit2.enums.DiffOption.INCLUDE_UNTRACKED
            | pygit2.enums.DiffOption.RECURSE_UNTRACKED_DIRS
            | pygit2.enums.DiffOption.SHOW_UNTRACKED_CONTENT
        )
        diff = base.tree.diff_to_workdir(flags=flags)
    else:
        diff = base.tree.diff_to_tree(head.tree)
    diff.find_similar()
    changes: list[FileChange] = []
    root = repo.workdir or ""
    for patch in diff:
        if patch is None:
            continue
        delta = patch.delta
        status = STATUS.get(delta.status)
        if status is None:
            continue
        old_path = delta.old_file.path if status != "added" else ""
        new_path = delta.new_file.path if status != "deleted" else ""
        if not any(p and language_of(p) for p in (old_path, new_path)):
            continue
        change = FileChange(old_path, new_path, status, binary=bool(delta.is_binary))
        for hunk in patch.hunks:
            for line in hunk.lines:
                if line.origin == "-" and line.old_lineno > 0:
                    change.old_lines.add(line.old_lineno)
                elif line.origin == "+" and line.new_lineno > 0:
                    change.new_lines.add(line.new_lineno)
        change.old_source = _blob_reader(repo, delta.old_file.id) if old_path else change.old_source
        if new_path:
            if head is None:
                change.new_source = _disk_reader(os.path.join(root, new_path))
            else:
                change.new_source = _blob_reader(repo, delta.new_file.id)
        changes.append(change)
    return changes


def _blob_reader(repo: pygit2.Repository, oid: pygit2.Oid) -> Callable[[], bytes]:
    def read() -> bytes:
        blob = repo.get(oid)
        return blob.data if isinstance(blob, pygit2.Blob) else b""

    return read


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
