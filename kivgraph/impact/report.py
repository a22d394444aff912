"""An Impact spelled three ways: JSON for machines (versioned schema, docs/diff-impact.md; read back,
checked field by field, by `from_json`), text for terminals, and markdown for pull requests, within
GitHub's size limits and honest about the cut. Every name and path reaches markdown escaped for the
place it stands in (kivgraph/impact/markdown.py)."""

import posixpath
import re
from collections import Counter
from collections.abc import Callable
from typing import Any, cast

from kivgraph.errors import InvalidArgumentError
from kivgraph.impact import markdown as md
from kivgraph.impact.analysis import UNREAD, Affected, ChangedSymbol, Impact, Importer, Unavailable
from kivgraph.impact.mermaid import graph_json, mermaid_markdown
from kivgraph.model import Confidence, EdgeKind, SymbolKind

SCHEMA = "kivgraph.diff-impact/1"
COMMENT_LIMIT = 65_536
"""GitHub's limit on an issue comment body, in characters."""
SUMMARY_LIMIT = 1_048_576
"""GitHub's limit on a step summary, in bytes (the Action measures the UTF-8 bytes it writes)."""
AFFECTED_PER_SYMBOL = 50
IMPORTERS_LISTED = 20
PLACES_LISTED = 40
"""Places the folded completeness details list; the counts above them cover every one."""
LABEL = {
    "signature_changed": "signature changed",
    "modified": "body modified",
    "deleted": "deleted",
    "moved": "moved",
    "added": "added",
}

Link = Callable[[str, int, str], str]
"""(path, line, commit) → the URL of that line at that commit ("" for the working tree)."""


def verdict(impact: Impact) -> str:
    """NO_CHANGE, NO_IMPACT (changed, no declaration uses it), or IMPACT."""
    if not impact.changed:
        return "NO_CHANGE"
    return "IMPACT" if impact.affected else "NO_IMPACT"


def _summary(impact: Impact) -> dict[str, int]:
    affected = impact.affected
    return {
        "files_changed": impact.files_changed,
        "changed_symbols": len(impact.changed),
        "affected": len(affected),
        "direct": sum(1 for a in affected if a.depth == 1),
        "affected_files": len({(a.repository, a.file_path) for a in affected}),
        "imported_by_files": len(impact.imported_by),
    }


def to_json(impact: Impact) -> dict[str, Any]:
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
        "summary": _summary(impact),
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
        "graph": graph_json(impact),
        "seconds": round(impact.seconds, 3),
    }


def _symbol_json(s: ChangedSymbol) -> dict[str, Any]:
    out: dict[str, Any] = {
        "change": s.change,
        "qualified_name": s.qualified_name,
        "name": s.name,
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
    out["imported_by"] = [{"repository": i.repository, "file_path": i.file_path} for i in s.imported_by]
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
        "revision": a.revision,
        "depth": a.depth,
        "via_kind": a.via_kind,
        "via_confidence": a.via_confidence,
        "reached_from": a.reached_from,
    }
    if a.via_interface:
        out["via_interface"] = a.via_interface
    return out


# -- reading it back -------------------------------------------------------------------------------

COMMIT = re.compile(r"[0-9a-f]{40}([0-9a-f]{24})?")
"""A full SHA-1 or SHA-256 object name."""
REASON = re.compile(r"[A-Z][A-Z0-9_]*")
SYMBOL_KINDS = frozenset(k.value for k in SymbolKind)
VIA_KINDS = frozenset(k.value for k in EdgeKind) | {"CONFORMANCE"}
CONFIDENCES = frozenset(c.value for c in Confidence)
LANGUAGE = re.compile(r"[a-z][a-z0-9_+-]*")


class ReportError(InvalidArgumentError):
    """A report.json that is not what `to_json` writes; `field` says where (`changed[0].start_line`)."""

    def __init__(self, field: str, problem: str) -> None:
        self.field = field
        super().__init__(f"{field} {problem} (schema {SCHEMA}, as `kivgraph diff-impact --format json` writes it).")


class _Object:
    """One JSON object being read, so that every error names the field."""

    def __init__(self, value: object, where: str) -> None:
        if not isinstance(value, dict):
            raise ReportError(where or "the report", f"must be an object, not {_json_type(value)}")
        self.data = cast(dict[str, object], value)
        self.where = where

    def at(self, key: str) -> str:
        return f"{self.where}.{key}" if self.where else key

    def value(self, key: str, optional: bool = False) -> object:
        if key not in self.data and not optional:
            raise ReportError(self.at(key), "is missing")
        return self.data.get(key)

    def text(self, key: str, pattern: re.Pattern[str] | None = None, choices: frozenset[str] | None = None,
             optional: bool = False) -> str:  # fmt: skip
        found = self.value(key, optional)
        if found is None and optional:
            return ""
        if not isinstance(found, str):
            raise ReportError(self.at(key), f"must be a string, not {_json_type(found)}")
        if (pattern is not None and not pattern.fullmatch(found)) or (choices is not None and found not in choices):
            raise ReportError(self.at(key), f"is not a valid value: {found[:80]!r}")
        return found

    def number(self, key: str, minimum: int = 0, maximum: int = 2**31 - 1, optional: bool = False) -> int:
        found = self.value(key, optional)
        if found is None and optional:
            return 0
        if not isinstance(found, int) or isinstance(found, bool):
            raise ReportError(self.at(key), f"must be a whole number, not {_json_type(found)}")
        if not minimum <= found <= maximum:
            raise ReportError(self.at(key), f"must be between {minimum} and {maximum}, not {found}")
        return found

    def flag(self, key: str) -> bool:
        found = self.value(key)
        if not isinstance(found, bool):
            raise ReportError(self.at(key), f"must be true or false, not {_json_type(found)}")
        return found

    def items(self, key: str, optional: bool = False) -> list[object]:
        found = self.value(key, optional)
        if found is None and optional:
            return []
        if not isinstance(found, list):
            raise ReportError(self.at(key), f"must be an array, not {_json_type(found)}")
        return cast(list[object], found)

    def texts(self, key: str, optional: bool = False) -> list[str]:
        found = self.items(key, optional)
        for i, item in enumerate(found):
            if not isinstance(item, str):
                raise ReportError(f"{self.at(key)}[{i}]", f"must be a string, not {_json_type(item)}")
        return cast(list[str], found)

    def objects(self, key: str, optional: bool = False) -> list["_Object"]:
        return [_Object(item, f"{self.at(key)}[{i}]") for i, item in enumerate(self.items(key, optional))]


def _json_type(value: object) -> str:
    for kind, name in ((bool, "a boolean"), (int | float, "a number"), (str, "a string"), (list, "an array"),
                       (dict, "an object")):  # fmt: skip
        if isinstance(value, kind):
            return name
    return "null" if value is None else type(value).__name__


def from_json(data: object) -> Impact:
    """The Impact a report.json holds, every field checked against what `to_json` writes (types,
    vocabularies, commit names, and the counts against the rows): a ReportError names the first
    field that is not. Fields a newer writer adds are ignored."""
    report = _Object(data, "")
    if report.value("schema") != SCHEMA:
        raise ReportError("schema", f"must be {SCHEMA!r}, not {str(report.value('schema'))[:80]!r}")
    base, head = _Object(report.value("base"), "base"), _Object(report.value("head"), "head")
    head_commit = "" if head.value("commit") is None else head.text("commit", COMMIT)
    summary = _Object(report.value("summary"), "summary")
    impact = Impact(
        repository=report.text("repository"),
        base_commit=base.text("commit", COMMIT),
        head_commit=head_commit,
        generation_commit=base.text("generation_commit", COMMIT),
        depth=report.number("depth", 1, 5),
        changed=[_symbol(s) for s in report.objects("changed")],
        files_changed=summary.number("files_changed"),
        notes=report.texts("notes"),
        completeness=_completeness(report.value("completeness"), "completeness"),
        seconds=_seconds(report),
        consumers_searched=tuple(report.texts("consumers_searched")),
        workspace="" if report.value("workspace") is None else report.text("workspace"),
        unavailable=tuple(Unavailable(u.text("repository"), u.text("location"), u.text("code", REASON),
                                      u.text("reason")) for u in report.objects("unavailable_repositories")),
    )  # fmt: skip
    derived: list[tuple[_Object, str, object]] = [
        (base, "stale", impact.generation_commit != impact.base_commit),
        (head, "worktree", not impact.head_commit),
        (report, "verdict", verdict(impact)),
        *((summary, key, n) for key, n in _summary(impact).items()),
    ]
    for holder, key, expected in derived:
        found = holder.value(key)
        if type(found) is not type(expected) or found != expected:
            raise ReportError(holder.at(key), f"must be {expected!r} for the rows the report holds")
    consumers = [
        (c.text("repository"), [_affected(a) for a in c.objects("affected")]) for c in report.objects("consumers")
    ]
    if consumers != list(impact.consumers.items()):
        raise ReportError("consumers", "must list the other repositories' rows of changed[].affected")
    return impact


def _seconds(report: _Object) -> float:
    found = report.value("seconds")
    if not isinstance(found, int | float) or isinstance(found, bool) or not 0 <= found < 10**9:
        raise ReportError("seconds", f"must be a number of seconds, not {str(found)[:40]}")
    return float(found)


def _symbol(s: _Object) -> ChangedSymbol:
    change = s.text("change", choices=frozenset(LABEL))
    symbol = ChangedSymbol(
        change, s.text("qualified_name"), s.text("name"), s.text("kind", choices=SYMBOL_KINDS),
        s.text("language", LANGUAGE), s.text("file_path"), s.number("start_line"), s.number("end_line"),
        base_path=s.text("base_path", optional=True) or s.text("file_path"),
        signature_before=s.text("signature_before", optional=change != "signature_changed"),
        signature_after=s.text("signature_after", optional=change != "signature_changed"),
        in_base_graph=s.flag("in_base_graph"), affected=[_affected(a) for a in s.objects("affected")],
        imported_by=[Importer(i.text("repository"), i.text("file_path")) for i in s.objects("imported_by")],
        truncated=s.flag("truncated"),
        completeness=_completeness(s.value("completeness"), s.at("completeness")) if "completeness" in s.data else {},
    )  # fmt: skip
    if change in ("added", "deleted"):
        symbol.base_path = "" if change == "added" else symbol.file_path
    for key, n in (("direct", symbol.direct), ("transitive", len(symbol.affected))):
        if type(s.value(key)) is not int or s.value(key) != n:
            raise ReportError(s.at(key), f"must be {n} for the rows of {s.at('affected')}")
    return symbol


def _affected(a: _Object) -> Affected:
    return Affected(
        a.text("qualified_name"), a.text("kind", choices=SYMBOL_KINDS), a.text("repository"), a.text("file_path"),
        a.number("start_line"), a.number("end_line"), a.number("depth", 1, 5), a.text("via_kind", choices=VIA_KINDS),
        a.text("via_confidence", choices=CONFIDENCES), a.text("reached_from"), a.text("via_interface", optional=True),
        a.text("revision", choices=frozenset({"head", "base"})),
    )  # fmt: skip


def _completeness(value: object, where: str) -> dict[str, Any]:
    """A completeness verdict with only the fields the renderers read, each checked."""
    c = _Object(value, where)
    out: dict[str, Any] = {"verdict": c.text("verdict", choices=frozenset({"COMPLETE", "LOWER_BOUND"}))}
    if "blind_spots" in c.data:
        out["blind_spots"] = [_fields(s, ("reason",), ("file_path",), ("start_line",),
                                      ("repository", "requested_symbol", "requested_package", "detail"))
                              for s in c.objects("blind_spots")]  # fmt: skip
    if "invisible_scopes" in c.data:
        out["invisible_scopes"] = [_fields(s, ("reason",), ("path",), (), ("repository", "language", "detail"))
                                   for s in c.objects("invisible_scopes")]  # fmt: skip
        for i, scope in enumerate(out["invisible_scopes"]):
            if scope["reason"] == UNREAD and "repository" not in scope:
                raise ReportError(f"{c.at('invisible_scopes')}[{i}].repository", "is missing")
    for key in ("more_blind_spots", "more_invisible_scopes"):
        if key in c.data:
            out[key] = c.number(key)
    if "reasons" in c.data:
        reasons = _Object(c.value("reasons"), c.at("reasons"))
        out["reasons"] = {k: reasons.number(k) for k in reasons.data if REASON.fullmatch(k)}
        if len(out["reasons"]) != len(reasons.data):
            raise ReportError(c.at("reasons"), "must name reasons in capitals")
    if "fallback" in c.data:
        fallback = _Object(c.value("fallback"), c.at("fallback"))
        out["fallback"] = {k: fallback.text(k) if k == "pattern" else fallback.texts(k)
                           for k in ("pattern", "paths") if k in fallback.data}  # fmt: skip
    return out


def _fields(o: _Object, reasons: tuple[str, ...], texts: tuple[str, ...], numbers: tuple[str, ...],
            optional: tuple[str, ...]) -> dict[str, Any]:  # fmt: skip
    out: dict[str, Any] = {key: o.text(key, REASON) for key in reasons}
    out.update({key: o.text(key) for key in texts})
    out.update({key: o.number(key) for key in numbers})
    out.update({key: o.text(key) for key in optional if key in o.data})
    return out


# -- text ------------------------------------------------------------------------------------------


def to_text(impact: Impact, style: Callable[[str, str], str] = lambda text, _color: text) -> str:
    """For terminals; `style(text, color)` colours when the caller decided it may."""
    affected = impact.affected
    head = impact.head_commit[:12] if impact.head_commit else "the working tree"
    lines = [f"kivgraph diff-impact {impact.repository}: {impact.base_commit[:12]} → {head}"]
    lines += [style(f"  note: {note}", "yellow") for note in impact.notes]
    imported = len(impact.imported_by)
    summary = (
        f"{len(impact.changed)} changed symbol{_s(len(impact.changed))} in {impact.files_changed} "
        f"file{_s(impact.files_changed)} · {len(affected)} affected "
        f"({sum(1 for a in affected if a.depth == 1)} direct) · imported by {imported} file{_s(imported)} · "
        f"{impact.completeness['verdict']}"
    )
    colour = {"NO_CHANGE": "green", "NO_IMPACT": "green", "IMPACT": "red"}[verdict(impact)]
    lines.append(style(summary, colour))
    for s in impact.changed:
        where = f"{s.file_path}:{s.start_line}"
        counts = (f"direct {s.direct}, transitive {len(s.affected)}, imported by {len(s.imported_by)} "
                  f"file{_s(len(s.imported_by))}") if s.in_base_graph else "new" if (
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


def _unread(scope: dict[str, Any], quote: Callable[[str], str], say: Callable[[str], str] = str) -> str:
    """An unread repository and why, naming it once: most reasons already name its path or URL."""
    name, why = scope["repository"], scope.get("detail", "")
    return say(why) if name in why else f"{quote(name)}: {say(why)}"


# -- markdown ----------------------------------------------------------------------------------


def to_markdown(impact: Impact, link: Link | None = None, limit: int = COMMENT_LIMIT, marker: str = "") -> str:
    """The PR comment, for GitHub's width: the verdict and the numbers first; a table of changed
    symbols with their counts before their places (paths shortened by the directory they share);
    each signature change as a before/after diff; what each one affects, folded; consumers;
    completeness counted by reason and file, its places folded; the Mermaid graph. At most `limit`
    characters: details are cut first, then the graph, then the signature diffs, then table rows,
    each cut said. `link(path, line, commit)` links each place to the commit its line is in."""
    prefix = _shared_directory(impact)

    def where(path: str, line: int, commit: str) -> str:
        text = md.code(f"{_short(path, prefix)}:{line}")
        return md.link(text, link(path, line, commit)) if link else text

    def place(a: Affected) -> str:
        if a.repository != impact.repository:
            return md.code(f"{a.repository}:{a.file_path}:{a.start_line}")
        return where(a.file_path, a.start_line, impact.head_commit if a.revision == "head" else
                     impact.generation_commit)  # fmt: skip

    def changed_at(s: ChangedSymbol) -> str:
        return where(s.file_path, s.start_line, impact.base_commit if s.change == "deleted" else impact.head_commit)

    counts = _summary(impact)
    changed, affected, direct, imported = (counts["changed_symbols"], counts["affected"], counts["direct"],
                                           counts["imported_by_files"])  # fmt: skip
    state, bound = verdict(impact), impact.completeness["verdict"]
    head = md.code(impact.head_commit[:12]) if impact.head_commit else "the working tree"
    if state == "NO_CHANGE":
        headline = "No declaration changed (comments, formatting or files of no indexed language only)."
    elif state == "NO_IMPACT":
        headline = f"{changed} changed symbol{_s(changed)}; no declaration uses {'it' if changed == 1 else 'them'}."
    else:
        files = counts["affected_files"]
        headline = (f"{changed} changed symbol{_s(changed)} affect{'s' if changed == 1 else ''} **{affected}** "
                    f"declaration{_s(affected)} ({direct} direct) in {files} file{_s(files)}"
                    + (f" across {len(impact.consumers) + 1} repositories." if impact.consumers else "."))  # fmt: skip
    intro = [marker] if marker else []
    intro += [f"### kivgraph impact: {headline}", ""]
    if state != "NO_CHANGE":
        intro += [f"**{changed}** changed · **{direct}** direct · **{affected}** transitive · imported by "
                  f"**{imported}** file{_s(imported)} · completeness **{bound}**", ""]  # fmt: skip
    shortened = f" Paths are relative to {md.code(prefix)}." if prefix else ""
    intro.append(f"Base {md.code(impact.base_commit[:12])} → head {head}, depth {impact.depth}.{shortened}"
                 + ("" if state != "NO_CHANGE" else f" Completeness **{bound}**."))  # fmt: skip
    intro += [f"> {md.sentence(note)}" for note in impact.notes]
    intro.append("")
    rows = [
        f"| {s.direct if s.in_base_graph else '—'} | {len(s.affected) if s.in_base_graph else '—'} | "
        f"{len(s.imported_by) if s.in_base_graph else '—'} | {md.cell(md.code(s.qualified_name))} | "
        f"{LABEL[s.change]} | {md.cell(changed_at(s))} |"
        for s in impact.changed
    ]
    table_head = ["| direct | transitive | imported by | symbol | change | where |",
                  "| ---: | ---: | ---: | --- | --- | --- |"]  # fmt: skip
    signatures = [
        [f"{md.code(s.qualified_name)} — the signature before and after:", "",
         *md.fenced("diff", md.signature_diff(s.signature_before, s.signature_after)), ""]
        for s in impact.changed if s.change == "signature_changed"
    ]  # fmt: skip
    details = [_details(impact, s, place, prefix) for s in impact.changed if s.affected or s.imported_by]
    consumers = _consumers_markdown(impact)
    honesty = _completeness_markdown(impact, prefix)
    mermaid = mermaid_markdown(impact)
    footer = [f"<sub>kivgraph · {changed} changed, {affected} affected, imported by {imported} "
              f"file{_s(imported)} · {round(impact.seconds, 3):.1f}s</sub>"]  # fmt: skip

    def assemble(rows_shown: int, signatures_shown: int, details_shown: int, with_graph: bool) -> str:
        parts = list(intro)
        if impact.changed:
            parts += table_head + rows[:rows_shown]
            if rows_shown < len(rows):
                parts.append(f"| … and {len(rows) - rows_shown} more changed symbols | | | | | |")
            parts.append("")
        for block in signatures[:signatures_shown]:
            parts += block
        if signatures_shown < len(signatures):
            parts += [f"… and {len(signatures) - signatures_shown} more signature changes (the JSON report has "
                      "them all).", ""]  # fmt: skip
        for block in details[:details_shown]:
            parts += block
        if details_shown < len(details):
            parts += [f"… and {len(details) - details_shown} more symbols' details (the JSON report has them all).", ""]
        parts += consumers + honesty
        if with_graph and mermaid:
            parts += mermaid
        return "\n".join(parts + footer) + "\n"

    rows_shown, signatures_shown, details_shown, graph = len(rows), len(signatures), len(details), True
    text = assemble(rows_shown, signatures_shown, details_shown, graph)
    while len(text) > limit and details_shown > 0:
        details_shown -= 1
        text = assemble(rows_shown, signatures_shown, details_shown, graph)
    if len(text) > limit:
        graph = False
        text = assemble(rows_shown, signatures_shown, details_shown, graph)
    while len(text) > limit and signatures_shown > 0:
        signatures_shown -= 1
        text = assemble(rows_shown, signatures_shown, details_shown, graph)
    while len(text) > limit and rows_shown > 0:
        rows_shown = max(0, rows_shown - max(1, rows_shown // 10))
        text = assemble(rows_shown, signatures_shown, details_shown, graph)
    return text[:limit]


def _shared_directory(impact: Impact) -> str:
    """The directory every path of the repository the comment names lies in ("" for none), said
    once so that each place shows only the rest."""
    paths = [s.file_path for s in impact.changed]
    paths += [a.file_path for s in impact.changed for a in s.affected if a.repository == impact.repository]
    paths += [i.file_path for i in impact.imported_by if i.repository == impact.repository]
    directories = {posixpath.dirname(p) for p in paths}
    if not directories or "" in directories:
        return ""
    try:
        common = posixpath.commonpath(sorted(directories))
    except ValueError:  # absolute and relative paths mixed: only a forged report has them
        return ""
    return f"{common}/" if common and common != "/" else ""


def _short(path: str, prefix: str) -> str:
    return path[len(prefix) :] if prefix and path.startswith(prefix) else path


def _details(impact: Impact, s: ChangedSymbol, place: Callable[[Affected], str], prefix: str) -> list[str]:
    """What one changed symbol affects and which files import it, folded."""
    said = [f"{len(s.affected)} affected"] + ([f"imported by {len(s.imported_by)} file{_s(len(s.imported_by))}"]
                                              if s.imported_by else [])  # fmt: skip
    block = [f"<details><summary><code>{md.html_text(s.qualified_name)}</code> ({LABEL[s.change]}): "
             f"{', '.join(said)}</summary>", ""]  # fmt: skip
    for a in s.affected[:AFFECTED_PER_SYMBOL]:
        through = f", through {md.code(a.via_interface)}" if a.via_interface else ""
        block.append(f"- {md.code(a.qualified_name)} ({md.prose(a.kind)}) {place(a)} — {md.prose(a.via_kind)} "
                     f"from {md.code(a.reached_from)}, depth {a.depth}{through}")  # fmt: skip
    if len(s.affected) > AFFECTED_PER_SYMBOL:
        block.append(f"- … and {len(s.affected) - AFFECTED_PER_SYMBOL} more")
    if s.imported_by:
        named = [md.code(_short(i.file_path, prefix) if i.repository == impact.repository else
                         f"{i.repository}:{i.file_path}") for i in s.imported_by[:IMPORTERS_LISTED]]  # fmt: skip
        more = len(s.imported_by) - IMPORTERS_LISTED
        block += ["", "Imported (not used) by " if not s.affected else "Imported by "]
        block[-1] += ", ".join(named) + (f" and {more} more." if more > 0 else ".")
    return [*block, "", "</details>", ""]


def _consumers_markdown(impact: Impact) -> list[str]:
    if not impact.workspace:
        return ["**Other repositories:** no workspace is configured, so consumers elsewhere were not searched.", ""]
    searched = ", ".join(md.code(name) for name in impact.consumers_searched)
    unread = ", ".join(md.code(u.repository) for u in impact.unavailable)
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
        lines.append(f"- {md.code(name)}: {len(rows)} affected")
        for a in rows[:AFFECTED_PER_SYMBOL]:
            lines.append(f"  - {md.code(a.qualified_name)} ({md.prose(a.kind)}) "
                         f"{md.code(f'{a.file_path}:{a.start_line}')} — {md.prose(a.via_kind)} from "
                         f"{md.code(a.reached_from)}, {md.prose(a.via_confidence)}")  # fmt: skip
        if len(rows) > AFFECTED_PER_SYMBOL:
            lines.append(f"  - … and {len(rows) - AFFECTED_PER_SYMBOL} more")
    return [*lines, ""]


def _completeness_markdown(impact: Impact, prefix: str) -> list[str]:
    """COMPLETE in one line; LOWER_BOUND as counts by reason and by file, every place folded."""
    c = impact.completeness
    if c["verdict"] == "COMPLETE":
        return ["**Completeness:** COMPLETE — every use the index recorded is above; none could be missed.", ""]
    scopes: list[dict[str, Any]] = c.get("invisible_scopes", [])
    spots: list[dict[str, Any]] = c.get("blind_spots", [])
    reasons = Counter(str(s["reason"]) for s in [*scopes, *spots])
    files = Counter(str(s["file_path"]) for s in spots)
    total = len(scopes) + len(spots)
    by_reason = ", ".join(
        f"{n} {md.code(reason)}" for reason, n in sorted(reasons.items(), key=lambda r: (-r[1], r[0]))
    )
    lines = [f"**Completeness:** LOWER_BOUND — {total} place{_s(total)} could not be read, so there may be more "
             f"uses: {by_reason}.", ""]  # fmt: skip
    if files:
        top = sorted(files.items(), key=lambda f: (-f[1], f[0]))
        named = ", ".join(f"{md.code(_short(path, prefix))} ({n})" for path, n in top[:5])
        lines += [f"Unresolved uses by file: {named}" + (f" and {len(top) - 5} more files." if len(top) > 5 else "."),
                  ""]  # fmt: skip
    lines += [f"<details><summary>Every place ({total})</summary>", ""]
    for scope in scopes[:PLACES_LISTED]:
        if scope["reason"] == UNREAD:
            lines.append(f"- {md.code(UNREAD)} {_unread(scope, md.code, md.sentence)}")
        else:
            language, detail = md.prose(scope.get("language", "")), md.sentence(scope.get("detail", ""))
            lines.append(f"- {md.code(scope['reason'])} {md.code(scope.get('path', '.'))} ({language}): {detail}")
    for spot in spots[: max(0, PLACES_LISTED - len(scopes))]:
        at = f"{_short(spot['file_path'], prefix)}:{spot['start_line']}"
        symbol = f" {md.code(spot['requested_symbol'])}" if spot.get("requested_symbol") else ""
        lines.append(f"- {md.code(spot['reason'])} {md.code(at)}{symbol}")
    more = max(0, total - PLACES_LISTED) + c.get("more_invisible_scopes", 0) + c.get("more_blind_spots", 0)
    if more > 0:
        lines.append(f"- … and {more} more")
    return [*lines, "", "</details>", ""]
