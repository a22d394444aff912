"""What a generation holds, counted from its columns: the body of `kivgraph show` and `index`.

Counts come straight from the decoded integer columns, so summarising a million edges does not
build a million row objects.
"""

from collections import Counter
from typing import Any

import click
import numpy as np

from kivgraph.model import Language
from kivgraph.store.codec import NONE, Columns, roles_of


def _counted(columns: Columns, table: str, column: str, vocabulary: str) -> dict[str, int]:
    names = columns.vocabularies[vocabulary]
    counts = np.bincount(columns.tables[table][column], minlength=len(names)).tolist()
    present = [(names[code], n) for code, n in enumerate(counts) if n]
    return dict(sorted(present, key=lambda item: (-item[1], item[0])))


def summarize(columns: Columns, size: int, location: str) -> dict[str, Any]:
    """A JSON-ready summary of one generation."""
    h = columns.header
    files = columns.tables["files"]
    statuses = _counted(columns, "files", "status", "file_status")
    reason_codes: list[int] = columns.tables["unresolved"]["reason"].tolist()
    unresolved_reasons = Counter(columns.strings[r] for r in reason_codes)
    languages = columns.vocabularies["language"]
    file_counts = np.bincount(files["language"], minlength=len(languages)).tolist()
    symbol_counts = np.bincount(columns.tables["symbols"]["language"], minlength=len(languages)).tolist()
    per_language = {
        languages[code]: {"files": file_counts[code], "symbols": symbol_counts[code]}
        for code in range(len(languages))
        if file_counts[code] or symbol_counts[code]
    }
    unresolved_files = set(columns.tables["unresolved"]["file"].tolist()) - {NONE}
    paths: list[int] = files["path"].tolist()
    languages_of: list[int] = files["language"].tolist()
    known = {name: Language(name) for name in languages if name in set(Language)}
    roles = Counter(roles_of(columns.strings, files["role"].tolist() if "role" in files else None, paths,
                             [known.get(languages[code]) for code in languages_of]))  # fmt: skip
    return {
        "location": location,
        "repository": h.repository,
        "remote_url": h.remote_url,
        "commit": h.commit,
        "tree": h.tree,
        "worktree": h.worktree,
        "created_at": h.created_at,
        "indexer_version": h.indexer_version,
        "analyzers": dict(h.analyzers),
        "size_bytes": size,
        "counts": {
            "files": columns.count("files"),
            "packages": columns.count("packages"),
            "symbols": columns.count("symbols"),
            "edges": columns.count("edges"),
            "external_references": columns.count("external_references"),
            "unresolved": columns.count("unresolved"),
            "invisible_scopes": columns.count("invisible_scopes"),
        },
        "languages": per_language,
        "file_status": statuses,
        "file_roles": {role.value: n for role, n in sorted(roles.items(), key=lambda item: (-item[1], item[0]))},
        "symbol_kinds": _counted(columns, "symbols", "kind", "symbol_kind"),
        "edge_kinds": _counted(columns, "edges", "kind", "edge_kind"),
        "confidence": _counted(columns, "edges", "confidence", "confidence"),
        "provenance": _counted(columns, "edges", "provenance", "provenance"),
        "unresolved_reasons": dict(sorted(unresolved_reasons.items(), key=lambda item: (-item[1], item[0]))),
        "files_with_unresolved": len(unresolved_files),
        "submodules": [{"path": m.path, "commit": m.commit, "url": m.url} for m in h.submodules],
    }


def _table(title: str, counts: dict[str, int], color: bool) -> list[str]:
    if not counts:
        return []
    width = max(len(k) for k in counts)
    lines = [click.style(title, bold=True) if color else title]
    lines += [f"  {name.ljust(width)}  {n:>9,}" for name, n in counts.items()]
    return lines


def render_text(summary: dict[str, Any], color: bool) -> str:
    c = summary["counts"]
    commit = summary["commit"][:12] or "(working tree)"
    head = f"{summary['repository']} at {commit}" + (
        " (working tree)" if summary["worktree"] and summary["commit"] else ""
    )
    lines = [
        click.style(head, bold=True) if color else head,
        f"  stored in    {summary['location']} ({summary['size_bytes']:,} bytes)",
        f"  indexed at   {summary['created_at']} by kivgraph {summary['indexer_version']}",
        f"  holds        {c['files']:,} files, {c['packages']:,} packages, {c['symbols']:,} symbols, "
        f"{c['edges']:,} edges, {c['external_references']:,} external references, "
        f"{c['unresolved']:,} unresolved, {c['invisible_scopes']:,} invisible scopes",
    ]
    if c["symbols"]:
        per_symbol = summary["size_bytes"] / max(c["symbols"] + c["edges"], 1)
        lines.append(f"  size         {per_symbol:.1f} bytes per symbol-or-edge")
    if summary["languages"]:
        lines.append(click.style("languages", bold=True) if color else "languages")
        lines += [
            f"  {lang.ljust(12)} {v['files']:>7,} files {v['symbols']:>9,} symbols"
            for lang, v in summary["languages"].items()
        ]
    for title, key in (
        ("files", "file_status"),
        ("file roles", "file_roles"),
        ("symbol kinds", "symbol_kinds"),
        ("edge kinds", "edge_kinds"),
        ("confidence", "confidence"),
        ("provenance", "provenance"),
        ("unresolved", "unresolved_reasons"),
    ):
        lines += _table(title, summary[key], color)
    if summary["submodules"]:
        lines.append(click.style("submodules (recorded, not indexed)", bold=True) if color else
                     "submodules (recorded, not indexed)")  # fmt: skip
        lines += [f"  {m['path']}  {m['commit'][:12]}  {m['url']}".rstrip() for m in summary["submodules"]]
    return "\n".join(lines)
