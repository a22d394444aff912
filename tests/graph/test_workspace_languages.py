"""Workspaces on real TypeScript, Python and Rust repositories indexed with their own analyzers
(scip-typescript, scip-python, rust-analyzer), the way tests/graph/test_workspace.py does Go: a
provider, a local consumer, a remote one served from a bare repository over file://, a consumer of
the package alone, and the cases that must never link (twins, a decoy, version drift). Without an
analyzer, the syntax layer's links are candidates.

Each consumer reaches the provider the way real projects do: TypeScript through tsconfig `paths` or
a `file:` dependency's node_modules link; Python through the provider's distribution installed in
its environment (on PYTHONPATH); Rust through a `path` dependency. The trees are under
tests/fixtures/workspaces/<language>/ (`core-v1` is the provider's previous release, laid over it).
"""

import json
import shutil
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from kivgraph.graph.catalog import Catalog, run_tool
from kivgraph.graph.index import CONFIDENCES, EDGE_KINDS
from kivgraph.graph.tools import TOOL_BY_NAME
from kivgraph.indexing import index_repository
from kivgraph.store import save_to_notes
from kivgraph.store.git import open_repository
from tests.conftest import FIXTURES, Repo
from tests.scip.analyzers import require

WORKSPACES = FIXTURES / "workspaces"
Row = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Case:
    language: str
    analyzer: str
    total: tuple[str, str]
    """(file, qualified name) of the provider's `total`, which billing uses."""
    cart: tuple[str, str]
    """The class `Cart`, which billing uses in `cart_user`."""
    cart_user: str
    add: tuple[str, str]
    """The method `Cart.add`, which billing uses."""
    scale: tuple[str, str]
    """`scale`, which the remote consumer (reports) uses."""
    drifted: frozenset[str]
    """What `legacy` uses of the provider's previous release that the current one dropped: a
    function, and (Python, Rust) the module it was in."""
    legacy_file: str
    fallback: str
    """The consumer tree indexed again without its analyzer; it uses `fallback_subject` in
    `fallback_user`."""
    fallback_subject: tuple[str, str]
    fallback_user: str


CASES = {
    "typescript": Case(
        "typescript",
        "scip-typescript",
        total=("src/pricing.ts", "total"),
        cart=("src/index.ts", "Cart"),
        cart_user="Cart",
        add=("src/index.ts", "Cart.add"),
        scale=("src/index.ts", "scale"),
        drifted=frozenset({"src.legacy.ts.legacyTotal"}),
        legacy_file="src/index.ts",
        fallback="reports",
        fallback_subject=("src/index.ts", "scale"),
        fallback_user="report",
    ),
    "python": Case(
        "python",
        "scip-python",
        total=("shopcore/pricing.py", "total"),
        cart=("shopcore/pricing.py", "Cart"),
        cart_user="bill",
        add=("shopcore/pricing.py", "Cart.add"),
        scale=("shopcore/__init__.py", "scale"),
        drifted=frozenset({"shopcore.legacy.__init__", "shopcore.legacy.legacy_total"}),
        legacy_file="legacy/old.py",
        fallback="billing",
        fallback_subject=("shopcore/pricing.py", "total"),
        fallback_user="bill",
    ),
    "rust": Case(
        "rust",
        "rust-analyzer",
        total=("src/pricing.rs", "total"),
        cart=("src/pricing.rs", "Cart"),
        cart_user="bill",
        add=("src/pricing.rs", "Cart::add"),
        scale=("src/lib.rs", "scale"),
        drifted=frozenset({"legacy", "legacy.legacy_total"}),
        legacy_file="src/lib.rs",
        fallback="billing",
        fallback_subject=("src/pricing.rs", "total"),
        fallback_user="bill",
    ),
}
LINK_REASONS = frozenset({"AMBIGUOUS_PACKAGE_PROVIDER", "PROVIDER_SYMBOL_NOT_FOUND", "AMBIGUOUS_PROVIDER_SYMBOL"})


@dataclass(frozen=True, slots=True)
class Workspace:
    case: Case
    root: Path

    def catalog(self, toml: str = "kivgraph.toml") -> Catalog:
        catalog = Catalog([], [], str(self.root / toml))
        catalog.load()
        assert catalog.session is not None and not catalog.problems, catalog.problems
        return catalog


def install(tree: Path, site: Path) -> None:
    """What installing the provider's wheel leaves in site-packages: its import packages and a
    dist-info whose RECORD lists their files (scip-python names the distribution from it)."""
    project = tomllib.loads((tree / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    info = site / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
    records: list[str] = []
    for init in sorted(tree.glob("*/__init__.py")):
        shutil.copytree(init.parent, site / init.parent.name)
        records += sorted(p.relative_to(site).as_posix() for p in (site / init.parent.name).rglob("*.py"))
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n",
                                   encoding="utf-8")  # fmt: skip
    records += [f"{info.name}/METADATA", f"{info.name}/RECORD"]
    (info / "RECORD").write_text("".join(f"{record},,\n" for record in records), encoding="utf-8")


class Builder:
    """Copies fixture trees into one directory side by side, commits and indexes them."""

    def __init__(self, case: Case, root: Path) -> None:
        self.case, self.root, self.source = case, root, WORKSPACES / case.language

    def tree(self, name: str, *layers: str) -> Path:
        target = self.root / name
        for layer in layers or (name,):
            shutil.copytree(self.source / layer, target, dirs_exist_ok=True)
        return target

    def repo(self, name: str, *layers: str, analyzers: bool = True, provider: str = "core") -> Repo:
        repo = Repo(self.tree(name, *layers))
        repo.commit(message=name)
        with self.built(name, provider) if analyzers else nullcontext():
            generation = index_repository(str(repo.path), run_analyzers=analyzers)
        save_to_notes(open_repository(str(repo.path)), generation)
        return repo

    @contextmanager
    def built(self, name: str, provider: str) -> Iterator[None]:
        """What a consumer's build sets up before its analyzer runs: `npm install` links a `file:`
        dependency into node_modules; pip installs the provider's release into the environment."""
        with pytest.MonkeyPatch.context() as patch:
            manifest = self.root / name / "package.json"
            if manifest.exists():
                dependencies: dict[str, str] = json.loads(manifest.read_text(encoding="utf-8")).get("dependencies", {})
                for package, spec in dependencies.items():
                    if spec.startswith("file:"):
                        link = self.root / name / "node_modules" / package
                        link.parent.mkdir(parents=True, exist_ok=True)
                        link.symlink_to((self.root / name / spec.removeprefix("file:")).resolve())
            if self.case.language == "python" and name != provider:
                site = self.root / "site-packages" / provider
                if not site.exists():
                    install(self.root / provider, site)
                patch.setenv("PYTHONPATH", str(site))
            yield


@pytest.fixture(scope="module", params=sorted(CASES))
def workspace(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    case = CASES[request.param]
    require(case.analyzer)
    root = tmp_path_factory.mktemp(case.language)
    build = Builder(case, root)
    build.repo("core")
    build.tree("core-v1", "core", "core-v1")  # the previous release, which `legacy` was built against
    for name in ("billing", "audit"):
        build.repo(name)
    build.repo("legacy", provider="core-v1")
    # A package whose name only looks like the provider's, declaring the same names.
    build.repo("decoy", analyzers=False)
    # A fork that declares the same package: twins.
    build.repo("fork", "core", analyzers=False)
    # Indexed where it sits beside the provider (as its CI would check both out), then served
    # only from a bare repository with its notes.
    remote = root / "remote" / "reports.git"
    author = build.repo("reports")
    author.git("init", "-q", "--bare", str(remote))
    author.git("push", "-q", str(remote), "main", "refs/notes/kivgraph")
    (root / "reports").rename(root / "reports-work")
    fallback = Repo(build.tree("fallback", case.fallback))
    fallback.commit(message="fallback")
    save_to_notes(open_repository(str(fallback.path)), index_repository(str(fallback.path), run_analyzers=False))

    def toml(name: str, *paths: str, url: str = "") -> None:
        entries = [f'[[repository]]\npath = "{path}"\n' for path in paths]
        if url:
            entries.append(f'[[repository]]\nurl = "{url}"\nname = "reports"\n')
        (root / name).write_text("\n".join(entries), encoding="utf-8")

    toml("kivgraph.toml", "core", "billing", "audit", "decoy", url=f"file://{remote}")
    toml("twins.toml", "core", "fork", "billing")
    toml("drift.toml", "core", "legacy")
    toml("fallback.toml", "core", "fallback")
    yield Workspace(case, root)


def ask(catalog: Catalog, tool: str, **arguments: object) -> Row:
    answer: Row = json.loads(run_tool(catalog, TOOL_BY_NAME[tool], arguments))
    return answer


def consumers(catalog: Catalog, subject: tuple[str, str], repository: str = "core") -> list[Row]:
    answer = ask(catalog, "find_cross_repo_consumers", repository=repository, path=subject[0],
                 qualified_name=subject[1], view="full")  # fmt: skip
    rows: list[Row] = answer["results"]["consumers"]
    return rows


def reasons(catalog: Catalog) -> set[str]:
    status = ask(catalog, "graph_status")["results"]
    return {row["key"] for row in status["unresolved_by_reason"]}


def crossing(catalog: Catalog) -> list[tuple[str, str, str]]:
    """(consumer, provider, confidence) of every edge between two repositories."""
    graph = catalog.session.graph  # type: ignore[union-attr]
    found: list[tuple[str, str, str]] = []
    for source, target, confidence in zip(graph.edge_source.tolist(), graph.edge_target.tolist(),
                                          graph.edge_confidence.tolist(), strict=True):  # fmt: skip
        if graph.repository[source] != graph.repository[target]:
            found.append((graph.repository_name(source), graph.repository_name(target), CONFIDENCES[confidence].value))
    return found


def uses(catalog: Catalog, subject: tuple[str, str]) -> set[tuple[str, str]]:
    """(repository, qualified name) of the exact uses of a provider symbol in other repositories."""
    return {
        (c["repository"], c["qualified_name"]) for c in consumers(catalog, subject) if c["category"] == "exact_symbol"
    }


def test_uses_link_exactly_to_local_and_remote_consumers(workspace: Workspace):
    case, catalog = workspace.case, workspace.catalog()
    total = [c for c in consumers(catalog, case.total) if c["category"] == "exact_symbol"]
    assert ("billing", "bill") in {(c["repository"], c["qualified_name"]) for c in total}
    assert {(c["repository"], c["confidence"]) for c in total} == {("billing", "EXACT_PACKAGE_MAPPED")}
    # A class, and the method of a class (an impl block in Rust). Billing's TypeScript wraps the
    # core's Cart in a Cart of its own, in a src/index.ts of its own: the core's path and name.
    cart = uses(catalog, case.cart)
    assert ("billing", case.cart_user) in cart and {repository for repository, _ in cart} == {"billing"}
    assert uses(catalog, case.add) == {("billing", "bill")}
    graph = catalog.session.graph  # type: ignore[union-attr]
    loops = [s for s, t in zip(graph.edge_source.tolist(), graph.edge_target.tolist(), strict=True) if s == t]
    assert "billing" not in {graph.repository_name(s) for s in loops}
    # The remote consumer, known only by its notes, uses `scale` (and may import it by name).
    remote = uses(catalog, case.scale)
    assert ("reports", "report") in remote and {repository for repository, _ in remote} == {"reports"}
    names = {r["name"]: r for r in ask(catalog, "list_repositories")["results"]}
    assert names["reports"]["path"] == "" and set(names) == {"core", "billing", "audit", "decoy", "reports"}
    # Every use bound: none twin, drifted or ambiguous. (A derived trait's member, Rust's
    # `Cart::default()`, is declared by the trait, not the provider: no record either.)
    assert not reasons(catalog) & LINK_REASONS
    edges = crossing(catalog)
    assert {(consumer, confidence) for consumer, _, confidence in edges} == {
        ("billing", "EXACT_PACKAGE_MAPPED"),
        ("reports", "EXACT_PACKAGE_MAPPED"),
    }
    assert {provider for _, provider, _ in edges} == {"core"}


def test_a_consumer_of_the_package_alone_is_a_package_dependency_never_a_use(workspace: Workspace):
    catalog = workspace.catalog()
    answer = ask(catalog, "find_cross_repo_consumers", repository="core", path=workspace.case.scale[0],
                 qualified_name=workspace.case.scale[1], view="full")  # fmt: skip
    rows = answer["results"]["consumers"]
    assert {c["repository"] for c in rows if c["category"] == "package"} == {"audit", "billing", "reports"}
    assert not any(c["repository"] == "audit" and c["category"] != "package" for c in rows)
    assert answer["coverage"]["package_level"] == 3
    assert not any(consumer == "audit" for consumer, _, _ in crossing(catalog))


def test_a_decoy_that_only_looks_like_the_provider_is_never_bound(workspace: Workspace):
    catalog = workspace.catalog()
    assert not any("decoy" in (consumer, provider) for consumer, provider, _ in crossing(catalog))
    graph = catalog.session.graph  # type: ignore[union-attr]
    decoy = graph.repository_index["decoy"]
    assert not any(graph.packages[d.package].repository == decoy for d in graph.dependencies)
    declared = ask(catalog, "find_symbol", name="total", repo="decoy", view="full")
    assert declared["total"] == 1  # the same name as the provider's, never bound
    assert not any(c["repository"] == "decoy" for c in consumers(catalog, workspace.case.total))


def test_the_blast_radius_crosses_into_local_and_remote_consumers(workspace: Workspace):
    catalog = workspace.catalog()

    def reached(subject: tuple[str, str]) -> set[tuple[str, str]]:
        radius = ask(catalog, "get_blast_radius", repository="core", path=subject[0], qualified_name=subject[1],
                     view="full")  # fmt: skip
        return {(s["repository"], s["qualified_name"]) for s in radius["results"]["symbols"]}

    total = reached(workspace.case.total)
    assert ("billing", "bill") in total and not any(repository in ("decoy", "audit") for repository, _ in total)
    assert ("billing", "bill") in reached(workspace.case.add)
    assert ("reports", "report") in reached(workspace.case.scale)


def test_twin_providers_never_link_and_say_why(workspace: Workspace):
    catalog = workspace.catalog("twins.toml")
    rows = consumers(catalog, workspace.case.total)
    assert not any(c["category"] in ("exact_symbol", "candidate") for c in rows)
    assert {c.get("reason") for c in rows if c["category"] == "unresolved"} == {"AMBIGUOUS_PACKAGE_PROVIDER"}
    assert "AMBIGUOUS_PACKAGE_PROVIDER" in reasons(catalog)
    assert crossing(catalog) == []


def test_a_symbol_the_provider_no_longer_declares_is_drift_not_an_edge(workspace: Workspace):
    catalog = workspace.catalog("drift.toml")
    assert "PROVIDER_SYMBOL_NOT_FOUND" in reasons(catalog)
    # legacy used only what the provider dropped since: no edge crossed, not even a guess.
    assert crossing(catalog) == []
    graph = catalog.session.graph  # type: ignore[union-attr]
    drifted = [u for u in graph.unresolved if u.reason == "PROVIDER_SYMBOL_NOT_FOUND"]
    assert {u.requested_symbol for u in drifted} == workspace.case.drifted
    assert {(graph.repositories[u.repository].name, u.file) for u in drifted} == {
        ("legacy", workspace.case.legacy_file)
    }


def test_without_an_analyzer_the_syntax_layer_links_candidates(workspace: Workspace):
    case, catalog = workspace.case, workspace.catalog("fallback.toml")
    rows = consumers(catalog, case.fallback_subject)
    candidates = {(c["repository"], c["qualified_name"], c["confidence"]) for c in rows if c["category"] == "candidate"}
    assert ("fallback", case.fallback_user, "CANDIDATE") in candidates
    assert not any(c["category"] == "exact_symbol" for c in rows)
    assert {confidence for _, _, confidence in crossing(catalog)} == {"CANDIDATE"}
    # A member the syntax layer cannot place (`Cart::default()`, derived) is no evidence of drift.
    assert not reasons(catalog) & LINK_REASONS


def test_a_python_fork_shipping_another_distribution_is_not_the_provider_the_consumer_installed(
    workspace: Workspace,
):
    """Same import package, another distribution name: scip-python saw `shop-core` installed, so a
    fork published as `shop-core-fork` cannot be what the consumer uses — the use binds to core
    exactly, where a true twin (same distribution) is ambiguous."""
    if workspace.case.language != "python":
        pytest.skip("distribution names are Python's")
    fork = workspace.root / "renamed"
    if not fork.exists():
        shutil.copytree(workspace.root / "fork", fork, ignore=shutil.ignore_patterns(".git"))
        manifest = fork / "pyproject.toml"
        text = manifest.read_text(encoding="utf-8")
        manifest.write_text(text.replace('name = "shop-core"', 'name = "shop-core-fork"'), encoding="utf-8")
        repo = Repo(fork)
        repo.commit(message="a fork under another distribution name")
        save_to_notes(open_repository(str(fork)), index_repository(str(fork), run_analyzers=False))
        (workspace.root / "renamed.toml").write_text(
            '[[repository]]\npath = "core"\n\n[[repository]]\npath = "renamed"\n\n[[repository]]\npath = "billing"\n',
            encoding="utf-8",
        )
    catalog = workspace.catalog("renamed.toml")
    assert ("billing", "bill") in uses(catalog, workspace.case.total)
    assert "AMBIGUOUS_PACKAGE_PROVIDER" not in reasons(catalog)


def test_a_cross_repository_call_keeps_its_kind_so_an_edge_kinds_filter_keeps_the_caller(workspace: Workspace):
    case, catalog = workspace.case, workspace.catalog()
    calls = ask(catalog, "find_references", repository="core", path=case.total[0], qualified_name=case.total[1],
                edge_kinds=["CALLS_DIRECT"], view="full")  # fmt: skip
    callers = {(r["repository"], r["qualified_name"], r["edge_kind"]) for r in calls["results"]["references"]}
    assert ("billing", "bill", "CALLS_DIRECT") in callers
    # An import of it is not a call: the same filter leaves it out.
    assert all(kind == "CALLS_DIRECT" for _, _, kind in callers)
    graph = catalog.session.graph  # type: ignore[union-attr]
    kinds = {EDGE_KINDS[k].value for s, t, k in zip(graph.edge_source.tolist(), graph.edge_target.tolist(),
                                                   graph.edge_kind.tolist(), strict=True)
             if graph.repository[s] != graph.repository[t]}  # fmt: skip
    assert "CALLS_DIRECT" in kinds and kinds != {"REFERENCES"}
