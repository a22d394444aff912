"""diff-impact with the base generation in notes vs re-indexing the head, on a ~100k-symbol repository.

Run: .venv/bin/python benchmarks/diff_impact_bench.py [--max-mb 12] [--repeat 3]

It commits Go's standard library sources (GOROOT/src, without testdata) into a scratch git
repository, indexes that commit (syntax layer, stored in notes as CI would on the default
branch), then makes a pull request that edits a few function bodies and one signature, and
measures side by side (median of --repeat):
  diff-impact   `kivgraph.impact.analysis.analyze(base, head)`: diff, parse the changed files at
                both revisions, load the base generation from notes, blast radius of each change;
  re-index      indexing the head commit from scratch, what a tool without stored generations pays
                before it can answer anything.
Targets: diff-impact ≤ 3 s, and at least 10× faster than re-indexing.
"""

import argparse
import re
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from kivgraph.impact.analysis import analyze
from kivgraph.indexing import index_repository
from kivgraph.store import save_to_notes
from kivgraph.store.git import open_repository

GIT = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]
FUNCTION = re.compile(rb"^func (\w+)\(([^)]*)\) (\w+) \{$", re.MULTILINE)


def corpus(max_mb: float) -> list[Path]:
    goroot = subprocess.run(["go", "env", "GOROOT"], capture_output=True, text=True, check=True).stdout.strip()
    files, total = [], 0
    for path in sorted(Path(goroot, "src").rglob("*.go")):
        if "testdata" in path.parts or path.name.endswith("_test.go"):
            continue
        total += path.stat().st_size
        if total > max_mb * 1024 * 1024:
            break
        files.append(path)
    return files


def build(max_mb: float) -> tuple[Path, Path]:
    scratch = Path(tempfile.mkdtemp(prefix="kivgraph-diffbench-"))
    repo = scratch / "std"
    files = corpus(max_mb)
    goroot = Path(subprocess.run(["go", "env", "GOROOT"], capture_output=True, text=True, check=True).stdout.strip())
    for path in files:
        target = repo / path.relative_to(goroot / "src")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    (repo / "go.mod").write_text("module std\n\ngo 1.22\n", encoding="utf-8")
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "base"]):
        subprocess.run([*GIT, *args], cwd=repo, check=True)
    return scratch, repo


def pull_request(repo: Path) -> int:
    """Edit the bodies of a few exported functions with callers, and one signature; commit."""
    edited = 0
    for path in sorted(repo.rglob("*.go")):
        source = path.read_bytes()
        match = FUNCTION.search(source)
        if match is None or not match.group(1)[:1].isupper():
            continue
        start = match.end()
        if edited == 0:
            source = source[: match.start(2)] + match.group(2) + b", extra int" + source[match.end(2) :]
        else:
            source = source[:start] + b"\n\t_ = 0" + source[start:]
        path.write_bytes(source)
        edited += 1
        if edited == 8:
            break
    subprocess.run([*GIT, "commit", "-qam", "pull request"], cwd=repo, check=True)
    return edited


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--max-mb", type=float, default=12)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    scratch, repo = build(args.max_mb)
    try:
        started = time.perf_counter()
        generation = index_repository(str(repo), run_analyzers=False)
        save_to_notes(open_repository(str(repo)), generation)
        took = time.perf_counter() - started
        print(f"base: {len(generation.symbols):,} symbols, {len(generation.edges):,} edges, "
              f"{len(generation.files):,} files, indexed and noted in {took:.1f}s")  # fmt: skip
        edited = pull_request(repo)
        impacts, reindexes = [], []
        impact = None
        for _ in range(args.repeat):
            started = time.perf_counter()
            impact = analyze(str(repo), "HEAD~1", "HEAD")
            impacts.append(time.perf_counter() - started)
            started = time.perf_counter()
            index_repository(str(repo), run_analyzers=False)
            reindexes.append(time.perf_counter() - started)
        assert impact is not None
        alone, full = statistics.median(impacts), statistics.median(reindexes)
        print(f"pull request: {edited} functions edited (1 signature), {len(impact.changed)} changed symbols, "
              f"{len(impact.affected):,} affected")  # fmt: skip
        print(f"{'measure':<34} {'median s':>9}  target")
        print(f"{'diff-impact (base note present)':<34} {alone:>9.2f}  ≤ 3 s: {'met' if alone <= 3 else 'NOT MET'}")
        print(f"{'re-index of head (syntax layer)':<34} {full:>9.2f}")
        ratio = full / alone
        print(f"{'re-index ÷ diff-impact':<34} {ratio:>9.1f}  ≥ 10×: {'met' if ratio >= 10 else 'NOT MET'}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
