"""Linking repositories at load: a consumer's external reference (package + symbol path) binds to the
provider repository whose manifest declares that package and whose generation declares that symbol.

No provider in the graph is a third-party package and stays external; two providers (twins), a
symbol the provider no longer declares (version drift) or several declarations it could mean
become unresolved records with the reason — never an edge. A reference to the package itself, or
to one of its modules, is a package-level dependency, which proves the dependency and never a use
of any one symbol. A type checker's path is compared whole with the path the provider's own files
give each declaration (module path + qualified name): never by the last name alone.

A repository is its own provider too: a type checker that resolved `import pkg` in its tests to the
copy of the repository's own package installed in site-packages (or node_modules) named a package
the repository's manifest declares, and the use binds back to the source declaration — or, when
the source no longer declares it, is a blind spot; it never silently leaves the repository.
"""

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

import numpy as np

from kivgraph.model import CALLABLE_KINDS, FUNCTION_VALUE_KINDS, Confidence, EdgeKind, Provenance

if TYPE_CHECKING:
    from kivgraph.graph.index import ExternalInfo, Graph, PackageInfo, UnresolvedInfo

SEPARATORS = re.compile(r"::|\.|/")
FAMILIES = {"typescript": "ecmascript", "javascript": "ecmascript"}
SCIP_PROVENANCES = frozenset(p.value for p in Provenance if p.value.startswith(("SCIP_", "RUST_ANALYZER")))
PATH_FAMILIES = frozenset({"go", "ecmascript", "python", "rust"})
"""Families whose providers' declarations get the path a consumer's tooling spells (`Paths`)."""
PYTHON_STDLIB = "python-stdlib"
"""scip-python's package for the interpreter's own modules: never a repository of the workspace."""
STUBS = (".pyi", ".d.ts", ".d.mts", ".d.cts")


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
    kinds: list[int]
    """Indexes into the graph's edge kinds: the relation the consumer's analyzer saw at the site."""
    confidences: list[Confidence]
    files: list[str]
    lines: list[int]
    unresolved: list["UnresolvedInfo"]
    dependencies: list[PackageDependency]


@dataclass(frozen=True, slots=True)
class Request:
    """What one external reference asks for, in the provider's terms."""

    package: str
    """The identity to look the provider up by."""
    path: str
    """The symbol path `Paths` spells ("" for the package itself)."""
    nested: bool = False
    """The package's sub-packages provide too (a Python syntax-layer import names only the top one)."""
    implementer: str = ""
    """For a member of a trait impl (Rust), the implementing type's path: a member the provider's
    source does not declare for a type it does was generated (`#[derive(Default)]`), and what it
    declares is the trait's — not the provider's."""
    distribution: str = ""
    """Python, from scip-python: the distribution the consumer has installed; a provider whose
    manifest names another distribution is not the one it uses, however alike the import names."""


def same_distribution(left: str, right: str) -> bool:
    """PEP 503: names compare case-insensitively, with runs of `-`, `_` and `.` alike."""

    def normal(name: str) -> str:
        return re.sub(r"[-_.]+", "-", name).lower()

    return normal(left) == normal(right)


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

    links = Links([], [], [], [], [], [], [], [])
    if not any(len(table) for table in graph.externals):
        return links
    by_identity = identities(graph)
    members: dict[int, list[int]] = {}
    for i, p in enumerate(graph.package.tolist()):
        if p >= 0:
            members.setdefault(int(p), []).append(i)
    paths = Paths(graph, members)
    names = {fam: {name for (f, name) in by_identity if f == fam} for fam in ("go", "python")}
    seen_unresolved: set[tuple[int, str, str, str]] = set()
    seen_dependencies: set[tuple[int, int, int]] = set()

    def unresolved(x: "ExternalInfo", reason: str, detail: str) -> None:
        key = (x.repository, reason, x.package, x.symbol)
        if key not in seen_unresolved:
            seen_unresolved.add(key)
            links.unresolved.append(UnresolvedInfo(x.repository, reason, x.language, x.file, x.line, x.package,
                                                   x.symbol, x.source, detail))  # fmt: skip

    def depend(x: "ExternalInfo", packages: list[int]) -> None:
        for p in packages:
            if (x.source, p, x.line) not in seen_dependencies:
                seen_dependencies.add((x.source, p, x.line))
                links.dependencies.append(PackageDependency(x.repository, x.source, x.file, x.line, p))

    def resolve(x: "ExternalInfo", fam: str, exact: bool) -> tuple[str, object]:
        """What one reference comes to: ("skip"|"depend"|"unresolved"|"edge", detail)."""
        request = _request(x, fam, exact, names)
        if request is None:
            return "skip", None
        found = _lookup(by_identity, fam, request)
        candidates = [p for p in found if _may_provide(graph.packages[p], x, exact, request)]
        if request.distribution:
            candidates = [
                p for p in candidates
                if not graph.packages[p].distribution
                or same_distribution(graph.packages[p].distribution, request.distribution)
            ]  # fmt: skip
        if not candidates:
            return "skip", None  # a package no repository of the graph provides: third-party, stays external
        providers = sorted({graph.packages[p].repository for p in candidates})
        if len(providers) > 1:
            declared_by = ", ".join(graph.repositories[r].name for r in providers)
            return "unresolved", ("AMBIGUOUS_PACKAGE_PROVIDER", f"{request.package} is declared by {declared_by}")
        own = providers[0] == x.repository
        if not request.path:
            if own:
                return "skip", None  # its own package: no dependency to report
            wanted = {request.package, x.package}
            named = [p for p in candidates if {graph.packages[p].name, graph.packages[p].label} & wanted]
            return "depend", named or candidates
        if fam in PATH_FAMILIES:
            target = _bind_path(graph, paths, request, candidates, exact, own)
        else:
            target = _bind(graph, request.path, [i for p in candidates for i in members.get(p, [])])
        if isinstance(target, list):
            return "depend", target  # a module of the package: the dependency, not a use of one symbol
        if target == "":
            return "skip", None  # declared outside the provider (a derived trait impl's member)
        if isinstance(target, str):
            provider = graph.repositories[providers[0]].name
            if own:
                installed = f"the installed copy of {x.package} {x.version}"
                return "unresolved", (target, f"{request.path}: {installed} declares it, the source of {provider} "
                                      "does not; reinstall the package")  # fmt: skip
            return "unresolved", (target, f"{request.path} in {request.package} ({provider})")
        return "edge", target

    # A consumer names the same symbols over and over: each distinct reference is resolved once, and
    # only the sites of those that come to something are read (in stored order).
    outcomes: dict[tuple[int, str, bool, str, str], tuple[str, object]] = {}
    for table in graph.externals:
        firsts, inverse = table.distinct()
        found: list[tuple[str, object]] = []
        for row in firsts:
            x = table.row(row)
            fam, exact = family(x.language), x.provenance in SCIP_PROVENANCES
            key = (x.repository, fam, exact, x.package, x.symbol)
            outcome = outcomes.get(key)
            if outcome is None:
                outcome = outcomes[key] = resolve(x, fam, exact)
            found.append(outcome)
        kept = np.array([kind != "skip" for kind, _ in found] or [False], dtype=np.bool_)
        for row in np.flatnonzero(kept[inverse]).tolist():
            x = table.row(row)
            kind, detail = found[int(inverse[row])]
            if kind == "depend":
                depend(x, cast(list[int], detail))
            elif kind == "unresolved":
                reason, text = cast(tuple[str, str], detail)
                unresolved(x, reason, text)
            else:
                target = cast(int, detail)
                exact = x.provenance in SCIP_PROVENANCES
                links.sources.append(x.source)
                links.targets.append(target)
                links.kinds.append(_linked_kind(graph, x.kind, target))
                links.confidences.append(Confidence.EXACT_PACKAGE_MAPPED if exact else Confidence.CANDIDATE)
                links.files.append(x.file)
                links.lines.append(x.line)
    return links


def _linked_kind(graph: "Graph", site_kind: int, target: int) -> int:
    """The site's relation, except that a function used as a value is one only if the provider's
    declaration is callable (the consumer's analyzer could not tell what it named)."""
    from kivgraph.graph.index import EDGE_KINDS, SYMBOL_KINDS

    kind = EDGE_KINDS[site_kind]
    if kind in FUNCTION_VALUE_KINDS and SYMBOL_KINDS[int(graph.kind[target])] not in CALLABLE_KINDS:
        return EDGE_KINDS.index(EdgeKind.REFERENCES)
    return site_kind


def _may_provide(package: "PackageInfo", x: "ExternalInfo", exact: bool, request: Request) -> bool:
    """Whether a package may be what the reference names. Another repository's may (its manifest is
    checked below); the consumer's own only when a type checker resolved the use to an installed
    copy of a package its manifest declares — the syntax layer's unresolved imports of its own
    names prove nothing, and a Python package provides itself only under its own distribution."""
    if package.repository != x.repository:
        return True
    if not exact:
        return False
    return not request.distribution or (
        bool(package.distribution) and same_distribution(package.distribution, request.distribution)
    )


def _request(x: "ExternalInfo", fam: str, exact: bool, names: dict[str, set[str]]) -> Request | None:
    """The provider identity and symbol path an external reference asks for, or None when no
    repository can provide it."""
    if fam == "go":
        # scip-go names the module as the package and `<import path>.<name>` as the symbol.
        prefix = _longest_prefix(x.symbol, names["go"]) if x.symbol else ""
        if prefix:
            return Request(prefix, x.symbol[len(prefix) + 1 :] if x.symbol != prefix else "")
        return Request(x.package, x.symbol)
    if fam == "python":
        if not exact:
            # `from shopcore.pricing import total` reads as package `shopcore`, symbol `total`.
            return Request(x.package, x.symbol, nested=True)
        if x.package == PYTHON_STDLIB:
            return None
        # scip-python names the distribution (`shop-core`) and the import path of the declaration
        # (`shopcore.pricing.total`): the import package is the longest leading part a provider declares.
        prefix = _longest_prefix(x.symbol, names["python"])
        return Request(prefix, x.symbol, distribution=x.package) if prefix else None
    if fam == "rust":
        if exact:
            path, implementer = _rust_impl(x.symbol)
            return Request(x.package, path, implementer=implementer)
        # `Cart::default` as written: the member may be a trait's (derived, or a default method).
        return Request(x.package, x.symbol, implementer=x.symbol.rpartition("::")[0])
    if fam == "ecmascript" and exact:
        return Request(x.package, ".".join("constructor" if p == "<constructor>" else p for p in x.symbol.split(".")))
    return Request(x.package, x.symbol)


def _lookup(by_identity: dict[tuple[str, str], list[int]], fam: str, request: Request) -> list[int]:
    """The packages that declare the requested identity (and, when nested, its sub-packages)."""
    found = list(by_identity.get((fam, request.package), []))
    if request.nested and request.package:
        below = request.package + "."
        found += [p for (f, name), ids in by_identity.items() if f == fam and name.startswith(below) for p in ids]
    return sorted(set(found))


def _longest_prefix(symbol: str, paths: set[str]) -> str:
    """The longest dotted leading part of `symbol` that is one of `paths` ("" when none is)."""
    if symbol in paths:
        return symbol
    best = ""
    for match in re.finditer(r"\.", symbol):
        prefix = symbol[: match.start()]
        if prefix in paths and len(prefix) > len(best):
            best = prefix
    return best


def _rust_impl(symbol: str) -> tuple[str, str]:
    """rust-analyzer's path of an associated item, `m.impl.Cart.add` (inherent) or
    `m.impl.Cart.Priced.price` (trait impl), as our qualified names spell it (`m.Cart.add`); and,
    for a trait impl, the implementing type's path (`m.Cart`)."""
    parts = symbol.split(".")
    if "impl" not in parts:
        return symbol, ""
    at = parts.index("impl")
    inside = parts[at + 1 :]
    if len(inside) not in (2, 3):
        return symbol, ""
    owner = [*parts[:at], inside[0].partition("<")[0]]
    return ".".join([*owner, inside[-1]]), ".".join(owner) if len(inside) == 3 else ""


@dataclass(slots=True)
class Paths:
    """Each provider declaration's path as a consumer's type checker spells it, per package (built on
    first use): Go `Type.Method`; TypeScript the file under the package root then the qualified name
    (`src.pricing.ts.total`); Python the import path (`shopcore.pricing.total`, a module
    `shopcore.pricing.__init__`); Rust the module path from the crate root (`pricing.Cart.add`, the
    root `crate`)."""

    graph: "Graph"
    members: dict[int, list[int]]
    built: dict[int, dict[str, list[int]]] = field(default_factory=lambda: {})
    named: dict[int, dict[str, list[int]]] = field(default_factory=lambda: {})

    def names(self, p: int) -> dict[str, list[int]]:
        """A package's declarations (not modules) by qualified name, `::` spelled `.`."""
        if p not in self.named:
            found: dict[str, list[int]] = {}
            for i in self.members.get(p, []):
                if self.graph.kind_of(i) != "module":
                    found.setdefault(self.graph.qualified_names[i].replace("::", "."), []).append(i)
            self.named[p] = found
        return self.named[p]

    def of(self, p: int) -> dict[str, list[int]]:
        if p not in self.built:
            found: dict[str, list[int]] = {}
            package = self.graph.packages[p]
            for i in self.members.get(p, []):
                path = self._path(package, i)
                if path:
                    found.setdefault(path, []).append(i)
            self.built[p] = found
        return self.built[p]

    def _path(self, package: "PackageInfo", symbol: int) -> str:
        g = self.graph
        qualified = g.qualified_names[symbol].replace("::", ".")
        file = g.path_of(symbol)
        fam = family(package.language)
        if fam == "go":
            return qualified
        is_file = g.kind_of(symbol) == "module" and qualified == _module_qualified_name(file)
        if fam == "ecmascript":
            if package.root and not file.startswith(package.root + "/"):
                return ""
            module = (file[len(package.root) + 1 :] if package.root else file).replace("/", ".")
            return module if is_file else f"{module}.{qualified}"
        if fam == "python":
            module = self._python_module(package, file)
            return "" if not module else f"{module}.__init__" if is_file else f"{module}.{qualified}"
        if fam == "rust":
            relative = file[len(package.root) + 1 :] if package.root else file
            parts = _rust_module(relative)
            if parts is None:
                return ""
            return (".".join(parts) or "crate") if is_file else ".".join([*parts, qualified])
        return ""

    def _python_module(self, package: "PackageInfo", file: str) -> str:
        directory, _, name = file.rpartition("/")
        stem = name.rpartition(".")[0]
        if directory != package.root or not stem:
            return ""
        if stem == "__init__":
            return package.name
        repository = package.repository
        is_package = any(
            (repository, f"{directory}/{init}") in self.graph.file_ids for init in ("__init__.py", "__init__.pyi")
        )
        if is_package:
            return f"{package.name}.{stem}"
        return package.name if stem == package.name else ""  # a module outside any package is its own


def _module_qualified_name(path: str) -> str:
    """The qualified name of a file's module symbol (as `languages/scopes.py` spells it)."""
    name = path.rpartition("/")[2]
    stem = path[: -len(".d.ts")] if name.endswith(".d.ts") else path[: path.rfind(".")] if "." in name else path
    return stem.replace("/", ".")


def _rust_module(relative: str) -> list[str] | None:
    """`src/a/b.rs` → ["a", "b"] of the library crate rooted at `src/lib.rs`; None outside it
    (binaries, tests, examples, build scripts: nothing another crate can name)."""
    if not relative.startswith("src/") or not relative.endswith(".rs"):
        return None
    if relative == "src/main.rs" or relative.startswith("src/bin/"):
        return None
    parts = relative[len("src/") : -len(".rs")].split("/")
    if parts == ["lib"]:
        return []
    if parts[-1] == "mod":
        parts.pop()
    return parts


def _bind_path(
    graph: "Graph", paths: Paths, request: Request, candidates: list[int], exact: bool, own: bool = False
) -> int | str | list[int]:
    """The one provider declaration the path names; the packages whose modules it names (a
    package-level dependency; for the consumer's `own` package, the module itself); "" when what it
    names is declared outside the provider; or why none: PROVIDER_SYMBOL_NOT_FOUND (the provider
    no longer declares it: version drift) or AMBIGUOUS_PROVIDER_SYMBOL."""

    def find(path: str) -> list[int]:
        """A type checker's path must equal a declaration's whole path. The syntax layer's (a name
        as imported: `total`, `pricing::Boxed`) is tried whole, then as a qualified name."""
        wanted = path.replace("::", ".")
        found = [i for p in candidates for i in paths.of(p).get(wanted, [])]
        if not found and request.nested:
            # Python `from shopcore import pricing, total`: relative to the top-level package.
            for spelled in (f"{request.package}.{wanted}", f"{request.package}.{wanted}.__init__"):
                found += [i for p in candidates for i in paths.of(p).get(spelled, [])]
        if not found and not exact:
            found = [i for p in candidates for i in paths.names(p).get(wanted, [])]
        return found

    found = find(request.path)
    declared = [i for i in found if graph.kind_of(i) != "module"]
    if found and not declared:
        return _one(graph, found) if own else sorted({int(graph.package[i]) for i in found})
    if not found and request.implementer and any(graph.kind_of(i) != "module" for i in find(request.implementer)):
        return ""
    return _one(graph, declared)


def _one(graph: "Graph", declared: list[int]) -> int | str:
    if len(declared) > 1:
        exported = [i for i in declared if bool(graph.exported[i])]
        declared = exported if len(exported) == 1 else declared
    if len(declared) > 1:
        implementations = [i for i in declared if not graph.path_of(i).endswith(STUBS)]
        declared = implementations or declared
    if len(declared) > 1 and len({(graph.path_of(i), graph.qualified_names[i]) for i in declared}) == 1:
        declared = declared[:1]  # overloads of one declaration: the first stands for all
    if not declared:
        return "PROVIDER_SYMBOL_NOT_FOUND"
    if len(declared) > 1:
        return "AMBIGUOUS_PROVIDER_SYMBOL"
    return declared[0]


def _bind(graph: "Graph", rest: str, symbols: list[int]) -> int | str:
    """For a language without provider paths (Dart): the one provider symbol `rest` names, or why
    none: PROVIDER_SYMBOL_NOT_FOUND (the provider no longer declares it) or AMBIGUOUS_PROVIDER_SYMBOL."""
    wanted = rest.replace("::", ".")
    exact = [i for i in symbols if graph.qualified_names[i].replace("::", ".") == wanted]
    if not exact:
        # A SCIP path may lead with the module or file the declaration lives in (`lib/geo.dart` →
        # `geo.Scale`): only those leading parts may be dropped.
        exact = [i for i in symbols if _names_with_module(graph, i, wanted)]
    declared = [i for i in exact if graph.kind_of(i) != "module"] or exact
    return _one(graph, declared)


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
