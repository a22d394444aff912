"""Syntax-layer indexing throughput vs raw tree-sitter parsing, per language, on real code.

Run: .venv/bin/python benchmarks/index_throughput.py [--languages python,go,...] [--max-mb 8] [--repeat 3]

For each language it gathers a corpus of real source from this machine (fetching a few public
packages through the package registries into benchmarks/.cache when needed), then measures, in
one process and side by side:
  raw     tree-sitter `parser.parse()` of every file, nothing else;
  syntax  the syntax layer: the language adapter's `parse()` (tree-sitter parse + query
          extraction of declarations, imports, bindings and references) on every file;
  index   the whole pipeline on the same files: syntax layer + cross-file resolution + stable
          keys + encoding the generation.
and prints MB/s for each (median of --repeat runs), the syntax layer's share of raw speed
(target: ≥ 0.5), the whole pipeline's, symbols and edges produced, and bytes per symbol and per
edge of the encoded generation.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import time
from collections.abc import Callable
from pathlib import Path

from kivgraph.indexing import index_snapshot, parse_files
from kivgraph.languages import EXTENSIONS, language_of
from kivgraph.languages.treesitter import parser
from kivgraph.model import Language
from kivgraph.snapshot import Snapshot, TreeFile
from kivgraph.store import codec

CACHE = Path(__file__).parent / ".cache"
GRAMMAR_OF_EXTENSION = {".tsx": "tsx", ".ts": "typescript", ".mts": "typescript", ".cts": "typescript"}


def python_corpus() -> list[Path]:
    root = Path(sys.base_prefix) / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}"
    return [p for p in sorted(root.rglob("*.py")) if "site-packages" not in p.parts and "test" not in p.parts]


def go_corpus() -> list[Path]:
    goroot = subprocess.run(["go", "env", "GOROOT"], capture_output=True, text=True, check=True).stdout.strip()
    return [p for p in sorted(Path(goroot, "src").rglob("*.go")) if "testdata" not in p.parts]


def npm_package(spec: str) -> Path:
    target = CACHE / "npm" / spec.replace("/", "_")
    if not target.exists():
        target.mkdir(parents=True)
        name = (
            subprocess.run(["npm", "pack", spec, "--silent"], cwd=target, capture_output=True, text=True, check=True)
            .stdout.strip()
            .splitlines()[-1]
        )
        with tarfile.open(target / name) as archive:
            archive.extractall(target, filter="data")
    return target


def typescript_corpus() -> list[Path]:
    """rxjs's sources, then TypeScript's own library declarations."""
    files: list[Path] = []
    for spec in ("rxjs@7.8.2", "typescript@5.6.3"):
        files += [p for p in sorted(npm_package(spec).rglob("*.ts")) if "node_modules" not in p.parts]
    return files


def javascript_corpus() -> list[Path]:
    files: list[Path] = []
    for spec in ("lodash@4.17.21", "eslint@8.57.0"):
        files += sorted(npm_package(spec).rglob("*.js"))
    return files


def rust_corpus() -> list[Path]:
    project = CACHE / "cargo-corpus"
    if not project.exists():
        (project / "src").mkdir(parents=True)
        (project / "src" / "lib.rs").write_text("", encoding="utf-8")
        (project / "Cargo.toml").write_text(
            '[package]\nname = "corpus"\nversion = "0.0.0"\nedition = "2021"\n\n'
            '[dependencies]\nserde = "=1.0.215"\nregex-syntax = "=0.8.5"\n',
            encoding="utf-8",
        )
    subprocess.run(["cargo", "fetch", "--quiet"], cwd=project, check=True)
    home = Path(os.environ.get("CARGO_HOME", Path.home() / ".cargo"))
    files: list[Path] = []
    for crate in ("serde-1.0.215", "regex-syntax-0.8.5"):
        for registry in (home / "registry" / "src").iterdir():
            if (registry / crate).exists():
                files += sorted((registry / crate).rglob("*.rs"))
                break
    return files


def dart_corpus() -> list[Path]:
    """No Dart SDK or pub mirror is reachable here: the fixtures, which are real Dart, stand in."""
    root = Path(__file__).parent.parent / "tests" / "fixtures" / "dart"
    return sorted(root.rglob("*.dart"))


CORPORA: dict[Language, Callable[[], list[Path]]] = {
    Language.PYTHON: python_corpus,
    Language.GO: go_corpus,
    Language.TYPESCRIPT: typescript_corpus,
    Language.JAVASCRIPT: javascript_corpus,
    Language.RUST: rust_corpus,
    Language.DART: dart_corpus,
}


def load(files: list[Path], max_bytes: int) -> list[tuple[str, bytes]]:
    common = Path(os.path.commonpath([str(f.parent) for f in files])) if files else Path("/")
    loaded: list[tuple[str, bytes]] = []
    total = 0
    for f in files:
        data = f.read_bytes()
        if total + len(data) > max_bytes:
            break
        loaded.append((f.relative_to(common).as_posix(), data))
        total += len(data)
    return loaded


def grammar_for(language: Language, path: str) -> str:
    ext = path[path.rfind(".") :]
    return GRAMMAR_OF_EXTENSION.get(ext, language.value)


def raw_parse(language: Language, sources: list[tuple[str, bytes]]) -> None:
    parsers: dict[str, object] = {}
    for path, data in sources:
        name = grammar_for(language, path)
        p = parsers.get(name) or parsers.setdefault(name, parser(name))
        p.parse(data)  # type: ignore[attr-defined]


def syntax_layer(language: Language, sources: list[tuple[str, bytes]], jobs: int = 1) -> None:
    """The adapters' parse() over every file, as indexing runs it (in `jobs` processes)."""
    for _ in parse_files([(tree_file(path, data), language) for path, data in sources], jobs):
        pass


def tree_file(path: str, data: bytes) -> TreeFile:
    return TreeFile(path, len(data), "0" * 40, False, lambda: data)


def full_index(language: Language, sources: list[tuple[str, bytes]], jobs: int) -> tuple[int, int, int]:
    snap = Snapshot("bench", "", "0" * 40, "0" * 40, False)
    snap.files = [tree_file(path, data) for path, data in sources]
    generation = index_snapshot(snap, frozenset({language}), jobs=jobs)
    blob = codec.encode(generation)
    return len(generation.symbols), len(generation.edges), len(blob)


def median_seconds(action: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def measure(language: Language, max_bytes: int, repeat: int, jobs: int) -> None:
    try:
        files = [f for f in CORPORA[language]() if language_of(f.name) is language]
    except (OSError, subprocess.CalledProcessError) as err:
        print(f"{language.value:<11} corpus unavailable: {err}")
        return
    sources = load(files, max_bytes)
    if not sources:
        print(f"{language.value:<11} no files found")
        return
    megabytes = sum(len(d) for _, d in sources) / 1e6
    syntax_layer(language, sources)  # warm: grammars and queries compile once per process
    raw = median_seconds(lambda: raw_parse(language, sources), repeat)
    syntax = median_seconds(lambda: syntax_layer(language, sources), repeat)
    parallel = median_seconds(lambda: syntax_layer(language, sources, jobs), repeat)
    result: list[tuple[int, int, int]] = []
    index = median_seconds(lambda: result.append(full_index(language, sources, jobs)), repeat)
    symbols, edges, size = result[-1]
    print(
        f"{language.value:<11} {len(sources):>6} {megabytes:>5.1f} {megabytes / raw:>6.1f} "
        f"{megabytes / syntax:>7.1f} {megabytes / parallel:>8.1f} {megabytes / index:>6.1f} "
        f"{raw / syntax:>8.2f} {raw / parallel:>8.2f} {raw / index:>8.2f} "
        f"{symbols:>8,} {edges:>8,} {size / max(symbols, 1):>6.1f} {size / max(edges, 1):>7.1f}"
    )


def main() -> None:
    parser_ = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser_.add_argument("--languages", default=",".join(lang.value for lang in CORPORA))
    parser_.add_argument("--max-mb", type=float, default=8.0, help="cap each corpus at this many MB")
    parser_.add_argument("--repeat", type=int, default=3)
    parser_.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes for parsing")
    args = parser_.parse_args()
    print(f"MB/s, median of {args.repeat}; syntax-N and index use {args.jobs} processes")
    print(
        f"{'language':<11} {'files':>6} {'MB':>5} {'raw':>6} {'syntax':>7} {'syntax-N':>8} {'index':>6} "
        f"{'syn/raw':>8} {'synN/raw':>8} {'idx/raw':>8} {'symbols':>8} {'edges':>8} {'B/sym':>6} {'B/edge':>7}"
    )
    for name in args.languages.split(","):
        measure(Language(name.strip()), int(args.max_mb * 1024 * 1024), args.repeat, args.jobs)
    assert set(CORPORA) == set(EXTENSIONS)
    shutil.rmtree(CACHE / "tmp", ignore_errors=True)


if __name__ == "__main__":
    main()
