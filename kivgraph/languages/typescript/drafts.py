"""Declarations under construction: ranges, signatures, JSDoc, and the finishing pass.

The finishing pass folds overload signatures into one declaration, derives nesting from byte
ranges and settles exported-ness of members (a member is public when its container is and it is
not private). Node-specific rules live in `declarations`.
"""

import re
from bisect import bisect_right

import tree_sitter as ts

from kivgraph.languages.syntax import Declaration, ExportAlias
from kivgraph.languages.treesitter import MAX_DOC, MAX_SIGNATURE, collapse
from kivgraph.languages.typescript.exports import ExportFacts
from kivgraph.languages.typescript.scan import FileScan
from kivgraph.model import SymbolKind

MEMBER_KINDS = frozenset(
    {
        SymbolKind.METHOD,
        SymbolKind.CONSTRUCTOR,
        SymbolKind.GETTER,
        SymbolKind.SETTER,
        SymbolKind.PROPERTY,
        SymbolKind.ENUM_MEMBER,
    }
)
CONTAINER_KINDS = frozenset({SymbolKind.CLASS, SymbolKind.INTERFACE, SymbolKind.ENUM, SymbolKind.TYPE_ALIAS})
OVERLOADABLE = frozenset({SymbolKind.FUNCTION, SymbolKind.METHOD, SymbolKind.CONSTRUCTOR})
SHORT_VALUE = 60
"""A variable's initializer up to this many bytes (on one line) stays in its signature."""

SIGNATURE_BYTES = 4 * MAX_SIGNATURE
MAX_DOC_GAP = 200
DOC_GAP = re.compile(rb"[ \t]*(?:\r?\n)?[ \t]*")
"""Between a JSDoc block and what it documents: indentation and at most one line break."""
ONLY_COMMENTS = re.compile(rb"(?:[\s;,]|//[^\n]*|/\*.*?\*/)*", re.S)


class Draft:
    """A declaration being assembled; exported-ness of members is settled once nesting is known."""

    __slots__ = (
        "name", "kind", "start", "end", "start_line", "end_line", "name_line", "name_column",
        "signature", "exported", "doc", "owner", "opens_scope", "private", "bodiless", "owner_draft",
    )  # fmt: skip

    def __init__(self, name: str, kind: SymbolKind) -> None:
        self.name = name
        self.kind = kind
        self.start = self.end = 0
        self.start_line = self.end_line = self.name_line = self.name_column = 0
        self.signature = ""
        self.exported = False
        self.doc = ""
        self.owner = ""
        self.opens_scope = False
        self.private = False
        self.bodiless = False
        self.owner_draft: Draft | None = None


class DraftBook:
    """The declarations of one file being assembled."""

    def __init__(self, scan: FileScan, facts: ExportFacts) -> None:
        self.scan = scan
        self.source = scan.source
        self.facts = facts
        self.drafts: list[Draft] = []
        jsdocs = [c for c in scan.nodes("comment") if self.source.startswith(b"/**", c.start_byte)]
        jsdocs.sort(key=lambda c: c.end_byte)  # captures do not come in source order
        self.doc_ends = [c.end_byte for c in jsdocs]
        self.doc_nodes = jsdocs

    def text(self, node: ts.Node) -> str:
        return self.source[node.start_byte : node.end_byte].decode("utf-8", errors="replace")

    def draft(
        self,
        name: str,
        kind: SymbolKind,
        node: ts.Node,
        name_node: ts.Node,
        *,
        outer: ts.Node | None = None,
        cut: int | None = None,
        end_node: ts.Node | None = None,
    ) -> Draft:
        """Record a declaration spanning `outer` (or `node`), signature = text up to byte `cut`."""
        first = outer if outer is not None else node
        last = end_node if end_node is not None else first
        draft = Draft(name, kind)
        start = draft.start = first.start_byte
        end = draft.end = last.end_byte
        draft.start_line = first.start_point[0] + 1
        draft.end_line = last.end_point[0] + 1
        name_point = name_node.start_point
        draft.name_line = name_point[0] + 1
        draft.name_column = name_point[1]
        # a signature is one capped line: never decode more than a few times its cap
        stop = min(cut if cut is not None else end, start + SIGNATURE_BYTES)
        snippet = self.source[start : max(stop, start)].decode("utf-8", "replace")
        draft.signature = collapse(snippet.rstrip(" \t\r\n{=:;,"))
        draft.doc = self.doc_before(start)
        draft.exported = node.id in self.facts.exported
        self.scan.claimed.add(name_node.id)
        self.drafts.append(draft)
        return draft

    def doc_before(self, start: int) -> str:
        """The JSDoc block that ends right above `start`, with no blank line or code between."""
        index = bisect_right(self.doc_ends, start) - 1
        if index < 0:
            return ""
        end = self.doc_ends[index]
        if start - end > MAX_DOC_GAP or not DOC_GAP.fullmatch(self.source, end, start):
            return ""
        return jsdoc_summary(self.text(self.doc_nodes[index]))

    def value_cut(self, value: ts.Node | None) -> int | None:
        """Keep a short one-line initializer in the signature, cut a long one."""
        if value is None:
            return None
        start, end = value.start_byte, value.end_byte
        if end - start <= SHORT_VALUE and b"\n" not in self.source[start:end]:
            return None
        return start

    def finish(self) -> list[Declaration]:
        drafts = sorted(self.drafts, key=lambda d: (d.start, -d.end))
        drafts = self.fold_overloads(drafts)
        listed = self.facts.listed
        # A declaration file without imports or exports is a script: its declarations are global.
        global_script = self.scan.declaration_file and not self.scan.top_imports and not self.scan.top_exports
        top_level_names: set[str] = set()
        stack: list[Draft] = []
        for draft in drafts:
            while stack and stack[-1].end <= draft.start:
                stack.pop()
            parent = stack[-1] if stack else None
            if draft.owner_draft is not None:
                owner = draft.owner_draft
                draft.exported = owner.exported and not draft.private
            elif parent is None:
                top_level_names.add(draft.name)
                if global_script or draft.name in listed:
                    draft.exported = True
            elif draft.kind in MEMBER_KINDS and parent.kind in CONTAINER_KINDS:
                draft.exported = parent.exported and not draft.private
            stack.append(draft)
        # `export { x }` of a name this file only imports is a re-export through an alias.
        for name, line in self.facts.bare.items():
            if name not in top_level_names:
                self.scan.exports.append(ExportAlias(name, name, line))
        return [
            Declaration(
                d.name,
                d.kind,
                d.start,
                d.end,
                d.start_line,
                d.end_line,
                d.name_line,
                d.name_column,
                d.signature,
                d.exported,
                d.doc,
                d.owner,
                d.opens_scope,
            )
            for d in drafts
        ]

    def fold_overloads(self, drafts: list[Draft]) -> list[Draft]:
        """`f(a: string): void; f(a: any) {…}` is one function: keep the implementation (or the
        first signature when there is none) spanning every overload."""
        folded: list[Draft] = []
        for draft in drafts:
            previous = folded[-1] if folded else None
            if (
                previous is not None
                and previous.bodiless
                and draft.kind in OVERLOADABLE
                and previous.kind is draft.kind
                and previous.name == draft.name
                and previous.end <= draft.start
                and ONLY_COMMENTS.fullmatch(self.source, previous.end, draft.start) is not None
            ):
                if draft.bodiless:
                    previous.end, previous.end_line = draft.end, draft.end_line
                    previous.exported = previous.exported or draft.exported
                    continue
                draft.start, draft.start_line = previous.start, previous.start_line
                draft.doc = draft.doc or previous.doc
                draft.exported = draft.exported or previous.exported
                folded[-1] = draft
                continue
            folded.append(draft)
        return folded


def jsdoc_summary(raw: str) -> str:
    """The first paragraph of a `/** … */` block, up to its first `@tag` line, on one line."""
    body = raw[3:-2] if raw.endswith("*/") else raw[3:]
    kept: list[str] = []
    for line in body.split("\n", 24)[:24]:  # a summary never needs more lines than that
        text = line.strip()
        if text.startswith("*"):
            text = text[1:].strip()
        if not text:
            if kept:
                break
            continue
        if text.startswith("@"):
            break
        kept.append(text)
    return collapse(" ".join(kept), MAX_DOC)
