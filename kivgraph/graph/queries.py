"""The queries behind the twelve tools, implemented once: plain functions from a Graph and validated
arguments to a JSON-ready answer. The MCP server, `kivgraph query` and diff-impact all call these."""

import time
from collections import Counter, deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from kivgraph.errors import InvalidArgumentError, SymbolNotFoundError
from kivgraph.graph.answer import (
    Row,
    compact_page,
    completeness,
    coverage_of,
    envelope,
    file_entries,
    hoist,
    renamed,
    spell_by_file,
)
from kivgraph.graph.cursors import decode_cursor, encode_cursor
from kivgraph.graph.index import (
    CONFIDENCE_NAMES,
    CONFIDENCES,
    EDGE_KIND_NAMES,
    EDGE_KINDS,
    PROVENANCE_NAMES,
    REFERENCE_KINDS,
    SYMBOL_KINDS,
    TEST_ROLE,
    Graph,
    ints,
)
from kivgraph.graph.intent import IntentIndex
from kivgraph.graph.listing import listed_roles, not_listed, path_filter
from kivgraph.graph.load import refresh
from kivgraph.graph.select import MODULE, PACKAGE, check_repository, clean_path, resolve, resolve_all
from kivgraph.graph.source import SourceRequest, read_bodies, render_bodies
from kivgraph.model import (
    CALLABLE_KINDS,
    EXACT_CONFIDENCES,
    TYPE_KINDS,
    Confidence,
    EdgeKind,
    Language,
    SymbolKind,
)
from kivgraph.store.codec import NONE

if TYPE_CHECKING:
    from kivgraph.overlay import Edit

DEFAULT_EXCLUDED = (EdgeKind.EXPORTS.value, EdgeKind.REEXPORTS.value)
BLAST_KINDS_EXCLUDED = (SymbolKind.FIELD.value, SymbolKind.VARIABLE.value)
DISPATCH = frozenset({EDGE_KINDS.index(EdgeKind.IMPLEMENTS), EDGE_KINDS.index(EdgeKind.OVERRIDES)})
SIGNATURE_KINDS = frozenset({"function", "method", "class", "constructor", "interface", "trait", "struct"})
EXACT_CODES = frozenset(CONFIDENCES.index(c) for c in EXACT_CONFIDENCES)
CANDIDATE_CODE = CONFIDENCES.index(Confidence.CANDIDATE)
CONFORMANCE = "CONFORMANCE"
"""The kind of a use of a type that implements an interface member, said of that member: renaming or
re-signing it can make the type stop conforming there. Derived at query time from IMPLEMENTS edges
and never stored (a new name in a blob's vocabulary would be refused by older readers)."""
CONFORMANCE_CODE = len(EDGE_KINDS)
"""Its code beside the stored kinds' codes, in kind filters."""
QUERY_KINDS = {**{k.value: i for i, k in enumerate(EDGE_KINDS) if k in REFERENCE_KINDS}, CONFORMANCE: CONFORMANCE_CODE}
"""Every kind a reference or traversal row can carry, to its code."""
IMPLEMENTS_CODE = EDGE_KINDS.index(EdgeKind.IMPLEMENTS)
METHOD_OF_CODE = EDGE_KINDS.index(EdgeKind.METHOD_OF)
OVERRIDE_KINDS = frozenset(EDGE_KINDS.index(k) for k in (EdgeKind.IMPLEMENTS, EdgeKind.OVERRIDES, EdgeKind.EXTENDS))
TYPE_CODES = frozenset(SYMBOL_KINDS.index(k) for k in TYPE_KINDS)
NOT_MEMBER_CODES = TYPE_CODES | {SYMBOL_KINDS.index(k) for k in (SymbolKind.MODULE, SymbolKind.PACKAGE,
                                                                 SymbolKind.NAMESPACE)}  # fmt: skip
CONSTRUCTOR_CODE = SYMBOL_KINDS.index(SymbolKind.CONSTRUCTOR)
CONFORMANCE_SITES = frozenset(
    EDGE_KINDS.index(k)
    for k in (EdgeKind.CALLS_DIRECT, EdgeKind.REFERENCES, EdgeKind.TYPE_USES, EdgeKind.PASSES_AS_CALLBACK,
              EdgeKind.ASSIGNS_FUNCTION, EdgeKind.RETURNS_FUNCTION, EdgeKind.UNKNOWN)
)  # fmt: skip
"""Uses of a type (or of a value holding one) that can need it to conform: construction, a type, a
value. An import or an export cannot."""
SUBTYPE_KINDS = frozenset(EDGE_KINDS.index(k) for k in (EdgeKind.EXTENDS, EdgeKind.EMBEDS))
"""A subclass or an embedding struct inherits the implementing member: its uses are sites too."""
HOLDER_CODES = frozenset(SYMBOL_KINDS.index(k) for k in (SymbolKind.VARIABLE, SymbolKind.CONSTANT))
"""A variable or constant that a use is may hold an instance (`const s = new Scheduler()`): its uses
are uses of the type too. Fields are not followed: their uses are mostly member accesses."""
PRODUCER_CODES = frozenset(SYMBOL_KINDS.index(k) for k in CALLABLE_KINDS)
"""A callable that names the type on its first line (`func NewSquare() Square`) may return one: its
callers are uses of the type too."""
ALIAS_CODES = frozenset(SYMBOL_KINDS.index(k) for k in (SymbolKind.TYPE_ALIAS, SymbolKind.TYPE))
TYPE_USES_CODE = EDGE_KINDS.index(EdgeKind.TYPE_USES)
FIELD_CODES = frozenset(SYMBOL_KINDS.index(k) for k in (SymbolKind.FIELD, SymbolKind.PROPERTY))
"""Members that hold a value of a type: their type uses are the holding type's (reach through containment)."""
STRUCTURAL_LANGUAGES = frozenset({Language.GO.value, Language.TYPESCRIPT.value, Language.JAVASCRIPT.value})
"""Languages that check a type against an interface where it is used as one. Elsewhere (Rust, Dart)
conformance is declared once, so the implementing members are what breaks."""


class Session:
    """One loaded graph and what queries derive from it lazily (the intent index, member lists)."""

    def __init__(
        self,
        graph: Graph,
        problems: tuple[str, ...] = (),
        overlaid: "Mapping[str, Sequence[Edit]] | None" = None,
        vanished: Mapping[str, str] | None = None,
    ) -> None:
        self.graph = graph
        self.problems = problems
        """Sources that could not be loaded, for graph_status."""
        self.overlaid = dict(overlaid or {})
        """Per repository, the working-tree files laid over its generation (kivgraph/overlay.py)."""
        self.vanished = dict(vanished or {})
        """Qualified name → the overlaid file that declared it in the generation and no longer does."""

    @cached_property
    def intent(self) -> IntentIndex:
        g = self.graph
        return IntentIndex.build(g.names, g.qualified_names, [g.path_of(i) for i in range(g.size)], g.docs)

    @property
    def members(self) -> dict[int, list[int]]:
        return self.graph.members


# -- rows ------------------------------------------------------------------------------------------


def qualified_name(g: Graph, i: int) -> str:
    """The qualified name a row shows: `<module>` for a file's module symbol, in every language (its
    stored name is the dotted path, `src/app.ts` → `src.app`), so the row's triple is a selector."""
    return MODULE if i in g.module_files else g.qualified_names[i]


def symbol_row(g: Graph, i: int, detailed: bool = False) -> Row:
    row: Row = {
        "name": g.names[i],
        "qualified_name": qualified_name(g, i),
        "kind": g.kind_of(i),
        "repository": g.repository_name(i),
        "file_path": g.path_of(i),
        "start_line": int(g.start_line[i]),
        "end_line": int(g.end_line[i]),
        "language": g.language_of(i),
        "exported": bool(g.exported[i]),
        "signature": g.signatures[i],
        "stable_key": g.key(i),
    }
    if not detailed:
        row.pop("signature") if not g.signatures[i] else None
    return row


def edge_columns(g: Graph, e: int) -> Row:
    return {
        "edge_kind": EDGE_KIND_NAMES[int(g.edge_kind[e])],
        "confidence": CONFIDENCE_NAMES[int(g.edge_confidence[e])],
        "provenance": PROVENANCE_NAMES[int(g.edge_provenance[e])],
    }


def at(g: Graph, i: int) -> str:
    return f"{g.repository_name(i)}:{g.path_of(i)}:{int(g.start_line[i])}"


def paginate(
    g: Graph, rows: Sequence[Any], args: dict[str, Any], identity: dict[str, Any], sorting: str
) -> tuple[list[Any], str | None]:
    offset = decode_cursor(args["cursor"], g.snapshot_id, identity, sorting) if args.get("cursor") else 0
    limit: int = args["limit"]
    page = list(rows[offset : offset + limit])
    more = offset + limit < len(rows)
    return page, encode_cursor(g.snapshot_id, offset + limit, identity, sorting) if more else None


def truncated_guidance(returned: int, total: int, narrow: str) -> str:
    return f"showing {returned} of {total}; narrow with {narrow}, or pass the cursor for the next page"


def edge_kind_filter(values: list[str] | None, wildcard: bool) -> tuple[frozenset[int], list[str] | None, bool]:
    """(accepted kind codes, canonical list for the cursor identity, whether the default ran)."""
    reference = sorted(QUERY_KINDS)
    if values is None:
        if not wildcard:
            return frozenset(QUERY_KINDS.values()), None, False
        chosen = [k for k in reference if k not in DEFAULT_EXCLUDED]
        return frozenset(QUERY_KINDS[k] for k in chosen), None, True
    if wildcard and "*" in values:
        if values != ["*"]:
            raise InvalidArgumentError('edge_kinds must be "*" alone or a list of canonical kinds')
        return frozenset(QUERY_KINDS.values()), ["*"], False
    if not values:
        raise InvalidArgumentError("edge_kinds must contain non-empty canonical values")
    for value in values:
        if not value or value != value.strip():
            raise InvalidArgumentError("edge_kinds must contain non-empty canonical values")
        if value not in reference:
            raise InvalidArgumentError(f'edge kind "{value}" is unsupported for symbol references')
    canonical = sorted(set(values))
    return frozenset(QUERY_KINDS[k] for k in canonical), canonical, False


def confidence_filter(value: str | None) -> int | None:
    if value is None:
        return None
    try:
        return CONFIDENCES.index(Confidence(value))
    except ValueError:
        choices = ", ".join(c.value for c in Confidence)
        raise InvalidArgumentError(f'confidence "{value}" is unsupported, use one of {choices}') from None


def selector_identity(args: dict[str, Any]) -> dict[str, Any]:
    return {k: args[k] for k in ("stable_key", "qualified_name", "repository", "path", "name") if args.get(k)}


def derived_allowed(g: Graph, args: dict[str, Any]) -> bool:
    repo = args.get("repo")
    return bool(args.get("include_derived")) or (repo is not None and repo.startswith("rust:"))


def coverage_of_edges(g: Graph, edges: Sequence[int], unresolved_related: int = 0) -> Row:
    confidence = ints(g.edge_confidence[list(edges)]) if len(edges) else []
    exact = sum(1 for c in confidence if c in EXACT_CODES)
    candidate = sum(1 for c in confidence if c == CANDIDATE_CODE)
    return coverage_of(exact=exact, candidate=candidate, unresolved_related=unresolved_related)


# -- find_references -------------------------------------------------------------------------------


def member_level(g: Graph, i: int) -> bool:
    """A declaration that can implement or override another (a method, a field, a function), not a
    type or a module: those are named by heritage clauses, which are uses."""
    return int(g.kind[i]) not in NOT_MEMBER_CODES


def is_override(g: Graph, e: int) -> bool:
    """A member redefining or implementing another type's member: a declaration of its own, not a use
    (renaming the overridden member leaves it in place). A type's heritage clause names the type: a use."""
    return (
        int(g.edge_kind[e]) in OVERRIDE_KINDS
        and member_level(g, int(g.edge_source[e]))
        and member_level(g, int(g.edge_target[e]))
    )


def interface_family(g: Graph, interface: int) -> set[int]:
    """The interface, the interfaces that extend it and the aliases that name it, transitively:
    where a value must have the interface's members."""
    family = {interface}
    queue = deque([interface])
    while queue:
        t = queue.popleft()
        for e in ints(g.incoming(t)):
            source, relation = int(g.edge_source[e]), int(g.edge_kind[e])
            if source in family:
                continue
            extends = relation in SUBTYPE_KINDS and int(g.kind[source]) in TYPE_CODES
            if extends or (relation == TYPE_USES_CODE and int(g.kind[source]) in ALIAS_CODES):
                family.add(source)
                queue.append(source)
    return family


def meets(g: Graph, site: int, family: set[int]) -> bool:
    """Whether a site can use a value as the interface: it names the interface (`var s Shape = …`),
    or uses something declared with it (a parameter, a variable, a field typed with it)."""
    for e in ints(g.outgoing(site)):
        used = int(g.edge_target[e])
        if used in family:
            return True
        for x in ints(g.outgoing(used)):
            if int(g.edge_kind[x]) == TYPE_USES_CODE and int(g.edge_target[x]) in family:
                return True
    return False


def conformance_sites(g: Graph, member: int) -> list[tuple[int, int]]:
    """(edge, type) for each use of a type that implements the interface member `member` where the
    type can meet the interface, in a language that checks conformance there (construction or a
    conversion into a parameter, a variable or a return of the interface's type). The uses of a
    type are followed through its subtypes (they inherit the member), the variables a use is and the
    functions that name it on their first line (they may return one). A use is kept when `meets`
    says it can reach the interface. A heuristic in both directions, so CANDIDATE whatever the use's
    own confidence. Member accesses (`c.m()`) are edges to the member, not to the type, and a
    member's own signature (a Go receiver) is not a use."""
    interface = int(g.container[member])
    if interface == NONE or int(g.kind[interface]) not in TYPE_CODES:
        return []
    seen: set[int] = set()
    queue: deque[tuple[int, int]] = deque()  # (a type or what holds one, the type)
    for e in ints(g.incoming(member)):
        if int(g.edge_kind[e]) != IMPLEMENTS_CODE:
            continue
        implementation = int(g.edge_source[e])
        owner = int(g.container[implementation])
        if owner == NONE or owner in seen or int(g.kind[owner]) not in TYPE_CODES:
            continue
        if g.language_of(implementation) in STRUCTURAL_LANGUAGES:
            seen.add(owner)
            queue.append((owner, owner))
    uses: list[tuple[int, int]] = []
    while queue:
        held, kind = queue.popleft()
        targets = [held]
        if held == kind:
            members = [int(g.edge_source[x]) for x in ints(g.incoming(held)) if int(g.edge_kind[x]) == METHOD_OF_CODE]
            targets += [m for m in members if int(g.kind[m]) == CONSTRUCTOR_CODE]  # `new C()` names these
        for target in targets:
            for x in ints(g.incoming(target)):
                site, relation = int(g.edge_source[x]), int(g.edge_kind[x])
                if relation in SUBTYPE_KINDS and int(g.kind[site]) in TYPE_CODES:
                    if site not in seen:
                        seen.add(site)
                        queue.append((site, site))
                    continue
                if relation not in CONFORMANCE_SITES or site in (held, target):
                    continue
                first_line = int(g.edge_line[x]) == int(g.start_line[site])
                if int(g.container[site]) == held and first_line:
                    continue
                uses.append((x, kind))
                holds = int(g.kind[site]) in HOLDER_CODES or (int(g.kind[site]) in PRODUCER_CODES and first_line)
                if holds and site not in seen:
                    seen.add(site)
                    queue.append((site, kind))
    if not uses:
        return []
    family = interface_family(g, interface)
    verdicts: dict[int, bool] = {}
    found: list[tuple[int, int]] = []
    for x, kind in uses:
        site = int(g.edge_source[x])
        if site not in verdicts:
            verdicts[site] = meets(g, site, family)
        if verdicts[site]:
            found.append((x, kind))
    return found


REFERENCE_GROUPS = ("references", "overrides", "conformance")
"""How find_references files its rows, in page order: uses of the symbol; members that override or
implement it (or that it overrides); uses of an implementing type that may need it to conform."""


def find_references(s: Session, args: dict[str, Any]) -> Row:
    g = s.graph
    subject = resolve(g, args, allow_name=True)
    incoming = args["direction"] == "incoming"
    kinds, canonical, default_ran = edge_kind_filter(args.get("edge_kinds"), wildcard=True)
    confidence = confidence_filter(args.get("confidence"))
    repo_filter: str | None = args.get("repo")
    if repo_filter is not None:
        check_repository(g, repo_filter)
    allow_derived = derived_allowed(g, args)
    prefix = path_filter(args.get("path_prefix"))
    listed = listed_roles(args.get("roles"))

    def keep_end(other: int) -> bool:
        if repo_filter is not None and g.repository_name(other) != repo_filter:
            return False
        if args.get("language") and g.language_of(other) != args["language"]:
            return False
        if prefix and not g.path_of(other).startswith(prefix):
            return False
        return allow_derived or not g.is_derived(other)

    excluded = 0

    def keep(e: int, other: int) -> bool:
        nonlocal excluded
        if int(g.edge_kind[e]) not in kinds or (confidence is not None and int(g.edge_confidence[e]) != confidence):
            if default_ran and EDGE_KIND_NAMES[int(g.edge_kind[e])] in DEFAULT_EXCLUDED:
                excluded += 1
            return False
        return keep_end(other)

    grouped: dict[str, list[tuple[int, int, str]]] = {group: [] for group in REFERENCE_GROUPS}  # (edge, end, via)
    edges = g.incoming(subject) if incoming else g.outgoing(subject)
    for e in ints(edges):
        other = int(g.edge_source[e] if incoming else g.edge_target[e])
        if keep(e, other):
            grouped["overrides" if is_override(g, e) else "references"].append((e, other, ""))
    dispatch: list[str] = []
    if incoming and member_level(g, subject):
        # Sole implementation: callers through the interface method reach this one and only it. A
        # type's own IMPLEMENTS (`impl A for S`) is no dispatch: a use of the trait A is not a use of S.
        for e in ints(g.outgoing(subject)):
            if int(g.edge_kind[e]) not in DISPATCH:
                continue
            method = int(g.edge_target[e])
            implementations = [x for x in ints(g.incoming(method)) if int(g.edge_kind[x]) in DISPATCH]
            if len(implementations) != 1:
                continue
            through = g.qualified_names[method]
            dispatch.append(through)
            for x in ints(g.incoming(method)):
                other = int(g.edge_source[x])
                if int(g.edge_kind[x]) not in DISPATCH and keep(x, other):
                    grouped["references"].append((x, other, through))
    if incoming and CONFORMANCE_CODE in kinds and confidence in (None, CANDIDATE_CODE):
        for x, owner in conformance_sites(g, subject):
            other = int(g.edge_source[x])
            if keep_end(other):
                grouped["conformance"].append((x, other, g.qualified_names[owner]))
    found = [ref for group in REFERENCE_GROUPS for ref in one_row_per_user(g, group, grouped[group])]
    counts = Counter(ref.group for ref in found)
    shown = sorted((ref for ref in found if g.role_of(ref.other) in listed), key=lambda ref: ref.test_last(g))
    name = g.names[subject]
    spots = g.unresolved_naming(name)
    identity = {"tool": "find_references", **selector_identity(args), "qualified_name": g.qualified_names[subject],
                "direction": args["direction"], "repo": repo_filter, "language": args.get("language"),
                "edge_kinds": canonical, "confidence": args.get("confidence"), "path_prefix": prefix,
                "roles": sorted(listed)}  # fmt: skip
    limit_default = args["limit"]
    if args["view"] == "files" and args.get("limit_given") is None:
        args = {**args, "limit": max(limit_default, 500)}
    page, cursor = paginate(g, shown, args, identity, "references-v2")
    detailed = args["response_format"] == "detailed"
    rows: list[Row] = []
    paged: dict[str, list[Row]] = {group: [] for group in REFERENCE_GROUPS}
    for ref in page:
        row = {**symbol_row(g, ref.other, detailed), **edge_columns(g, ref.edge), "lines": ref.lines}
        if ref.group == "conformance":
            row.update(edge_kind=CONFORMANCE, confidence=Confidence.CANDIDATE.value)
        if ref.via:
            row["via"] = ref.via
        rows.append(row)
        paged[ref.group].append(row)
    languages = {g.language_of(subject)} | {g.language_of(ref.other) for ref in found}
    verdict = completeness(g, name, [int(g.repository[subject])], g.unresolved_naming(name), languages,
                           args["direction"])  # fmt: skip
    total = len(found)
    view = args["view"]
    unlisted = not_listed(g, (ref.other for ref in found if g.role_of(ref.other) not in listed), view != "compact")
    guidance = ""
    if total == 0:
        guidance = (
            ("nothing references this symbol; its edges are type-checked, so this is an absence, not a miss"
             if verdict["verdict"] == "COMPLETE" else
             "no reference was found, but the answer is a LOWER_BOUND: read completeness for what was not seen")
            + "; widen with find_cross_repo_consumers, or check graph_status if the tree moved"
            if incoming else "the symbol reaches nothing; ask with direction=incoming"
        )  # fmt: skip
    elif not shown:
        guidance = f"every row is {' or '.join(unlisted)} code, counted under not_listed: pass roles to list them"
    elif cursor is not None:
        guidance = truncated_guidance(len(rows), len(shown), "edge_kinds, confidence, repo, path_prefix or language")
    elif counts["references"] == 0:
        listed_apart = [f"{n} {word}{'s' if n != 1 else ''}" for n, word in ((counts["overrides"], "override"),
                        (counts["conformance"], "conformance site")) if n]  # fmt: skip
        guidance = (f"no use names this symbol; {' and '.join(listed_apart)} {'is' if total == 1 else 'are'} "
                    "listed apart, under their own keys")  # fmt: skip
    subject_row = symbol_row(g, subject, detailed)
    extras: Row = {}
    if counts["overrides"] or counts["conformance"]:
        extras["counts"] = {group: counts[group] for group in REFERENCE_GROUPS}
    if default_ran and (view == "full" or excluded):
        extras["edge_kinds_default_excluded"] = list(DEFAULT_EXCLUDED)
    if dispatch:
        extras["dispatch_through"] = dispatch
    if unlisted:
        extras["not_listed"] = unlisted
    apart = [group for group in REFERENCE_GROUPS[1:] if counts[group]]
    if view == "full":
        results: Row = {"subject": {k: subject_row[k] for k in ("stable_key", "name", "qualified_name", "kind",
                                                                "repository", "file_path", "start_line")},
                        "direction": args["direction"], "references": paged["references"],
                        **{group: paged[group] for group in apart}, **extras}  # fmt: skip
    else:
        asked = {args.get("name"), args.get("qualified_name")}
        named: Row = {"subject": at(g, subject)}
        if qualified_name(g, subject) not in asked:
            named["qn"] = qualified_name(g, subject)
        if not incoming:
            named["direction"] = args["direction"]
        header = hoist(rows, ["repository"])
        if view == "files":

            def file_counts(items: list[Row]) -> list[Row]:
                return file_entries(items, "count", header.get("repository"))

            results = {**named, **header, **{k: v for k, v in extras.items() if k != "dispatch_through"},
                       "files": file_counts(paged["references"]),
                       **{group: {"files": file_counts(paged[group])} for group in apart if paged[group]}}  # fmt: skip
        else:
            tail = ["kind", "edge_kind", "confidence", "provenance", "via"]

            def shape(items: list[Row]) -> Row:
                return compact_page(items, tail, tail, "files", spell_by_file(tail, header.get("repository")))

            results = {**named, **header, **shape(paged["references"]),
                       **{group: shape(paged[group]) for group in apart if paged[group]}, **extras}  # fmt: skip
    exact = sum(1 for ref in found if ref.group != "conformance" and int(g.edge_confidence[ref.edge]) in EXACT_CODES)
    candidate = sum(1 for ref in found
                    if ref.group == "conformance" or int(g.edge_confidence[ref.edge]) == CANDIDATE_CODE)  # fmt: skip
    coverage = coverage_of(exact=exact, candidate=candidate, unresolved_related=len(spots))
    return envelope(g, results, total=total, returned=len(rows), compact=view != "full", next_cursor=cursor,
                    coverage=coverage, completeness=verdict, guidance=guidance)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Reference:
    """One row of find_references: a user of the subject, by one relation, with every line it uses
    the subject on (`edge` is the first; the relation, confidence and provenance are all its edges')."""

    group: str
    other: int
    via: str
    edge: int
    lines: list[int]

    def test_last(self, g: Graph) -> bool:
        return int(g.role[self.other]) == TEST_ROLE


def one_row_per_user(g: Graph, group: str, refs: list[tuple[int, int, str]]) -> list[Reference]:
    """A user with several sites is one row carrying their lines, in order of first mention."""
    merged: dict[tuple[int, str, int, int, int], Reference] = {}
    for e, other, via in refs:
        key = (other, via, int(g.edge_kind[e]), int(g.edge_confidence[e]), int(g.edge_provenance[e]))
        found = merged.get(key)
        line = int(g.edge_line[e])
        if found is None:
            merged[key] = Reference(group, other, via, e, [line] if line else [])
        elif line and line not in found.lines:
            found.lines.append(line)
    for ref in merged.values():
        ref.lines.sort()
    return list(merged.values())


# -- traversals ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Visit:
    node: int
    depth: int
    edge: int
    came_from: int
    through: str
    """The interface method a dispatching caller reached this node through ("" when direct)."""
    conformance: bool = False
    """Reached as a use (`edge`) of a type (`came_from`) implementing the interface member `through`:
    its kind is CONFORMANCE and its confidence CANDIDATE, whatever the use's own."""


def visit_kind(g: Graph, v: Visit) -> str:
    return CONFORMANCE if v.conformance else EDGE_KIND_NAMES[int(g.edge_kind[v.edge])]


def visit_confidence(g: Graph, v: Visit) -> str:
    return Confidence.CANDIDATE.value if v.conformance else CONFIDENCE_NAMES[int(g.edge_confidence[v.edge])]


def walk(
    g: Graph, seeds: list[int], reverse: bool, depth: int, max_nodes: int, kinds: frozenset[int],
    confidence: int | None, cross_interfaces: bool,
) -> tuple[list[Visit], bool]:  # fmt: skip
    """Breadth-first over uses (containment never followed); the first discovering edge is kept."""
    seen = set(seeds)
    visits: list[Visit] = []
    queue: deque[tuple[int, int]] = deque((s, 0) for s in seeds)
    truncated = False

    def passes(e: int) -> bool:
        return int(g.edge_kind[e]) in kinds and (confidence is None or int(g.edge_confidence[e]) == confidence)

    conforms = CONFORMANCE_CODE in kinds and confidence in (None, CANDIDATE_CODE)
    while queue:
        node, level = queue.popleft()
        if level >= depth:
            continue
        # (edge, interface member crossed, the type whose use it is when a conformance site else NONE)
        steps = [(e, "", NONE) for e in ints(g.incoming(node) if reverse else g.outgoing(node)) if passes(e)]
        if not reverse and int(g.kind[node]) in TYPE_CODES:
            # A type uses what its fields' types name: the struct holding a `Set` depends on Set.
            for member in g.members.get(node, ()):
                if int(g.kind[member]) in FIELD_CODES:
                    steps += [(e, "", NONE) for e in ints(g.outgoing(member))
                              if int(g.edge_kind[e]) == TYPE_USES_CODE and passes(e)]  # fmt: skip
        if reverse and cross_interfaces and member_level(g, node):
            # A member's own dispatch only: a type implementing a trait is not used where the trait is.
            for e in ints(g.outgoing(node)):
                if int(g.edge_kind[e]) in DISPATCH:
                    method = int(g.edge_target[e])
                    through = g.qualified_names[method]
                    steps += [(x, through, NONE) for x in ints(g.incoming(method))
                              if int(g.edge_kind[x]) not in DISPATCH and passes(x)]  # fmt: skip
            if conforms:
                steps += [(x, g.qualified_names[node], owner) for x, owner in conformance_sites(g, node)]
        for e, through, owner in steps:
            other = int(g.edge_source[e] if reverse else g.edge_target[e])
            if other in seen:
                continue
            if len(seen) >= max_nodes:
                truncated = True
                break
            seen.add(other)
            if owner == NONE:
                visits.append(Visit(other, level + 1, e, node, through))
            else:
                visits.append(Visit(other, level + 1, e, owner, through, conformance=True))
            queue.append((other, level + 1))
            holder = holding_type(g, other, e) if reverse else NONE
            if holder != NONE and holder not in seen and len(seen) < max_nodes:
                seen.add(holder)
                visits.append(Visit(holder, level + 1, e, node, through))
                queue.append((holder, level + 1))
    return visits, truncated


def holding_type(g: Graph, field: int, e: int) -> int:
    """The type a field belongs to when `e` is the field's type use (a field's type is a type use of
    the type holding it, so a change reaches that type's users too); NONE otherwise."""
    if int(g.edge_kind[e]) != TYPE_USES_CODE or int(g.kind[field]) not in FIELD_CODES:
        return NONE
    holder = int(g.container[field])
    return holder if holder != NONE and int(g.kind[holder]) in TYPE_CODES else NONE


def reached_row(g: Graph, v: Visit, detailed: bool) -> Row:
    row = symbol_row(g, v.node, detailed)
    row.update(
        depth=v.depth,
        reached_from=qualified_name(g, v.came_from),
        via_kind=visit_kind(g, v),
        via_confidence=visit_confidence(g, v),
        via_provenance=PROVENANCE_NAMES[int(g.edge_provenance[v.edge])],
    )
    if v.through:
        row["via_interface"] = v.through
    return row


TRAVERSAL_TAIL = ["kind", "hop_depth", "reached_from", "via_kind", "via_confidence", "via_provenance", "via_interface"]


def traversal_page(g: Graph, rows: list[Row], view: str) -> Row:
    # Renamed before compact_page measures the two shapes, so the one it keeps is the smaller as served.
    rows = [renamed(row, "depth", "hop_depth") for row in rows]
    header = hoist(rows, ["repository"])
    shape = compact_page(
        rows,
        ["kind", "hop_depth", "reached_from", "via_kind", "via_confidence", "via_provenance", "via_interface"],
        ["kind", "hop_depth", "via_kind", "via_confidence", "via_provenance", "via_interface"],
        "files",
        spell_by_file(TRAVERSAL_TAIL, header.get("repository")),
        regroup=["reached_from"],
    )
    return {**header, **shape}


def listed_visits(g: Graph, kept: list[Visit], args: dict[str, Any]) -> tuple[list[Visit], Row]:
    """The visits a page lists (their roles asked for, non-test first) and the rest, counted."""
    listed = listed_roles(args.get("roles"))
    shown = sorted((v for v in kept if g.role_of(v.node) in listed), key=lambda v: int(g.role[v.node]) == TEST_ROLE)
    unlisted = not_listed(g, (v.node for v in kept if g.role_of(v.node) not in listed), args["view"] != "compact")
    return shown, unlisted


def traversal_answer(
    g: Graph, results: Row, kept: list[Visit], shown: int, returned: int, cursor: str | None, verdict: Row,
    unresolved_related: int, view: str,
) -> Row:  # fmt: skip
    """The envelope both walks share: guidance when the count misleads, coverage over every row."""
    guidance = ""
    if not kept:
        guidance = "the traversal reached nothing within its bounds; raise depth or call find_references"
    elif not shown:
        guidance = (
            f"every row is {' or '.join(results['not_listed'])} code, counted under not_listed: pass roles to list them"
        )
    elif cursor is not None:
        guidance = truncated_guidance(returned, shown, "depth, max_nodes, path_prefix, edge_kinds or confidence")
    coverage = coverage_of_edges(g, [v.edge for v in kept if not v.conformance], unresolved_related=unresolved_related)
    coverage["candidate"] += sum(1 for v in kept if v.conformance)
    return envelope(g, results, total=len(kept), returned=returned, compact=view != "full", next_cursor=cursor,
                    coverage=coverage, completeness=verdict, guidance=guidance)  # fmt: skip


def trace_dependencies(s: Session, args: dict[str, Any]) -> Row:
    g = s.graph
    root = resolve(g, args)
    kinds, canonical, _ = edge_kind_filter(args.get("edge_kinds"), wildcard=False)
    confidence = confidence_filter(args.get("confidence"))
    repo_filter = args.get("repo")
    if repo_filter is not None:
        check_repository(g, repo_filter)
    seeds = [root, *s.members.get(root, [])]
    visits, truncated = walk(g, seeds, False, args["depth"], args["max_nodes"], kinds, confidence, False)
    allow_derived = derived_allowed(g, args)
    prefix = path_filter(args.get("path_prefix"))
    kept = [v for v in visits
            if (repo_filter is None or g.repository_name(v.node) == repo_filter)
            and (not args.get("language") or g.language_of(v.node) == args["language"])
            and (not prefix or g.path_of(v.node).startswith(prefix))
            and (allow_derived or not g.is_derived(v.node))]  # fmt: skip
    shown, unlisted = listed_visits(g, kept, args)
    identity = {"tool": "trace_dependencies", **selector_identity(args), "depth": args["depth"],
                "max_nodes": args["max_nodes"], "repo": repo_filter, "language": args.get("language"),
                "edge_kinds": canonical, "confidence": args.get("confidence"), "path_prefix": prefix,
                "roles": args.get("roles")}  # fmt: skip
    page, cursor = paginate(g, shown, args, identity, "dependencies-v2")
    detailed = args["response_format"] == "detailed"
    rows = [reached_row(g, v, detailed) for v in page]
    name = g.names[root]
    own = {root, *seeds}
    made = g.unresolved_from(own)
    verdict = completeness(g, name, [int(g.repository[root])], made,
                           {g.language_of(root)} | {g.language_of(v.node) for v in kept}, "outgoing")  # fmt: skip
    failures = len(made)
    summary: Row = {"root_key": g.key(root), "root_repository": g.repository_name(root), "depth": args["depth"],
                    "max_nodes": args["max_nodes"], "reached": len(visits),
                    "deepest_depth": max((v.depth for v in visits), default=0)}  # fmt: skip
    if args["view"] == "full":
        results: Row = {**summary, "traversal_truncated": truncated, "nodes": rows}
    else:
        results = {**summary, **({"traversal_truncated": True} if truncated else {}), **traversal_page(g, rows, "")}
    if unlisted:
        results["not_listed"] = unlisted
    return traversal_answer(g, results, kept, len(shown), len(rows), cursor, verdict, failures, args["view"])


def blast_kinds(values: list[str] | None) -> tuple[frozenset[str] | None, list[str] | None]:
    """(kinds reported — None: all but the default exclusions —, canonical list for the answer)."""
    if values is None:
        return None, None
    if "*" in values:
        if values != ["*"]:
            raise InvalidArgumentError('kinds must be "*" or a list of kinds, not both')
        return frozenset(k.value for k in SymbolKind), ["*"]
    allowed = sorted(k.value for k in SymbolKind)
    chosen = sorted({v.strip() for v in values})
    for value in chosen:
        if value not in allowed:
            raise InvalidArgumentError(f'kind "{value}" is unsupported, use "*" or any of: {", ".join(allowed)}')
    if not chosen:
        raise InvalidArgumentError('kinds must be "*" or a non-empty list of kinds')
    return frozenset(chosen), chosen


def get_blast_radius(s: Session, args: dict[str, Any]) -> Row:
    g = s.graph
    root = resolve(g, args)
    kinds, canonical, _ = edge_kind_filter(args.get("edge_kinds"), wildcard=False)
    confidence = confidence_filter(args.get("confidence"))
    selected, kinds_list = blast_kinds(args.get("kinds"))
    visits, truncated = walk(g, [root], True, args["depth"], args["max_nodes"], kinds, confidence, True)
    allow_derived = bool(args.get("include_derived"))

    def reported(v: Visit) -> bool:
        kind = g.kind_of(v.node)
        wanted = kind not in BLAST_KINDS_EXCLUDED if selected is None else kind in selected
        return wanted and (allow_derived or not g.is_derived(v.node))

    prefix = path_filter(args.get("path_prefix"))
    kept = [v for v in visits if reported(v) and (not prefix or g.path_of(v.node).startswith(prefix))]
    shown, unlisted = listed_visits(g, kept, args)
    identity = {"tool": "get_blast_radius", **selector_identity(args), "depth": args["depth"],
                "max_nodes": args["max_nodes"], "edge_kinds": canonical, "confidence": args.get("confidence"),
                "kinds": kinds_list, "path_prefix": prefix, "roles": args.get("roles")}  # fmt: skip
    page, cursor = paginate(g, shown, args, identity, "blast-radius-v2")
    detailed = args["response_format"] == "detailed"
    rows = [reached_row(g, v, detailed) for v in page]
    name = g.names[root]
    verdict = completeness(g, name, [int(g.repository[root])], g.unresolved_naming(name),
                           {g.language_of(root)} | {g.language_of(v.node) for v in kept}, "incoming")  # fmt: skip
    spots = verdict.get("more_blind_spots", 0) + len(verdict.get("blind_spots", []))
    by_depth = Counter(v.depth for v in kept)
    by_kind = Counter(visit_kind(g, v) for v in kept)
    by_repository = Counter(g.repository_name(v.node) for v in kept)
    by_package: Counter[tuple[str, str]] = Counter()
    for v in kept:
        package = g.package_of(v.node)
        by_package[(package.label if package else "", g.repository_name(v.node))] += 1
    crossing = sum(1 for v in kept if v.through)
    summary: Row = {"depth": args["depth"], "max_nodes": args["max_nodes"]}
    if kinds_list is None:
        summary["kinds_default_excluded"] = list(BLAST_KINDS_EXCLUDED)
    else:
        summary["kinds"] = kinds_list
    summary.update(affected=len(kept), deepest_depth=max((v.depth for v in visits), default=0))
    if crossing:
        summary["through_interfaces"] = crossing
    if args["view"] == "full":
        results: Row = {"root_key": g.key(root), "root_repository": g.repository_name(root), **summary,
                        "traversal_truncated": truncated, "symbols": rows,
                        "by_repository": [{"key": k, "count": n} for k, n in sorted(by_repository.items())],
                        "by_depth": [{"depth": k, "count": n} for k, n in sorted(by_depth.items())],
                        "by_kind": [{"key": k, "count": n} for k, n in sorted(by_kind.items())],
                        "by_package": [{"package_name": p, "repository": r, "count": n}
                                       for (p, r), n in sorted(by_package.items())]}  # fmt: skip
    else:
        page_shape = traversal_page(g, rows, "")
        hoisted = page_shape.get("repository")
        results = {"root": at(g, root), **summary, **({"traversal_truncated": True} if truncated else {})}
        if by_depth:
            results["by_depth"] = {str(k): n for k, n in sorted(by_depth.items())}
        if by_kind:
            results["by_kind"] = dict(sorted(by_kind.items()))
        if len(by_repository) > 1:
            results["by_repository"] = dict(sorted(by_repository.items()))
        if by_package:
            results["by_package"] = [{"package": p, **({"repository": r} if r != hoisted else {}), "count": n}
                                     for (p, r), n in sorted(by_package.items())]  # fmt: skip
        results.update(page_shape)
    if unlisted:
        results["not_listed"] = unlisted
    return traversal_answer(g, results, kept, len(shown), len(rows), cursor, verdict, spots, args["view"])


# -- consumers in other repositories -------------------------------------------------------------


def find_cross_repo_consumers(s: Session, args: dict[str, Any]) -> Row:
    """Uses of a symbol from the other loaded repositories: edges linked by package identity
    (graph/link.py), package-level dependencies on its package, and the references that named it
    but could not be bound (twin providers, a provider that no longer declares it)."""
    g = s.graph
    subject = resolve(g, args)
    home = int(g.repository[subject])
    repo_filter = args.get("repo")
    if repo_filter is not None:
        check_repository(g, repo_filter)
    name = g.names[subject]
    package = g.package_of(subject)
    consumers: list[Row] = []
    edges: list[int] = []
    users = [(e, other, "") for e in ints(g.incoming(subject))
             if int(g.repository[other := int(g.edge_source[e])]) != home
             and EDGE_KINDS[int(g.edge_kind[e])] in REFERENCE_KINDS]  # fmt: skip
    for ref in one_row_per_user(g, "references", users):
        category = "exact_symbol" if int(g.edge_confidence[ref.edge]) in EXACT_CODES else "candidate"
        consumers.append({"category": category, **symbol_row(g, ref.other), **edge_columns(g, ref.edge),
                          "lines": ref.lines})  # fmt: skip
        edges.append(ref.edge)
    package_id = int(g.package[subject])
    package_level = 0
    if package is not None:
        seen: set[tuple[int, str]] = set()
        for dependency in g.dependencies_on(package_id):
            if dependency.consumer_repository == home:
                continue
            if (dependency.consumer_repository, dependency.file) in seen:
                continue
            seen.add((dependency.consumer_repository, dependency.file))
            consumer_package = g.package_of(dependency.source)
            consumers.append({"category": "package", "repository": g.repository_name(dependency.source),
                              "package_name": consumer_package.label if consumer_package else "",
                              "file_path": dependency.file, "start_line": dependency.line,
                              "end_line": dependency.line, "language": g.language_of(dependency.source),
                              "confidence": Confidence.EXACT_PACKAGE_MAPPED.value,
                              "provenance": "MANIFEST", "requested_package": package.label})  # fmt: skip
            package_level += 1
    unresolved = 0
    for i in g.unresolved_naming(name):
        u = g.unresolved[i]
        if u.repository == home or u.source == NONE:
            continue
        if (
            package is not None
            and u.requested_package not in (package.name, package.label, package.id)
            and not (u.requested_symbol.startswith(package.label + "."))
        ):
            continue
        consumers.append({"category": "unresolved", "repository": g.repositories[u.repository].name,
                          "file_path": u.file, "start_line": u.line, "end_line": u.line,
                          "qualified_name": qualified_name(g, u.source), "language": u.language,
                          "confidence": Confidence.UNRESOLVED.value, "requested_package": u.requested_package,
                          "requested_symbol": u.requested_symbol, "reason": u.reason,
                          "detail": u.detail})  # fmt: skip
        unresolved += 1
    consumers = [c for c in consumers
                 if (repo_filter is None or c["repository"] == repo_filter)
                 and (not args.get("language") or c.get("language") == args["language"])]  # fmt: skip
    rank = {"exact_symbol": 0, "package": 1, "candidate": 2, "unresolved": 3}
    consumers.sort(key=lambda c: (rank[c["category"]], c["repository"], c["file_path"], c["start_line"]))
    identity = {"tool": "find_cross_repo_consumers", **selector_identity(args), "repo": repo_filter,
                "language": args.get("language")}  # fmt: skip
    page, cursor = paginate(g, consumers, args, identity, "consumers-v1")
    verdict = completeness(g, name, None, g.unresolved_naming(name))
    subject_info: Row = {"qualified_name": qualified_name(g, subject), "repository": g.repository_name(subject),
                         "package_name": package.label if package else "", "file_path": g.path_of(subject),
                         "start_line": int(g.start_line[subject]), "end_line": int(g.end_line[subject])}  # fmt: skip
    if args["view"] == "full":
        results: Row = {"subject": subject_info, "consumers": page}
    else:
        compact_subject: Row = {"qualified_name": subject_info["qualified_name"], "at": at(g, subject),
                                "pkg": subject_info["package_name"]}  # fmt: skip

        def spell(rows: Sequence[Row], fixed: frozenset[str]) -> list[Any]:
            out: list[Any] = []
            for row in rows:
                item: Row = {"repo": row["repository"], "at": f"{row['file_path']}:{row['start_line']}"}
                if row.get("package_name"):
                    item["pkg"] = row["package_name"]
                for column in ("category", "qualified_name", "kind", "lines", "edge_kind", "confidence",
                               "provenance", "requested_package", "requested_symbol", "reason", "detail"):  # fmt: skip
                    if column not in fixed and row.get(column):
                        item[column] = row[column]
                out.append(item)
            return out

        results = {"subject": compact_subject, **compact_page(page, ["category", "edge_kind", "confidence",
                   "provenance", "reason"], ["category", "edge_kind", "confidence", "provenance", "reason"],
                   "consumers", spell)}  # fmt: skip
    guidance = ""
    if not consumers:
        guidance = ("no repository in the graph consumes this symbol; check graph_status if a consumer is "
                    "registered but not indexed, and find_references for uses inside its own repository")  # fmt: skip
    elif cursor is not None:
        guidance = truncated_guidance(len(page), len(consumers), "repo or language")
    coverage = coverage_of_edges(g, edges, unresolved_related=unresolved)
    coverage["package_level"] = package_level
    return envelope(g, results, total=len(consumers), returned=len(page), compact=args["view"] != "full",
                    next_cursor=cursor, coverage=coverage, completeness=verdict, guidance=guidance)  # fmt: skip


# -- declarations ----------------------------------------------------------------------------------


def find_symbol(s: Session, args: dict[str, Any]) -> Row:
    g = s.graph
    name: str = args["name"]
    if not name or name != name.strip():
        raise InvalidArgumentError("name must be a non-empty value without surrounding whitespace")
    mode = args["mode"]
    if mode == "exact":
        found = list(g.by_name.get(name, []))
    elif mode == "qualified_exact":
        found = sorted(g.module_files) if name == MODULE else g.by_qualified_spelling(name)
    elif mode == "prefix":
        found = [i for i, n in enumerate(g.names) if n.startswith(name)]
    else:
        found = [i for i, n in enumerate(g.names) if name in n]
    repo_filter = args.get("repo")
    if repo_filter is not None:
        r = check_repository(g, repo_filter)
        found = [i for i in found if int(g.repository[i]) == r]
    if args.get("kind"):
        found = [i for i in found if g.kind_of(i) == args["kind"]]
    if args.get("path_prefix"):
        prefix = clean_path(args["path_prefix"])
        found = [i for i in found if g.path_of(i).startswith(prefix)]
    if not derived_allowed(g, args):
        found = [i for i in found if not g.is_derived(i)]
    if args.get("roles") is not None:
        roles = listed_roles(args["roles"])
        found = [i for i in found if g.role_of(i) in roles]
    found.sort(key=lambda i: int(g.role[i]) == TEST_ROLE)  # tests' declarations last
    identity = {"tool": "find_symbol", "name": name, "mode": mode, "kind": args.get("kind"), "repo": repo_filter,
                "path_prefix": args.get("path_prefix"), "roles": args.get("roles")}  # fmt: skip
    page, cursor = paginate(g, found, args, identity, "tests-last-v1")
    detailed = args["response_format"] == "detailed"
    rows = [symbol_row(g, i, detailed) for i in page]
    unresolved = len(g.unresolved_naming(name))
    repos = [check_repository(g, repo_filter)] if repo_filter is not None else None
    verdict = completeness(g, name, repos, (), {r["language"] for r in rows})
    if args["view"] == "full":
        results: Row = {"symbols": rows}
    else:

        def spell(items: Sequence[Row], fixed: frozenset[str]) -> list[Any]:
            out: list[Any] = []
            for row in items:
                entry: Row = {"at": (f"{row['file_path']}:{row['start_line']}" if "repository" in fixed
                                     else f"{row['repository']}:{row['file_path']}:{row['start_line']}")}  # fmt: skip
                if row["end_line"] != row["start_line"]:
                    entry["end"] = row["end_line"]
                if row["qualified_name"] != row["name"]:
                    entry["qn"] = row["qualified_name"]
                # The name is left out only when the header states it or the printed qn ends with it.
                derivable = "qn" in entry and entry["qn"].endswith(tuple(sep + row["name"] for sep in ".:#/"))
                if "name" not in fixed and not derivable:
                    entry["name"] = row["name"]
                for column in ("kind", "exported"):
                    if column not in fixed:
                        entry[column] = row[column]
                if row.get("signature") and row["kind"] in SIGNATURE_KINDS:
                    entry["sig"] = row["signature"]
                if detailed:
                    entry["stable_key"] = row["stable_key"]
                out.append(entry)
            return out

        # One shape in both views: the rows under `symbols` (or `groups`), an empty page included.
        results = compact_page(rows, ["name", "kind", "repository", "exported"], ["kind", "exported"], "symbols",
                               spell) if rows else {"symbols": []}  # fmt: skip
    return envelope(g, results, total=len(found), returned=len(rows), compact=args["view"] != "full",
                    next_cursor=cursor, coverage=coverage_of(unresolved_related=unresolved),
                    completeness=verdict)  # fmt: skip


CONCISE_SYMBOL_DROPS = frozenset({"package_id", "package_root"})


def get_symbol(s: Session, args: dict[str, Any]) -> Row:
    g = s.graph
    if args.get("qualified_name") == PACKAGE:
        return package_answer(g, resolve_all(g, args))
    i = resolve(g, args)
    loaded = g.repositories[int(g.repository[i])]
    package = g.package_of(i)
    row: Row = {
        "stable_key": g.key(i),
        "repository": loaded.name,
        "repository_path": loaded.root,
        "package_name": package.label if package else "",
        "package_id": package.id if package else "",
        "package_root": package.root if package else "",
        "file_path": g.path_of(i),
        "name": g.names[i],
        "qualified_name": qualified_name(g, i),
        "kind": g.kind_of(i),
        "language": g.language_of(i),
        "signature": g.signatures[i],
        "exported": bool(g.exported[i]),
        "start_line": int(g.start_line[i]),
        "end_line": int(g.end_line[i]),
    }
    parent = int(g.container[i])
    if parent != NONE:
        row["container"] = qualified_name(g, parent)
    if g.docs[i]:
        row["doc"] = g.docs[i]
    detailed = args["response_format"] == "detailed"
    if not detailed:  # the package id and root are the detailed answer's
        row = {k: v for k, v in row.items() if k not in CONCISE_SYMBOL_DROPS and (k != "repository_path" or v)}
    return envelope(g, row, total=1, returned=1, compact=not detailed)


def module_entry(g: Graph, i: int) -> Row:
    return {"file_path": g.path_of(i), "qualified_name": MODULE, "end_line": int(g.end_line[i]), "stable_key": g.key(i)}


def package_answer(g: Graph, modules: list[int]) -> Row:
    """get_symbol of a `<package>`: the Go package and the module symbol of each of its files."""
    first = modules[0]
    loaded = g.repositories[int(g.repository[first])]
    package = g.package_of(first)
    row: Row = {
        "repository": loaded.name,
        "repository_path": loaded.root,
        "package_name": package.label if package else "",
        "package_id": package.id if package else "",
        "package_root": package.root if package else "",
        "file_path": g.path_of(first).rpartition("/")[0] or ".",
        "qualified_name": PACKAGE,
        "kind": SymbolKind.PACKAGE.value,
        "language": g.language_of(first),
        "files": [module_entry(g, i) for i in modules],
    }
    return envelope(g, row, total=1, returned=1, compact=False)


MEMBER_KINDS = frozenset({"field", "property", "enum_member"})


def get_file_outline(s: Session, args: dict[str, Any]) -> Row:
    g = s.graph
    repository: str = args["repository"]
    if not repository or repository != repository.strip():
        raise InvalidArgumentError("repository must be a non-empty value without surrounding whitespace")
    r = check_repository(g, repository)
    path = clean_path(args["path"])
    exact = g.file_ids.get((r, path))
    if exact is not None:
        file_ids = [exact]
    else:
        file_ids = [
            i for i, f in enumerate(g.files) if f.repository == r and (not path or f.path.startswith(path + "/"))
        ]
    if not file_ids:
        raise SymbolNotFoundError(f'repository "{repository}" has no indexed file at or under "{path}"')
    found = [i for f in file_ids for i in g.by_file.get(f, [])]
    if args.get("kind"):
        found = [i for i in found if g.kind_of(i) == args["kind"]]
    if not args["include_members"]:
        found = [i for i in found if g.kind_of(i) not in MEMBER_KINDS]
    identity = {"tool": "get_file_outline", "repository": repository, "path": path, "kind": args.get("kind"),
                "include_members": args["include_members"]}  # fmt: skip
    page, cursor = paginate(g, found, args, identity, "stable-key-v1")
    detailed = args["response_format"] == "detailed"
    rows = [symbol_row(g, i, detailed) for i in page]
    verdict = completeness(g, "", [r], (), {g.files[f].language for f in file_ids})
    view = args["view"]
    if view == "full":
        grouped: dict[str, list[Row]] = {}
        for row in rows:
            grouped.setdefault(row["file_path"], []).append(row)
        results: Row = {"repository": repository, "path": path,
                        "languages": sorted({g.files[f].language for f in file_ids}),
                        "files": [{"path": p, "symbols": items} for p, items in grouped.items()]}  # fmt: skip
    elif view == "files":
        results = {"repository": repository, "path": path, "files": file_entries(rows, "declarations", repository)}
    else:
        tail = ["kind", "exported_word", "signature"] if detailed else ["kind", "exported_word"]
        for row in rows:
            row["exported_word"] = "exported" if row["exported"] else "unexported"
        packages = sorted({p.label for i in page if (p := g.package_of(i)) is not None})
        header: Row = {"repository": repository, "path": path}
        if len(packages) == 1:
            header["package"] = packages[0]
        elif packages:
            header["packages"] = packages
        shape = compact_page(rows, ["kind", "exported_word"], ["kind", "exported_word"], "files",
                             spell_by_file(tail, repository))  # fmt: skip

        def exported(value: object) -> bool:
            return value == "exported"

        shape = renamed(shape, "exported_word", "exported", exported)
        if "groups" in shape:
            shape["groups"] = [renamed(group, "exported_word", "exported", exported) for group in shape["groups"]]
        results = {**header, **shape}
    return envelope(g, results, total=len(found), returned=len(rows), compact=view != "full", next_cursor=cursor,
                    coverage=coverage_of(exact=len(rows)), completeness=verdict)  # fmt: skip


def find_by_intent(s: Session, args: dict[str, Any]) -> Row:
    g = s.graph
    keywords: list[str] = args["keywords"]
    try:
        symbols, files = s.intent.search(keywords, limit=args["limit"])
    except ValueError as err:
        raise InvalidArgumentError(str(err)) from None
    if not derived_allowed(g, args):
        symbols = [m for m in symbols if not g.is_derived(m.index)]
    rows: list[Row] = []
    for m in symbols:
        rows.append({"at": at(g, m.index), "qualified_name": qualified_name(g, m.index), "kind": g.kind_of(m.index),
                     "score": round(m.score, 3), "matched": list(m.terms)})  # fmt: skip
    # A path names a file in each loaded repository that has it: one row each, by repository.
    holders: dict[str, list[str]] = {}
    if len(g.repositories) > 1:
        for repository, path in g.file_ids:
            holders.setdefault(path, []).append(g.repositories[repository].name)
    file_rows = [
        {**({"repo": repo} if repo else {}), "file": path, "score": round(m.score, 3), "matched": list(m.terms)}
        for path, m in files
        for repo in sorted(holders.get(path, [""]))
    ]
    results = {"keywords": keywords, "files": file_rows, "symbols": rows}
    return envelope(g, results, total=len(rows) + len(file_rows), returned=len(rows) + len(file_rows), compact=True)


def get_source(s: Session, args: dict[str, Any]) -> str:
    g = s.graph
    requests: list[SourceRequest] = []
    for selector in args["symbols"]:
        i = resolve(g, selector)
        loaded = g.repositories[int(g.repository[i])]
        f = int(g.file[i])
        digest, status = (g.files[f].digest, g.files[f].status) if f != NONE else ("", "not in the file table")
        requests.append(SourceRequest(loaded.name, loaded.root, g.path_of(i), g.qualified_names[i], g.names[i],
                                      g.kind_of(i), int(g.start_line[i]), int(g.end_line[i]), digest,
                                      g.key(i), status))  # fmt: skip
    bodies, trimmed = read_bodies(requests, args["context_lines"])
    return render_bodies(g.snapshot_id, bodies, args["context_lines"], trimmed, args["response_format"] == "detailed")


# -- the index itself ------------------------------------------------------------------------------


def repository_rows(g: Graph) -> list[Row]:
    rows: list[Row] = []
    for loaded in g.repositories:
        state = refresh(loaded)
        row: Row = {"name": loaded.name, "path": loaded.root,
                    "languages": [lang.value for lang in loaded.columns.header.languages]}  # fmt: skip
        if loaded.derived:
            row.update(moved=False, moved_detail=state.detail, derived=True)
        else:
            row["indexed_commit"] = state.indexed_commit
            if state.current_commit:
                row["current_commit"] = state.current_commit
            if state.current_branch:
                row["current_branch"] = state.current_branch
            row["moved"] = state.moved
            if state.moved:
                row["commits_since"], row["files_changed"] = state.commits_behind, state.files_changed
            if state.detail:
                row["moved_detail"] = state.detail
            row["source"] = loaded.location
        rows.append(row)
    return rows


def list_repositories(s: Session, args: dict[str, Any]) -> Row:
    g = s.graph
    rows = sorted(repository_rows(g), key=lambda row: row["name"])
    page, cursor = paginate(g, rows, args, {"tool": "list_repositories"}, "stable-key-v1")
    return envelope(g, page, total=len(rows), returned=len(page), compact=False, next_cursor=cursor)


def graph_status(s: Session, args: dict[str, Any]) -> Row:
    g = s.graph
    freshness = repository_rows(g)
    kinds = Counter(EDGE_KIND_NAMES[k] for k in ints(g.edge_kind))
    reasons = Counter(u.reason for u in g.unresolved) + Counter(v.reason for v in g.scopes)
    newest = max((r.columns.header.created_at for r in g.repositories), default="")
    results: Row = {
        "status": "ready",
        "snapshot_id": g.snapshot_id,
        "snapshot_built_at": newest,
        "repositories": len(g.repositories),
        "packages": len(g.packages),
        "files": len(g.files),
        "symbols": g.size,
        "edges": len(g.edge_source),
        "external_references": sum(len(table) for table in g.externals),
        "unresolved": len(g.unresolved),
        "invisible_scopes": len(g.scopes),
        "edges_by_kind": [{"key": k, "count": n} for k, n in sorted(kinds.items())],
        "edges_by_confidence": [
            {"key": CONFIDENCE_NAMES[c], "count": n} for c, n in sorted(Counter(ints(g.edge_confidence)).items())
        ],  # fmt: skip
        "unresolved_by_reason": [{"key": k, "count": n} for k, n in sorted(reasons.items())],
        "generations": [
            {
                "repository": r.name,
                "location": r.location,
                "bytes": r.size,
                "format_version": "{}.{}".format(*r.columns.format_version),
                "indexer_version": r.columns.header.indexer_version,
                "analyzers": [f"{a} {v}" for a, v in r.columns.header.analyzers],
                "created_at": r.columns.header.created_at,
            }
            for r in g.repositories
        ],  # fmt: skip
        "repository_freshness": freshness,
        "repositories_moved": sum(1 for row in freshness if row.get("moved")),
    }
    if s.problems:
        results["unavailable"] = list(s.problems)
    now = time.time()
    results["overlay"] = [
        {"repository": name, "path": e.path, "state": "deleted" if e.deleted else "edited",
         "age_seconds": round(max(0.0, now - e.modified_at), 1)}
        for name, edits in sorted(s.overlaid.items()) for e in edits
    ]  # fmt: skip
    derived = [i for i, r in enumerate(g.repositories) if r.derived]
    if derived:
        is_derived = g.repository[g.edge_source]
        source_derived = [int(x) in derived for x in ints(is_derived)]
        target_derived = [int(x) in derived for x in ints(g.repository[g.edge_target])]
        results["derived"] = {
            "repositories": [g.repositories[i].name for i in derived],
            "symbols": sum(1 for x in ints(g.repository) if x in derived),
            "files": sum(1 for f in g.files if f.repository in derived),
            "edges_within": sum(source_derived),
            "edges_inbound": sum(1 for sd, td in zip(source_derived, target_derived, strict=True) if td and not sd),
            "unresolved": sum(1 for u in g.unresolved if u.repository in derived),
        }
    return envelope(g, results, total=1, returned=1, compact=False)
