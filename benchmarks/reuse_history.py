"""Reuse across commits on real history: each commit indexed on its parent's generation, against
a full index of it.

    python benchmarks/reuse_history.py REPOSITORY COMMIT [COMMIT ...] [--languages go] [--json FILE]

REPOSITORY is cloned into a scratch directory (its notes are never touched). For each COMMIT: its
first parent is indexed in full into the clone's notes, then the commit is indexed on that note
(`kivgraph index --commit`, timed: what CI does on a push) and in full into a file (timed), and
the two generations are compared table by table (only created_at may differ). Printed per commit:
the units re-indexed of all, why each was, both times and whether the two are identical. The full
index runs second, on the Go build cache the reuse warmed: compare times within a row with that in
mind. The README's figures for charmbracelet/x and opentelemetry-go come from this script.
"""

import argparse
import json
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from kivgraph.store import load_from_file, load_from_notes
from kivgraph.store.git import open_repository

TABLES = ("files", "packages", "symbols", "edges", "external_references", "unresolved", "invisible_scopes")


def kivgraph() -> list[str]:
    script = Path(sys.executable).with_name("kivgraph")
    return [str(script)] if script.exists() else [sys.executable, "-m", "kivgraph"]


def run(args: list[str], log: Path) -> tuple[float, str]:
    """Run a kivgraph command; (seconds, stdout). Its stderr goes to `log`; a failure stops the run."""
    started = time.monotonic()
    with log.open("w", encoding="utf-8") as err:
        done = subprocess.run(args, stdout=subprocess.PIPE, stderr=err, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"{' '.join(args)} failed ({done.returncode}); see {log}")
    return time.monotonic() - started, done.stdout


@dataclass(frozen=True, slots=True)
class Row:
    commit: str
    units: int
    reindexed: dict[str, str]
    """Each unit re-indexed → why."""
    reuse_s: float
    full_s: float
    differing: list[str]


def measure(clone: Path, commit: str, languages: list[str], work: Path) -> Row:
    sha = subprocess.run(["git", "-C", str(clone), "rev-parse", commit], capture_output=True, text=True,
                         check=True).stdout.strip()  # fmt: skip
    index = [*kivgraph(), "index", str(clone), *languages]
    run([*index, "--commit", f"{sha}^", "--full"], work / f"{sha[:12]}-parent.log")
    reuse_s, answer = run([*index, "--commit", sha, "--json"], work / f"{sha[:12]}-reuse.log")
    full = work / f"{sha[:12]}-full.kgen"
    full_s, _ = run([*index, "--commit", sha, "--full", "--out", str(full)], work / f"{sha[:12]}-full.log")
    stored, whole = load_from_notes(open_repository(str(clone)), sha), load_from_file(str(full))
    differing = [t for t in TABLES if getattr(stored, t) != getattr(whole, t)]
    if replace(stored.header, created_at="") != replace(whole.header, created_at=""):
        differing.append("header")
    units: list[dict[str, object]] = json.loads(answer).get("reused", {}).get("units", [])
    reindexed = {str(u["unit"]): str(u["why"]) for u in units if not u["reused"]}
    return Row(sha, len(units), reindexed, reuse_s, full_s, differing)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("repository", help="a git repository (a bare mirror will do); it is cloned, never written")
    parser.add_argument("commits", nargs="+", metavar="COMMIT")
    parser.add_argument("--languages", help="passed to `kivgraph index --languages`")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON to FILE")
    args = parser.parse_args()
    languages = ["--languages", args.languages] if args.languages else []
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="kivgraph-history-") as scratch:
        work = Path(scratch)
        clone = work / "clone"
        subprocess.run(["git", "clone", "-q", args.repository, str(clone)], check=True)
        print("| commit | units re-indexed | reuse s | full s | identical |\n|---|---:|---:|---:|---|")
        for commit in args.commits:
            row = measure(clone, commit, languages, work)
            rows.append(row)
            verdict = f"no: {', '.join(row.differing)} differ" if row.differing else "yes"
            print(f"| {row.commit[:12]} | {len(row.reindexed)} of {row.units} | {row.reuse_s:.1f} | {row.full_s:.1f} | "
                  f"{verdict} |", flush=True)  # fmt: skip
            for unit, why in sorted(row.reindexed.items()):
                print(f"|   {unit}: {why} | | | | |", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps([asdict(r) for r in rows], indent=2), encoding="utf-8")
    if any(row.differing for row in rows):
        sys.exit("some commit's reused generation differs from its full index")


if __name__ == "__main__":
    main()
