"""The exact layer's cost: each SCIP indexer's own time vs kivgraph's whole index time, per language.

Run: .venv/bin/python benchmarks/exact_layer.py [--languages typescript,python,go] [--repeat 3]

For each language it takes a real public project (fetched through the package registries into
benchmarks/.cache), commits it into a scratch git repository, then measures side by side:
  analyzer  the indexer alone, run the way kivgraph runs it (same directory, same flags);
  kivgraph  `index_repository(run_analyzers=True)`: syntax layer + the same indexer + ingestion;
and prints both (median of --repeat), kivgraph's overhead over the analyzer (target ≤ 20 %),
symbols, edges, and the share of edges a type checker resolved (EXACT_TYPECHECKED, or
EXACT_DECLARATION_MAPPED through a .d.ts.map).
"""

import argparse
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from kivgraph.indexing import index_repository
from kivgraph.model import Confidence, EdgeKind, Language
from kivgraph.scip import run
from kivgraph.scip.analyzers import analyzer_environment, analyzer_for, locate
from kivgraph.scip.projects import projects

CACHE = Path(__file__).parent / ".cache"
TYPE_CHECKED = frozenset({Confidence.EXACT_TYPECHECKED, Confidence.EXACT_DECLARATION_MAPPED})
"""A use the type checker resolved, directly or through a declaration map."""


def npm_project(spec: str) -> Path:
    target = CACHE / "npm" / spec.replace("/", "_")
    if not target.exists():
        target.mkdir(parents=True)
        subprocess.run(["npm", "pack", spec, "--silent"], cwd=target, check=True, capture_output=True)
        archive = next(target.glob("*.tgz"))
        subprocess.run(["tar", "xzf", archive.name], cwd=target, check=True)
    return target / "package"


def pypi_project(spec: str, package: str) -> Path:
    target = CACHE / "pypi" / spec
    if not target.exists():
        target.mkdir(parents=True)
        subprocess.run(
            ["pip", "download", "--no-deps", "--no-binary", ":all:", "-d", str(target), spec],
            check=True,
            capture_output=True,
        )
        archive = next(target.glob("*.tar.gz"))
        subprocess.run(["tar", "xzf", archive.name], cwd=target, check=True)
    return next(p for p in target.iterdir() if p.is_dir() and (p / "src" / package).exists() or (p / package).exists())


def go_project(module: str, version: str) -> Path:
    done = subprocess.run(
        ["go", "mod", "download", "-json", f"{module}@{version}"], check=True, capture_output=True, text=True
    )
    import json

    return Path(json.loads(done.stdout)["Dir"])


PROJECTS: dict[Language, Callable[[], Path]] = {
    Language.TYPESCRIPT: lambda: npm_project("rxjs@7.8.2"),
    Language.PYTHON: lambda: pypi_project("click==8.1.7", "click"),
    Language.GO: lambda: go_project("golang.org/x/mod", "v0.22.0"),
}


def scratch_repository(source: Path) -> Path:
    root = Path(tempfile.mkdtemp(prefix="kivgraph-bench-"))
    shutil.copytree(source, root / "repo", symlinks=True, ignore=shutil.ignore_patterns("node_modules", ".git"))
    repo = root / "repo"
    for path in repo.rglob("*"):
        path.chmod(path.stat().st_mode | 0o200)
    env = {
        "GIT_AUTHOR_NAME": "bench",
        "GIT_AUTHOR_EMAIL": "b@x",
        "GIT_COMMITTER_NAME": "bench",
        "GIT_COMMITTER_EMAIL": "b@x",
    }
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "bench"]):
        subprocess.run(["git", *args], cwd=repo, check=True, env={**analyzer_environment(), **env})
    return repo


def analyzer_alone(language: Language, repo: Path) -> float:
    spec = analyzer_for(language)
    assert spec is not None
    found = locate(spec)
    if not found.usable:
        raise SystemExit(f"{spec.name} is not usable: {found.problem}")
    wanted = [p for p in projects([str(f.relative_to(repo)) for f in repo.rglob("*") if f.is_file()],
                                      frozenset({language})) if p.spec is spec]  # fmt: skip
    for project in wanted:
        if project.spec.name == "scip-python" and not (repo / project.root / "pyrightconfig.json").exists():
            (repo / project.root / "pyrightconfig.json").write_text("{}\n", encoding="utf-8")  # as kivgraph does
    started = time.perf_counter()
    for project in wanted:
        output = Path(tempfile.mkdtemp()) / "index.scip"
        subprocess.run(run.command(project, found.path, output), cwd=repo / project.root,
                       env=analyzer_environment(), capture_output=True, check=False)  # fmt: skip
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--languages", default="typescript,python,go")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"seconds, median of {args.repeat}")
    print(f"{'language':<11} {'project':<28} {'analyzer':>9} {'kivgraph':>9} {'overhead':>9} "
          f"{'symbols':>8} {'edges':>8} {'exact':>6}")  # fmt: skip
    for name in args.languages.split(","):
        language = Language(name.strip())
        source = PROJECTS[language]()
        repo = scratch_repository(source)
        alone = statistics.median(analyzer_alone(language, repo) for _ in range(args.repeat))
        timings: list[float] = []
        generation = None
        for _ in range(args.repeat):
            started = time.perf_counter()
            generation = index_repository(str(repo), run_analyzers=True, languages=frozenset({language}))
            timings.append(time.perf_counter() - started)
        assert generation is not None
        uses = [e for e in generation.edges if e.kind is not EdgeKind.METHOD_OF]
        exact = sum(e.confidence in TYPE_CHECKED for e in uses) / max(len(uses), 1)
        whole = statistics.median(timings)
        label = f"{source.parent.name}/{source.name}"
        overhead = (whole - alone) / alone if alone else float("nan")
        print(
            f"{language.value:<11} {label:<28.28} {alone:>9.2f} {whole:>9.2f} {overhead:>8.0%} "
            f"{len(generation.symbols):>8,} {len(generation.edges):>8,} {exact:>6.0%}"
        )
        shutil.rmtree(repo.parent, ignore_errors=True)


if __name__ == "__main__":
    main()
