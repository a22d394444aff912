"""Where the type checkers run in a tree: one project per tsconfig (topmost), go.mod, Cargo
workspace and Python project root (and the Python files outside every root); where Python imports
are found; the languages present with no project to run on; and which blind spots mean a type
checker that should have run did not.

Apart from running them (kivgraph/scip/run.py), so that a plan (kivgraph/plan.py) and a merge of
shards name projects without loading the indexers' machinery."""

from collections.abc import Iterable
from dataclasses import dataclass

from kivgraph.errors import IndexingFailedError
from kivgraph.languages.python.modules import python_roots, python_search_paths
from kivgraph.model import InvisibleScope, Language
from kivgraph.scip.analyzers import AnalyzerSpec, analyzer_for


@dataclass(frozen=True, slots=True)
class Project:
    """One run of one indexer: the directory (repository-relative) it indexes."""

    spec: AnalyzerSpec
    root: str
    language: Language
    roots: tuple[str, ...] = ()
    """Python: every project root of the tree; a file is the project's of the deepest holding it."""
    search: tuple[str, ...] = ()
    """Python: where imports are found beside the top of the tree, the same for every project."""

    @property
    def id(self) -> str:
        """How a plan names it (kivgraph/plan.py): `scip-go:lib`, `scip-python:.`."""
        return f"{self.spec.name}:{self.root or '.'}"

    @property
    def documents_root(self) -> str:
        """The directory its index's document paths are relative to: its root, but the top of the
        tree for Python, where scip-python runs so that a module has one name in every project."""
        return "" if self.language is Language.PYTHON else self.root

    def owns(self, path: str) -> bool:
        """Python: whether a tree path is this project's — the deepest project root holding it is its root."""
        roots = self.roots or (self.root,)
        return max((r for r in roots if r == "" or path.startswith(r + "/")), key=len, default=None) == self.root

    @property
    def nested(self) -> tuple[str, ...]:
        """Python: the roots of the projects inside this one, whose files are theirs."""
        return tuple(r for r in self.roots if r != self.root and (not self.root or r.startswith(self.root + "/")))


def projects(paths: Iterable[str], languages: frozenset[Language]) -> list[Project]:
    """Where each indexer must run for the files of the tree."""
    paths = sorted(paths)
    found: list[Project] = []

    def topmost(manifest: str) -> list[str]:
        dirs = sorted({p.rpartition("/")[0] for p in paths if p.rpartition("/")[2] == manifest})
        dirs = [d for d in dirs if "node_modules" not in d.split("/")]
        return [d for d in dirs if not any(d != o and (o == "" or d.startswith(o + "/")) for o in dirs)]

    typescript = analyzer_for(Language.TYPESCRIPT)
    if typescript is not None and languages & {Language.TYPESCRIPT, Language.JAVASCRIPT}:
        found += [Project(typescript, d, Language.TYPESCRIPT) for d in topmost("tsconfig.json")]
    python = analyzer_for(Language.PYTHON)
    if python is not None and Language.PYTHON in languages:
        roots, search = python_roots(paths), tuple(python_search_paths(paths))
        found += [Project(python, r, Language.PYTHON, tuple(roots), search) for r in roots]
    go = analyzer_for(Language.GO)
    if go is not None and Language.GO in languages:
        modules = sorted({p.rpartition("/")[0] for p in paths if p.rpartition("/")[2] == "go.mod"})
        found += [Project(go, d, Language.GO) for d in modules]
    rust = analyzer_for(Language.RUST)
    if rust is not None and Language.RUST in languages:
        found += [Project(rust, d, Language.RUST) for d in topmost("Cargo.toml")]
    return found


def unconfigured(paths: Iterable[str], languages: frozenset[Language]) -> list[InvisibleScope]:
    """Languages present with no project an indexer could run on (TypeScript without a tsconfig)."""
    paths = list(paths)
    scopes: list[InvisibleScope] = []
    scripts = languages & {Language.TYPESCRIPT, Language.JAVASCRIPT}
    if scripts and not any(p.rpartition("/")[2] == "tsconfig.json" for p in paths):
        for language in sorted(scripts):
            scopes.append(InvisibleScope("PROJECT_NOT_CONFIGURED", language, ".", "",
                                         "no tsconfig.json: scip-typescript has no project to check"))  # fmt: skip
    return scopes


ANALYZER_FAILURES = frozenset({"ANALYZER_UNAVAILABLE", "ANALYZER_TIMEOUT", "ANALYZER_CRASHED", "ANALYZER_EMPTY_INDEX"})
"""Invisible-scope reasons that mean a type checker that should have run did not: what
`kivgraph index --require-analyzers` refuses to store."""


def require_analyzers_ran(scopes: Iterable[InvisibleScope], written: str = "nothing was stored") -> None:
    """Raise IndexingFailedError naming each type checker that should have run and did not."""
    failed = [scope for scope in scopes if scope.reason in ANALYZER_FAILURES]
    if failed:
        listed = "; ".join(f"{scope.language} at {scope.scope}: {scope.reason} ({scope.detail})" for scope in failed)
        raise IndexingFailedError(f"a required type checker did not run, so {written}: {listed}. "
                                  "Install it (`kivgraph doctor` says how) or drop --require-analyzers.")  # fmt: skip
