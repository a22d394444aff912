"""An Impact spelled three ways: JSON for machines (versioned schema, docs/diff-impact.md), text for
terminals, and markdown for pull requests, within GitHub's size limits and honest about the cut."""

from collections.abc import Callable
from typing import Any

from kivgraph.impact.analysis import UNREAD, Affected, ChangedSymbol, Impact

SCHEMA = "kivgraph.diff-impact/1"
COMMENT_LIMIT = 65_536
"""GitHub's limit on an issue comment body, in characters."""
SUMMARY_LIMIT = 1_048_576
"""GitHub's limit on a step summary, in bytes (the Action measures the UTF-8 bytes it writes)."""
MERMAID_NODES = 30
AFFECTED_PER_SYMBOL = 50
LABEL = {
    "signature_changed": "signature changed",
    "modified": "body modified",
    "deleted": "deleted",
    "moved": "moved",
    "added": "added",
}


def verdict(impact: Impact) -> str:
    """NO_CHANGE, NO_IMPACT (changed, nothing depends on it), or IMPACT."""
    if not impact.changed:
        return "NO_CHANGE"
    return "IMPACT" if impact.affected else "NO_IMPACT"


def to_json(impact: Impact) -> dict[str, Any]:
    affected = impact.affected
    return {
        "schema": SCHEMA,
        "repository": impact.repository,
        "base": {
            "commit": impact.base_commit,
            "generation_commit": impact.generation_commit,
            "stale": impact.generation_commit != impact.base_commit,
        },  # fmt: skip
        "head": {"commit": impact.head_commit or None, "worktree": not impact.head_commit},
        "depth": impact.depth,
        "verdict": verdict(impact),
        "summary": {
            "files_changed": impact.files_changed,
            "changed_symbols": len(impact.changed),
            "affected": len(affected),
            "direct": sum(1 for a in affected if a.depth == 1),
            "affected_files": len({(a.repository, a.file_path) for a in affected}),
        },
        "notes": impact.notes,
        "changed": [_symbol_json(s) for s in impact.changed],
        "consumers": [
            {"repository": name, "affected": [_affected_json(a) for a in rows]}
            for name, rows in impact.consumers.items()
        ],
        "consumers_searched": list(impact.consumers_searched),
        "workspace": impact.workspace or None,
        "unavailable_repositories": [
            {"repository": u.repository, "location": u.location, "code": u.code, "reason": u.reason}
            for u in impact.unavailable
        ],
        "completeness": impact.completeness,
        "seconds": round(impact.seconds, 3),
    }


def _symbol_json(s: ChangedSymbol) -> dict[str, Any]:
    out: dict[str, Any] = {
        "change": s.change,
        "qualified_name": s.qualified_name,
        "kind": s.kind,
        "language": s.language,
        "file_path": s.file_path,
        "start_line": s.start_line,
        "end_line": s.end_line,
    }
    if s.base_path and s.base_path != s.file_path:
        out["base_path"] = s.base_path
    if s.change == "signature_changed":
        out["signature_before"], out["signature_after"] = s.signature_before, s.signature_after
    out.update(in_base_graph=s.in_base_graph, direct=s.direct, transitive=len(s.affected), truncated=s.truncated)
    out["affected"] = [_affected_json(a) for a in s.affected]
    if s.completeness:
        out["completeness"] = s.completeness
    return out


def _affected_json(a: Affected) -> dict[str, Any]:
    out: dict[str, Any] = {
        "qualified_name": a.qualified_name,
        "kind": a.kind,
        "repository": a.repository,
        "file_path": a.file_path,
        "start_line": a.start_line,
        "end_line": a.end_line,
        "depth": a.depth,
        "via_kind": a.via_kind,
        "via_confidence": a.via_confidence,
        "reached_from": a.reached_from,
    }
    if a.via_interface:
        out["via_interface"] = a.via_interface
    return out


# -- text ------------------------------------------------------------------------------------------


def to_text(impact: Impact, style: Callable[[str, str], str] = lambda text, _color: text) -> str:
    """For terminals; `style(text, color)` colours when the caller decided it may."""
    affected = impact.affected
    head = impact.head_commit[:12] if impact.head_commit else "the working tree"
    lines = [f"kivgraph diff-impact {impact.repository}: {impact.base_commit[:12]} → {head}"]
    lines += [style(f"  note: {note}", "yellow") for note in impact.notes]
    summary = (
        f"{len(impact.changed)} changed symbol{_s(len(impact.changed))} in {impact.files_changed} "
        f"file{_s(impact.files_changed)} · {len(affected)} affected "
        f"({sum(1 for a in affected if a.depth == 1)} direct) · {impact.completeness['verdict']}"
    )
    colour = {"NO_CHANGE": "green", "NO_IMPACT": "green", "IMPACT": "red"}[verdict(impact)]
    lines.append(style(summary, colour))
    for s in impact.changed:
        where = f"{s.file_path}:{s.start_line}"
        counts = f"direct {s.direct}, transitive {len(s.affected)}" if s.in_base_graph else "new" if (
            s.change == "added") else "not in the base graph"  # fmt: skip
        lines.append(f"  {LABEL[s.change]:<17} {s.qualified_name}  {where}  ({counts})")
        if s.change == "signature_changed":
            lines.append(style(f"      - {s.signature_before}", "red"))
            lines.append(style(f"      + {s.signature_after}", "green"))
        for a in s.affected[:AFFECTED_PER_SYMBOL]:
            through = f" via {a.via_interface}" if a.via_interface else ""
            place = f"{a.file_path}:{a.start_line}" if a.repository == impact.repository else (
                f"{a.repository}:{a.file_path}:{a.start_line}"
            )  # fmt: skip
            lines.append(f"      {'  ' * (a.depth - 1)}← {a.qualified_name}  {place}  "
                         f"{a.via_kind}{through}")  # fmt: skip
        if len(s.affected) > AFFECTED_PER_SYMBOL:
            lines.append(f"      … and {len(s.affected) - AFFECTED_PER_SYMBOL} more")
    for name, rows in impact.consumers.items():
        lines.append(style(f"  consumer {name}: {len(rows)} affected", "red"))
        lines += [f"      ← {a.qualified_name}  {a.file_path}:{a.start_line}  {a.via_kind}" for a in rows[:20]]
    if impact.completeness["verdict"] == "LOWER_BOUND":
        lines.append(style("  completeness: LOWER_BOUND — not everything could be seen:", "yellow"))
        for scope in impact.completeness.get("invisible_scopes", [])[:10]:
            if scope["reason"] == UNREAD:
                lines.append(f"    {UNREAD} {_unread(scope, lambda name: name)}")
            else:
                lines.append(f"    {scope['reason']} {scope.get('path', '')}: {scope.get('detail', '')}")
        for spot in impact.completeness.get("blind_spots", [])[:10]:
            lines.append(f"    {spot['reason']} {spot['file_path']}:{spot['start_line']} "
                         f"{spot.get('requested_symbol', '')}")  # fmt: skip
    return "\n".join(lines) + "\n"


def _s(n: int) -> str:
    return "" if n == 1 else "s"


def _unread(scope: dict[str, Any], quote: Callable[[str], str]) -> str:
    """An unread repository and why, naming it once: most reasons already name its path or URL."""
    name, why = scope["repository"], scope.get("detail", "")
    return why if name in why else f"{quote(name)}: {why}"


# -- markdown ----------------------------------------------------------------------------------


def to_markdown(impact: Impact, link: Callable[[str, int], str] | None = None, limit: int = COMMENT_LIMIT,
                marker: str = "") -> str:  # fmt: skip
    """The PR comment: verdict, table, details, consumers, completeness, Mermaid; at most `limit`
    characters, cutting details first, then the graph, then table rows — each cut said."""

    def where(path: str, line: int) -> str:
        text = f"{path}:{line}"
        return f"[`{text}`]({link(path, line)})" if link else f"`{text}`"

    affected = impact.affected
    direct = sum(1 for a in affected if a.depth == 1)
    head = f"`{impact.head_commit[:12]}`" if impact.head_commit else "the working tree"
    state = verdict(impact)
    if state == "NO_CHANGE":
        headline = "No declaration changed (comments, formatting or files of no indexed language only)."
    elif state == "NO_IMPACT":
        headline = (
            f"{len(impact.changed)} changed symbol{_s(len(impact.changed))}; nothing in the graph depends on them."
        )
    else:
        count = len(impact.changed)
        headline = (
            f"{count} changed symbol{_s(count)} affect{'s' if count == 1 else ''} **{len(affected)}** "
            f"symbol{_s(len(affected))} ({direct} direct) in {len({(a.repository, a.file_path) for a in affected})} "
            f"file{_s(len({(a.repository, a.file_path) for a in affected}))}"
            + (f" across {len(impact.consumers) + 1} repositories." if impact.consumers else ".")
        )
    bound = impact.completeness["verdict"]
    intro = [marker] if marker else []
    intro += [
        f"### kivgraph impact: {headline}",
        "",
        f"Base `{impact.base_commit[:12]}` → head {head}, depth {impact.depth}, completeness **{bound}**.",
    ]
    intro += [f"> {note}" for note in impact.notes]
    intro.append("")
    rows = [
        f"| {LABEL[s.change]} | `{s.qualified_name}` | {s.kind} | {where(s.file_path, s.start_line)} | "
        f"{s.direct if s.in_base_graph else '—'} | {len(s.affected) if s.in_base_graph else '—'} |"
        for s in impact.changed
    ]
    table_head = ["| change | symbol | kind | where | direct | transitive |", "| --- | --- | --- | --- | ---: | ---: |"]
    details: list[list[str]] = []
    for s in impact.changed:
        if not s.affected:
            continue
        block = [f"<details><summary><code>{s.qualified_name}</code> ({LABEL[s.change]}): {len(s.affected)} "
                 f"affected</summary>", ""]  # fmt: skip
        if s.change == "signature_changed":
            block += ["```diff", f"- {s.signature_before}", f"+ {s.signature_after}", "```", ""]
        for a in s.affected[:AFFECTED_PER_SYMBOL]:
            through = f", through `{a.via_interface}`" if a.via_interface else ""
            place = where(a.file_path, a.start_line) if a.repository == impact.repository else (
                f"`{a.repository}:{a.file_path}:{a.start_line}`"
            )  # fmt: skip
            block.append(f"- `{a.qualified_name}` ({a.kind}) {place} — "
                         f"{a.via_kind} from `{a.reached_from}`, depth {a.depth}{through}")  # fmt: skip
        if len(s.affected) > AFFECTED_PER_SYMBOL:
            block.append(f"- … and {len(s.affected) - AFFECTED_PER_SYMBOL} more")
        block += ["", "</details>", ""]
        details.append(block)
    consumers = _consumers_markdown(impact, where)
    honesty = _completeness_markdown(impact)
    mermaid = _mermaid(impact)
    footer = [f"<sub>kivgraph · {len(impact.changed)} changed, {len(affected)} affected · "
              f"{impact.seconds:.1f}s</sub>"]  # fmt: skip

    def assemble(rows_shown: int, details_shown: int, with_graph: bool) -> str:
        parts = list(intro)
        if impact.changed:
            parts += table_head + rows[:rows_shown]
            if rows_shown < len(rows):
                parts.append(f"| … and {len(rows) - rows_shown} more changed symbols | | | | | |")
            parts.append("")
        for block in details[:details_shown]:
            parts += block
        if details_shown < len(details):
            parts += [f"… and {len(details) - details_shown} more symbols' details (the JSON report has them all).", ""]
        parts += consumers + honesty
        if with_graph and mermaid:
            parts += mermaid
        return "\n".join(parts + footer) + "\n"

    shown_rows, shown_details, graph = len(rows), len(details), True
    text = assemble(shown_rows, shown_details, graph)
    while len(text) > limit and shown_details > 0:
        shown_details -= 1
        text = assemble(shown_rows, shown_details, graph)
    if len(text) > limit:
        graph = False
        text = assemble(shown_rows, shown_details, graph)
    while len(text) > limit and shown_rows > 0:
        shown_rows = max(0, shown_rows - max(1, shown_rows // 10))
        text = assemble(shown_rows, shown_details, graph)
    return text[:limit]


def _consumers_markdown(impact: Impact, where: Callable[[str, int], str]) -> list[str]:
    if not impact.workspace:
        return ["**Other repositories:** no workspace is configured, so consumers elsewhere were not searched.", ""]
    searched = ", ".join(f"`{name}`" for name in impact.consumers_searched)
    unread = ", ".join(f"`{u.repository}`" for u in impact.unavailable)
    not_read = ""
    if unread:
        not_read = f"; {unread} could not be read, so {'its' if len(impact.unavailable) == 1 else 'their'} uses " \
                   "are not counted"  # fmt: skip
    if not impact.consumers_searched:
        if not unread:
            return ["**Other repositories:** the workspace lists no other repository.", ""]
        return [f"**Other repositories:** none was searched{not_read}.", ""]
    if not impact.consumers:
        return [f"**Other repositories:** none of {searched} uses what changed{not_read}.", ""]
    lines = [f"**Other repositories** (searched {searched}{not_read}):", ""]
    for name, rows in impact.consumers.items():
        lines.append(f"- `{name}`: {len(rows)} affected")
        for a in rows[:AFFECTED_PER_SYMBOL]:
            lines.append(f"  - `{a.qualified_name}` ({a.kind}) `{a.file_path}:{a.start_line}` — {a.via_kind} "
                         f"from `{a.reached_from}`, {a.via_confidence}")  # fmt: skip
        if len(rows) > AFFECTED_PER_SYMBOL:
            lines.append(f"  - … and {len(rows) - AFFECTED_PER_SYMBOL} more")
    return [*lines, ""]


def _completeness_markdown(impact: Impact) -> list[str]:
    c = impact.completeness
    if c["verdict"] == "COMPLETE":
        return ["**Completeness:** COMPLETE — every use the index recorded is above; none could be missed.", ""]
    lines = ["**Completeness:** LOWER_BOUND — these places could not be read, so there may be more:", ""]
    for scope in c.get("invisible_scopes", [])[:20]:
        if scope["reason"] == UNREAD:
            lines.append(f"- {UNREAD} {_unread(scope, lambda name: f'`{name}`')}")
        else:
            lines.append(f"- {scope['reason']} `{scope.get('path', '.')}` ({scope.get('language', '')}): "
                         f"{scope.get('detail', '')}")  # fmt: skip
    for spot in c.get("blind_spots", [])[:20]:
        lines.append(f"- {spot['reason']} `{spot['file_path']}:{spot['start_line']}` "
                     f"{spot.get('requested_symbol', '')}")  # fmt: skip
    more = len(c.get("invisible_scopes", [])) + len(c.get("blind_spots", [])) - 40
    if more > 0:
        lines.append(f"- … and {more} more")
    return [*lines, ""]


def _mermaid(impact: Impact) -> list[str]:
    """Changed symbols and what they reach, capped at MERMAID_NODES nodes to stay readable."""
    labels: dict[str, str] = {}
    edges: list[str] = []

    def node(name: str, label: str) -> str | None:
        if name not in labels:
            if len(labels) >= MERMAID_NODES:
                return None
            labels[name] = label
        return f"n{list(labels).index(name)}"

    dropped = 0
    for s in impact.changed:
        if not s.affected:
            continue
        root = node(s.qualified_name, f"{_mermaid_text(s.qualified_name)} ({LABEL[s.change]})")
        for a in s.affected:
            source = node(a.reached_from, _mermaid_text(a.reached_from))
            target = node(a.qualified_name, _mermaid_text(a.qualified_name))
            if root is None or source is None or target is None:
                dropped += 1
                continue
            edges.append(f"  {target} -->|{a.via_kind}| {source}")
    if not edges:
        return []
    nodes = [f'  n{i}["{label}"]' for i, label in enumerate(labels.values())]
    lines = ["```mermaid", "graph LR", *nodes, *dict.fromkeys(edges), "```"]
    if dropped:
        lines.append(f"<sub>graph capped at {MERMAID_NODES} symbols; {dropped} more relations not drawn</sub>")
    return [*lines, ""]


def _mermaid_text(text: str) -> str:
    return text.replace('"', "'").replace("<", "‹").replace(">", "›")
