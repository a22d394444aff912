"""The impact as a graph: every node and edge for report.json, and a capped Mermaid flowchart for the
PR comment. Names reach Mermaid only as entity-escaped quoted labels; ids are generated. No I/O."""

import heapq
import posixpath
import unicodedata
from collections import deque
from dataclasses import dataclass
from typing import Any

from kivgraph.impact.analysis import Affected, Impact

MERMAID_NODES = 15
"""The comment's graph stops at this many symbols: GitHub fits a diagram to the comment's width, so
more symbols mean smaller labels (at 15, a real 4-hop graph is drawn at about 0.75 of its size)."""
LABEL_CHARS = 32
"""A longer name keeps its tail (the most specific part) behind an ellipsis."""
IMPORT_KINDS = frozenset({"IMPORTS_SYMBOL", "EXPORTS", "REEXPORTS"})
MODULE_KINDS = frozenset({"module", "package", "namespace"})
CHANGE = {
    "signature_changed": "signature changed",
    "modified": "body modified",
    "deleted": "deleted",
    "moved": "moved",
    "added": "added",
}
VERB = {
    "CALLS_DIRECT": "",  # the common case goes unlabeled; the caption says so
    "REFERENCES": "refers to",
    "TYPE_USES": "type",
    "IMPORTS_SYMBOL": "imports",
    "EXPORTS": "exports",
    "REEXPORTS": "re-exports",
    "IMPLEMENTS": "implements",
    "EXTENDS": "extends",
    "EMBEDS": "embeds",
    "OVERRIDES": "overrides",
    "PASSES_AS_CALLBACK": "passes",
    "ASSIGNS_FUNCTION": "assigns",
    "RETURNS_FUNCTION": "returns",
    "CONFORMANCE": "conforms",
}
PLAIN = frozenset("_.,/-+=*$@()!?~^': ")
"""Characters a quoted Mermaid label shows as they are; any other that is not a letter or a digit
becomes an entity code (`#35;`), so no name can close the label, start a comment or a directive
(`%%`), a markdown string (backtick), HTML (`<`), or a statement (newline)."""
CLASSES = [
    "  classDef changed fill:#fff3bf,stroke:#e8590c,stroke-width:3px,color:#1f2328",
    "  classDef note fill:#f6f8fa,stroke:#8c959f,stroke-dasharray:4 3,color:#1f2328",
]
CAPTION = (
    "<sub>Arrows point from a symbol to what it uses (unlabeled: calls); changed symbols are highlighted; "
    "a dotted arrow skips a step not drawn. report.json's <code>graph</code> has every node and edge.</sub>"
)

Key = tuple[str, str, str]
"""(repository, base file path, qualified name): overloads and a symbol both changed and reached
are one node."""


@dataclass(frozen=True, slots=True)
class Node:
    qualified_name: str
    kind: str
    repository: str
    file_path: str
    """Where it is now for a changed symbol (head), else where the base graph has it."""
    start_line: int
    depth: int
    """0 for a changed symbol, else the fewest hops from one."""
    change: str = ""
    """The change when it is a changed symbol, else ""."""
    import_only: bool = False
    """A module that only imports or exports what it reaches: left out of the drawing, and so is
    what it alone leads to."""


@dataclass(frozen=True, slots=True)
class Edge:
    source: int
    """The node that uses…"""
    target: int
    """…this one."""
    via_kind: str
    via_confidence: str
    via_interface: str = ""
    inferred: bool = False
    """The walk's step could not be placed among the symbols one hop nearer: drawn to the changed
    symbol the walk started from."""


@dataclass(frozen=True, slots=True)
class ImpactGraph:
    nodes: tuple[Node, ...]
    """By depth (changed symbols first), this repository before others, then path and line."""
    edges: tuple[Edge, ...]


@dataclass(slots=True)
class _Draft:
    kind: str
    path: str
    line: int
    depth: int
    change: str = ""


def impact_graph(impact: Impact) -> ImpactGraph:
    """Every changed symbol and every symbol it reaches, each once, with the step that reached it."""
    drafts: dict[Key, _Draft] = {}
    steps: dict[tuple[Key, Key], tuple[Affected, bool]] = {}
    for s in impact.changed:
        key = (impact.repository, s.base_path or s.file_path, s.qualified_name)
        draft = drafts.setdefault(key, _Draft(s.kind, s.file_path, s.start_line, 0, s.change))
        draft.change, draft.depth, draft.path, draft.line = draft.change or s.change, 0, s.file_path, s.start_line
    for s in impact.changed:
        root = (impact.repository, s.base_path or s.file_path, s.qualified_name)
        nearer: dict[tuple[int, str], list[Affected]] = {}
        for a in s.affected:
            nearer.setdefault((a.depth, a.qualified_name), []).append(a)
        for a in s.affected:
            key = (a.repository, a.file_path, a.qualified_name)
            draft = drafts.setdefault(key, _Draft(a.kind, a.file_path, a.start_line, a.depth))
            draft.depth = min(draft.depth, a.depth)
            used, inferred = _used(a, root, nearer)
            if used != key:  # one node for overloads: their uses of each other are no edge
                steps.setdefault((key, used), (a, inferred))
    order = sorted(drafts, key=lambda k: (drafts[k].depth, k[0] != impact.repository, k[0], drafts[k].path,
                                          drafts[k].line, k[2]))  # fmt: skip
    index = {key: i for i, key in enumerate(order)}
    uses: dict[Key, list[str]] = {}
    for (source, _), (a, _) in steps.items():
        uses.setdefault(source, []).append(a.via_kind)
    nodes = tuple(
        Node(key[2], drafts[key].kind, key[0], drafts[key].path, drafts[key].line, drafts[key].depth,
             drafts[key].change, _import_only(drafts[key], uses.get(key, [])))
        for key in order
    )  # fmt: skip
    edges = sorted(
        (Edge(index[source], index[target], a.via_kind, a.via_confidence, a.via_interface, inferred)
         for (source, target), (a, inferred) in steps.items()),
        key=lambda e: (e.target, e.source),
    )  # fmt: skip
    return ImpactGraph(nodes, tuple(edges))


def _used(a: Affected, root: Key, nearer: dict[tuple[int, str], list[Affected]]) -> tuple[Key, bool]:
    """The node `a` was reached from: the changed symbol at depth 1, else the symbol one hop nearer
    that the walk names (a conformance step names the type; the member it stands for is the
    interface member's implementation, `via_interface`)."""
    if a.depth == 1:
        return root, False
    names = (a.via_interface, a.reached_from) if a.via_kind == "CONFORMANCE" else (a.reached_from,)
    for name in names:
        options = nearer.get((a.depth - 1, name), [])
        if options:
            best = min(options, key=lambda o: (o.repository != a.repository, o.file_path != a.file_path))
            return (best.repository, best.file_path, best.qualified_name), False
    return root, True


def _import_only(draft: _Draft, kinds: list[str]) -> bool:
    """A module whose every use of what the walk reached is an import or an export: what uses
    the module does not make it a user."""
    return not draft.change and draft.kind in MODULE_KINDS and bool(kinds) and all(k in IMPORT_KINDS for k in kinds)


def graph_json(impact: Impact) -> dict[str, Any]:
    """report.json's `graph`: every node and edge, uncapped (edges name nodes by their index)."""
    graph = impact_graph(impact)
    nodes: list[dict[str, Any]] = [
        {"qualified_name": n.qualified_name, "kind": n.kind, "repository": n.repository, "file_path": n.file_path,
         "start_line": n.start_line, "depth": n.depth, "change": n.change or None, "import_only": n.import_only}
        for n in graph.nodes
    ]  # fmt: skip
    edges: list[dict[str, Any]] = []
    for e in graph.edges:
        row: dict[str, Any] = {"source": e.source, "target": e.target, "via_kind": e.via_kind,
                               "via_confidence": e.via_confidence}  # fmt: skip
        if e.via_interface:
            row["via_interface"] = e.via_interface
        if e.inferred:
            row["inferred"] = True
        edges.append(row)
    return {"nodes": nodes, "edges": edges}


# -- Mermaid ---------------------------------------------------------------------------------------


def mermaid_markdown(impact: Impact, limit: int = MERMAID_NODES) -> list[str]:
    """The comment's graph as markdown lines (a fenced block and its caption); [] when nothing
    changed reaches anything."""
    flowchart = to_mermaid(impact, limit)
    if not flowchart:
        return []
    return ["```mermaid", *flowchart.splitlines(), "```", CAPTION, ""]


def to_mermaid(impact: Impact, limit: int = MERMAID_NODES) -> str:
    """A flowchart of at most `limit` symbols: every changed symbol drawn with what depends on it,
    the most depended-on first, grouped by file; import-only modules left out; "" when empty."""
    graph = impact_graph(impact)
    users: dict[int, list[int]] = {}
    for e in graph.edges:
        if not (graph.nodes[e.source].import_only or graph.nodes[e.target].import_only):
            users.setdefault(e.target, []).append(e.source)
    roots = [i for i, n in enumerate(graph.nodes) if n.change and i in users]
    if not roots:
        return ""
    connected = _reach(roots, users)
    kept = _select(graph, roots, users, limit)
    if not kept:
        return ""
    shown = set(kept)
    files: dict[tuple[str, str], list[int]] = {}
    for i in sorted(kept):
        files.setdefault((graph.nodes[i].repository, graph.nodes[i].file_path), []).append(i)
    titles, under = _file_titles(impact.repository, list(files))
    lines = ["flowchart RL"]
    for f, (where, members) in enumerate(files.items()):
        lines.append(f'  subgraph f{f}["{label(titles[where])}"]')
        lines += [f'    n{i}["{_node_label(graph.nodes[i])}"]' for i in members]
        lines.append("  end")
    for e in graph.edges:
        if e.source in shown and e.target in shown and e.source in users.get(e.target, ()):
            verb = VERB.get(e.via_kind, e.via_kind.lower().replace("_", " "))
            if e.via_interface and e.via_kind != "CONFORMANCE":  # a call dispatched through an interface
                verb = f"{verb} via {e.via_interface}".strip()
            arrow = "-.->" if e.inferred else "-->"
            lines.append(f'  n{e.source} {arrow}|"{label(verb)}"| n{e.target}' if verb else
                         f"  n{e.source} {arrow} n{e.target}")  # fmt: skip
    said = _left_out(graph, connected, shown)
    if under:
        said.append(f"paths under {under}/")
    if said:
        lines.append(f'  more["{label(" · ".join(said))}"]')
    lines += CLASSES
    lines.append(f"  class {','.join(f'n{i}' for i in sorted(kept) if graph.nodes[i].change)} changed")
    if said:
        lines.append("  class more note")
    return "\n".join(lines) + "\n"


def _left_out(graph: ImpactGraph, connected: set[int], shown: set[int]) -> list[str]:
    """What the drawing does not show, counted: symbols past the cap, import-only modules, and the
    symbols reached only through them."""
    said: list[str] = []
    hidden = len(connected - shown)
    if hidden:
        said.append(f"+{hidden} more symbol{_s(hidden)}")
    modules = sum(1 for n in graph.nodes if n.import_only)
    behind = sum(1 for i, n in enumerate(graph.nodes) if i not in connected and not n.change and not n.import_only)
    if modules:
        through = f" and {behind} symbol{_s(behind)} reached only through them" if behind else ""
        said.append(f"{modules} import-only module{_s(modules)}{through} left out")
    return said


def _s(n: int) -> str:
    return "" if n == 1 else "s"


def _select(graph: ImpactGraph, roots: list[int], users: dict[int, list[int]], limit: int) -> list[int]:
    """Changed symbols that something uses, each with its most used user (so none stands alone),
    largest impact first; then, while there is room, the most used symbol next to one drawn."""
    reach = {root: len(_reach([root], users)) for root in roots}
    kept: list[int] = []
    shown: set[int] = set()
    frontier: list[tuple[int, int, int]] = []

    def rank(i: int) -> tuple[int, int, int]:
        return -len(users.get(i, [])), graph.nodes[i].depth, i

    def keep(i: int) -> None:
        kept.append(i)
        shown.add(i)
        for user in users.get(i, []):
            if user not in shown:
                heapq.heappush(frontier, rank(user))

    for root in sorted(roots, key=lambda r: (-reach[r], r)):
        waiting = [u for u in users[root] if u not in shown]
        if root in shown or len(kept) + (2 if waiting else 1) > limit:
            continue
        keep(root)
        if waiting:
            keep(min(waiting, key=rank))
    while frontier and len(kept) < limit:
        i = heapq.heappop(frontier)[2]
        if i not in shown:
            keep(i)
    return kept


def _reach(starts: list[int], users: dict[int, list[int]]) -> set[int]:
    """The starts and every symbol that uses them, transitively."""
    seen = set(starts)
    queue = deque(starts)
    while queue:
        for user in users.get(queue.popleft(), []):
            if user not in seen:
                seen.add(user)
                queue.append(user)
    return seen


def _file_titles(repository: str, files: list[tuple[str, str]]) -> tuple[dict[tuple[str, str], str], str]:
    """Short paths, and the directory the changed repository's drawn files share, dropped from
    them (said once, in the note); another repository's files are prefixed with its name and keep
    their path."""
    titles = {(repo, path): path if repo == repository else f"{repo}: {path}" for repo, path in files}
    paths = [path for repo, path in files if repo == repository]
    common = posixpath.commonpath(paths) if paths else ""
    if common in paths:  # a single file: its directory
        common = posixpath.dirname(common)
    if common:
        titles.update({(repository, path): posixpath.relpath(path, common) for path in paths})
    return titles, common


def _node_label(node: Node) -> str:
    name = node.qualified_name
    if len(name) > LABEL_CHARS:
        name = "…" + name[-(LABEL_CHARS - 1) :]
    text = label(name)
    return f"{text}<br/>{label(CHANGE.get(node.change, node.change))}" if node.change else text


def label(text: str) -> str:
    """Text for inside a quoted Mermaid label: letters, digits and PLAIN as they are, everything
    else as an entity code; a control or format character (a newline, a bidi override) as U+FFFD."""
    out: list[str] = []
    for ch in text:
        category = unicodedata.category(ch)
        if category[0] == "C" or category in ("Zl", "Zp"):
            out.append("#65533;")
        elif category == "Zs":
            out.append(" ")
        elif ch in PLAIN or ch.isalnum():
            out.append(ch)
        else:
            out.append(f"#{ord(ch)};")
    return "".join(out)
