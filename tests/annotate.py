"""Annotated-source snapshots: a fixture tree indexed for real, printed line by line with what the
index says about each line (declarations, edges, external references, unresolved records).

Reviewed as diffs: `KIVGRAPH_UPDATE_SNAPSHOTS=1 scripts/test.sh tests/test_snapshots.py` rewrites them.
"""

import shutil
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kivgraph.indexing import index_repository
from kivgraph.model import Generation, SymbolKind


def annotate(generation: Generation, root: Path) -> str:
    symbols = {s.key: s for s in generation.symbols}
    notes: dict[str, dict[int, list[str]]] = defaultdict(lambda: defaultdict(list))

    def name(key: str) -> str:
        s = symbols[key]
        return f"{s.file}:{s.qualified_name}"

    for s in generation.symbols:
        if s.kind is SymbolKind.MODULE:
            continue
        where = f"{s.start_line}-{s.end_line}" if s.end_line != s.start_line else f"{s.start_line}"
        flags = " exported" if s.exported else ""
        container = f" in {symbols[s.container].qualified_name}" if s.container else ""
        signature = f" :: {s.signature}" if s.signature else ""
        notes[s.file][s.name_line].append(f"def {s.qualified_name} [{s.kind}] {where}{flags}{container}{signature}")
    for e in generation.edges:
        notes[e.file][e.line].append(f"{e.kind} {symbols[e.source].qualified_name} → {name(e.target)} ({e.confidence})")
    for x in generation.external_references:
        notes[x.file][x.line].append(f"external {x.package} {x.symbol or '(package)'}")
    for u in generation.unresolved:
        target = " ".join(part for part in (u.requested_package, u.requested_symbol) if part)
        notes[u.file][u.line].append(f"unresolved {u.reason} {target}".rstrip())
    out: list[str] = []
    for f in sorted(generation.files, key=lambda f: f.path):
        out.append(f"=== {f.path} [{f.language}, {f.status}]")
        text = (root / f.path).read_bytes().decode("utf-8", errors="replace").splitlines()
        width = len(str(len(text)))
        for number, line in enumerate(text, 1):
            out.append(f"{number:>{width}} | {line}".rstrip())
            for note in sorted(notes[f.path].get(number, [])):
                out.append(f"{'':>{width}} |   ^ {note}")
        for note in sorted(notes[f.path].get(0, [])):
            out.append(f"{'':>{width}} | (whole file) {note}")
    return "\n".join(out) + "\n"


def index_fixture(case: Path, make_repo: Callable[..., Any]) -> tuple[Generation, Path]:
    repo = make_repo(name=case.name)
    shutil.copytree(case, repo.path, dirs_exist_ok=True)
    repo.commit(message=f"fixture {case.name}")
    return index_repository(str(repo.path)), repo.path
