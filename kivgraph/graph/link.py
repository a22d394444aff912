"""Linking repositories at load: a consumer's external reference (package + symbol path) binds to the
provider repository whose manifest declares that package and whose generation declares that symbol.

No provider in the graph is a third-party package and stays external; two providers (twins), a
symbol the provider no longer declares (version drift) or several declarations it could mean
become unresolved records with the reason — never an edge. A reference to the package itself is a
package-level dependency, which proves the dependency and never a use of any one symbol.
"""

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kivgraph.model import Confidence, Provenance

if TYPE_CHECKING:
    from kivgraph.graph.index import ExternalInfo, Graph, UnresolvedInfo

SEPARATORS = re.compile(r"::|\.|/")
FAMILIES = {"typescript": "ecmascript", "javascript": "ecmascript"}
SCIP_PROVENANCES = frozenset(p.value for p in Provenance if p.value.startswith(("SCIP_", "RUST_ANALYZER")))


@dataclass(frozen=True, slots=True)
class PackageDependency:
    """A consumer that depends on a provider package without a use of one symbol we could bind."""

    consumer_repository: int
    source: int
    """The consumer symbol (or module) whose code names the package."""
    file: str
    line: int
    package: int
    """The provider package (global id)."""


@dataclass(slots=True)
class Links:
    sources: list[int]
    targets: list[int]
    confidences: list[Confidence]
    files: list[str]
    lines: list[int]
    unresolved: list["UnresolvedInfo"]
    dependencies: list[PackageDependency]


def family(language: str) -> str:
    return FAMILIES.get(language, language)


def identities(graph: "Graph") -> dict[tuple[str, str], list[int]]:
    """(language family, a name a consumer may use for the package) → provider package ids."""
    found: dict[tuple[str, str], list[int]] = {}
    for p, package in enumerate(graph.packages):
        names = {package.name, package.label, package.id.partition(":")[2]}
        if package.language == "rust":
            names |= {n.replace("-", "_") for n in names}
        for name in names - {""}:
            found.setdefault((family(package.language), name), []).append(p)
    return found


def link(graph: "Graph") -> Links:
    from kivgraph.graph.index import UnresolvedInfo

    links = Links([], [], [], [], [], [], [])
    if len(graph.repositories) < 2 or not graph.externals:
        return links
    by_identity = identities(graph)
    members: dict[int, list[int]] = {}
    for i, p in enumerate(graph.package.tolist()):
        if p >= 0:
            members.setdefault(int(p), []).append(i)
    go_paths = {name for (fam, name) in by_identity if fam == "go"}
    seen_unresolved: set[tuple[int, str, str, str]] = set()
    seen_dependencies: set[tuple[int, int, int]] = set()

    def unresolved(x: "ExternalInfo", reason: str, detail: str) -> None:
        key = (x.repository, reason, x.package, x.symbol)
        if key not in seen_unresolved:
            seen_unresolved.add(key)
            links.unresolved.append(UnresolvedInfo(x.repository, reason, x.language, x.file, x.line, x.package,
                                                   x.symbol, x.source, detail))  # fmt: skip

    for x in graph.externals:
        fam = family(x.language)
        package_name, rest = x.package, x.symbol
        if fam == "go" and x.symbol:
            # scip-go names the module as the package and `<import path>.<name>` as the symbol.
            prefix = _longest_go_prefix(x.symbol, go_paths)
            if prefix:
                package_name, rest = prefix, x.symbol[len(prefix) + 1 :] if x.symbol != prefix else ""
        candidates = [
            p for p in by_identity.get((fam, package_name), []) if graph.packages[p].repository != x.repository
        ]
        if not candidates:
            continue  # a package no repository of the graph provides: third-party, stays external
        providers = sorted({graph.packages[p].repository for p in candidates})
        if len(providers) > 1:
            names = ", ".join(graph.repositories[r].name for r in providers)
            unresolved(x, "AMBIGUOUS_PACKAGE_PROVIDER", f"{package_name} is declared by {names}")
            continue
        if not rest:
            for p in candidates:
                if (x.source, p, x.line) not in seen_dependencies:
                    seen_dependencies.add((x.source, p, x.line))
                    links.dependencies.append(PackageDependency(x.repository, x.source, x.file, x.line, p))
            continue
        symbols = [i for p in candidates for i in members.get(p, [])]
        target = _bind(graph, rest, symbols)
        if isinstance(target, str):
            provider = graph.repositories[providers[0]].name
            unresolved(x, target, f"{rest} in {package_name} ({provider})")
            continue
        links.sources.append(x.source)
        links.targets.append(target)
        exact = x.provenance in SCIP_PROVENANCES
        links.confidences.append(Confidence.EXACT_PACKAGE_MAPPED if exact else Confidence.CANDIDATE)
        links.files.append(x.file)
        links.lines.append(x.line)
    return links


def _longest_go_prefix(symbol: str, paths: set[str]) -> str:
    if symbol in paths:
        return symbol
    best = ""
    for match in re.finditer(r"\.", symbol):
        prefix = symbol[: match.start()]
        if prefix in paths and len(prefix) > len(best):
            best = prefix
    return best


def _bind(graph: "Graph", rest: str, symbols: list[int]) -> int | str:
    """The one provider symbol `rest` names, or why none: PROVIDER_SYMBOL_NOT_FOUND (the provider
    no longer declares it: version drift) or AMBIGUOUS_PROVIDER_SYMBOL."""
    wanted = rest.replace("::", ".")
    exact = [i for i in symbols if graph.qualified_names[i].replace("::", ".") == wanted]
    if not exact:
        # A SCIP path may lead with the module or file the declaration lives in (`src/geo.rs` →
        # `geo.Scale`, `pkg/mod.py` → `pkg.mod.Class`): only those leading parts may be dropped.
        exact = [i for i in symbols if _names_with_module(graph, i, wanted)]
    declared = [i for i in exact if graph.kind_of(i) != "module"] or exact
    if len(declared) > 1:
        exported = [i for i in declared if bool(graph.exported[i])]
        declared = exported if len(exported) == 1 else declared
    if not declared:
        return "PROVIDER_SYMBOL_NOT_FOUND"
    if len(declared) > 1:
        return "AMBIGUOUS_PROVIDER_SYMBOL"
    return declared[0]


def _names_with_module(graph: "Graph", symbol: int, wanted: str) -> bool:
    qualified = graph.qualified_names[symbol].replace("::", ".")
    if not wanted.endswith("." + qualified):
        return False
    lead = [part for part in SEPARATORS.split(wanted[: -len(qualified) - 1]) if part]
    path = graph.path_of(symbol)
    stems = {part.rpartition(".")[0] or part for part in path.split("/")} | set(path.split("/"))
    return (
        bool(lead)
        and lead[-1] in stems | {"mod", "lib", "index", "__init__"}
        and all(part in stems or "." not in part for part in lead)
    )
