"""Monorepo indexing: one job against shards plus a merge, on a monorepo of real Go modules.

    python benchmarks/monorepo_bench.py [--modules DIR ... | [--small] [--add MODULE@VERSION ...] |
                                         --repository DIR] [--shards 4] [--repeat 3] [--json FILE]

The monorepo is built from modules in the Go module cache (`go env GOMODCACHE`; by default the 41
of CORE_MODULES and MORE_MODULES, with `--small` the 20 of CORE_MODULES, each downloaded first when
the cache has it not — or the directories given), each copied with its go.mod
under mods/<name>/ of a fresh git repository and committed. A module that requires another of the
tree at the version the tree holds builds against that sibling, by a `replace` in its go.mod, as
the modules of a monorepo do (uses of a sibling it requires at another version stay uses of the
published module). With `--repository DIR`, a clone of a real Go monorepo at its HEAD is measured
instead (charmbracelet/x, for one). Measured:
  (a) `kivgraph index --languages go --out` of the commit, in one process;
  (b) `kivgraph index --shard K/N` for each shard, one after another (each alone on the machine, as
      on a machine of its own), then `kivgraph merge`; the critical path is the longest shard plus
      the merge;
(a) then (b), `--repeat` times over, side by side: the figures are medians, the ratio the median of
each round's; and whether (b)'s generation equals (a)'s (every table; only created_at may differ).
An untimed first pass warms Go's module and build caches, so no variant pays for downloads the
others reuse. The target of issue 15: (b)'s critical path ≤ 0.35 × (a).

Also printed: (b) at perfect balance, the shards' mean plus the merge. Between it and a quarter of
(a) is what each shard does beyond its share (Python's start, the snapshot and the plan before its
first type checker, the units it parses for their declarations) and the merge; between it and the
critical path, how unevenly the units split. The first costs do not grow with the tree, so they
weigh most on `--small` (one job ~10 s, less than a CI matrix costs to start), the default tree is
twice its size: README.md gives both figures.
"""

import argparse
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from statistics import median
from typing import Any

from kivgraph.model import Generation
from kivgraph.store import load_from_file

CORE_MODULES = (
    "github.com/modelcontextprotocol/go-sdk@v0.8.0",
    "github.com/stretchr/testify@v1.12.1",
    "github.com/stretchr/objx@v0.5.3",
    "github.com/alecthomas/kong@v1.16.1",
    "golang.org/x/mod@v0.42.0",
    "golang.org/x/sync@v0.19.0",
    "github.com/scip-code/scip-go@v0.2.9",
    "github.com/charmbracelet/x/ansi@v0.10.1",
    "github.com/charmbracelet/lipgloss@v1.1.0",
    "github.com/charmbracelet/bubbletea@v1.3.10",
    "github.com/rivo/uniseg@v0.4.7",
    "github.com/google/uuid@v1.6.0",
    "github.com/google/go-cmp@v0.7.0",
    "github.com/fsnotify/fsnotify@v1.9.0",
    "gopkg.in/yaml.v3@v3.0.1",
    "github.com/BurntSushi/toml@v1.4.1-0.20240526193622-a339e1f7089c",
    "github.com/go-logr/logr@v1.4.3",
    "github.com/dlclark/regexp2@v1.10.0",
    "github.com/bits-and-blooms/bitset@v1.22.0",
    "github.com/shopspring/decimal@v1.4.0",
)
"""Twenty modules of a few hundred kilobytes of Go each, several using others (lipgloss and
bubbletea use ansi and uniseg, testify uses objx and yaml, scip-go uses kong and mod): no unit is
more than a sixth of the work. A unit is never split, so a tree whose largest unit outweighs a
shard's share cannot do better than that unit (`--add golang.org/x/text@v0.3.8`, 37 MB of
generated Unicode tables: more than half of all the parsing)."""
MORE_MODULES = (
    "github.com/yuin/goldmark@v1.8.7",
    "github.com/spf13/pflag@v1.1.0",
    "github.com/spf13/cobra@v1.10.2",
    "github.com/gorilla/mux@v1.8.1",
    "github.com/gorilla/websocket@v1.5.3",
    "github.com/pelletier/go-toml/v2@v2.4.3",
    "github.com/google/btree@v1.1.3",
    "github.com/hashicorp/golang-lru/v2@v2.0.7",
    "github.com/Masterminds/semver/v3@v3.5.0",
    "github.com/mitchellh/mapstructure@v1.5.0",
    "github.com/sirupsen/logrus@v1.10.2",
    "github.com/tidwall/gjson@v1.20.4",
    "github.com/tidwall/match@v1.2.0",
    "github.com/tidwall/pretty@v1.3.0",
    "github.com/valyala/fastjson@v1.6.10",
    "github.com/json-iterator/go@v1.1.12",
    "go.uber.org/zap@v1.28.0",
    "go.uber.org/multierr@v1.11.0",
    "github.com/urfave/cli/v2@v2.27.7",
    "github.com/expr-lang/expr@v1.17.8",
    "github.com/miekg/dns@v1.1.73",
)
"""21 more modules (41 in all, twice the small tree), of 17 KB to 1.4 MB of Go each, some using
others (cobra uses pflag, gjson match and pretty, zap multierr; zap, multierr and cli replace
yaml.v3, whose go.mod has no `go` line). They found a merge that differed from one job: `go mod
download` had written a go line into yaml.v3's go.mod, which zap's go command then read."""
INCREMENTAL = ("leaf", "library", "addition", "removal")
"""The (c) changes, each committed on the one before and indexed on its generation (`reuse`)."""
ADDED = "\nfunc KivgraphBenchAdded() int { return 1 }\n"
TABLES = ("files", "packages", "symbols", "edges", "external_references", "unresolved", "invisible_scopes")


def progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def kivgraph() -> list[str]:
    script = Path(sys.executable).with_name("kivgraph")
    return [str(script)] if script.exists() else [sys.executable, "-m", "kivgraph"]


def escaped(module: str) -> str:
    """The module cache's spelling of a module path: an upper-case letter as `!` and its lower case."""
    return "".join(f"!{c.lower()}" if c.isupper() else c for c in module)


def module_cache() -> Path:
    done = subprocess.run(["go", "env", "GOMODCACHE"], capture_output=True, text=True, check=True)
    return Path(done.stdout.strip())


def build(modules: list[Path], root: Path) -> None:
    root.mkdir(parents=True)
    for module in modules:
        name = module.name.replace("@", "-")
        target = root / "mods" / name
        shutil.copytree(module, target, ignore=shutil.ignore_patterns(".git"))
        for directory, _, files in os.walk(target):  # the module cache is read-only
            os.chmod(directory, 0o755)
            for file in files:
                path = Path(directory) / file
                path.chmod(path.stat().st_mode | stat.S_IWUSR)
    link_siblings(root / "mods")
    git = ["git", "-C", str(root), "-c", "user.name=bench", "-c", "user.email=bench@example.com"]
    subprocess.run([*git, "init", "-q", "-b", "main"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "a monorepo of Go modules"], check=True)


MODULE_LINE = re.compile(r"^module\s+\"?([^\s\"]+)", re.MULTILINE)


def link_siblings(mods: Path) -> None:
    """In each module's go.mod, `replace` every sibling it requires at the version the tree holds
    (mods/<name>-<version>) by its directory."""
    held: dict[str, tuple[str, str]] = {}  # module path → (version, directory)
    for directory in sorted(mods.iterdir()):
        found = MODULE_LINE.search((directory / "go.mod").read_text(encoding="utf-8"))
        if found:
            held[found.group(1)] = (directory.name.rpartition("-v")[2], directory.name)
    for directory in sorted(mods.iterdir()):
        go_mod = directory / "go.mod"
        text = go_mod.read_text(encoding="utf-8")
        replaced = [f"replace {path} => ../{name}" for path, (version, name) in sorted(held.items())
                    if name != directory.name and requires(text, path, version)]  # fmt: skip
        if replaced:
            go_mod.write_text(text.rstrip("\n") + "\n\n" + "\n".join(replaced) + "\n", encoding="utf-8")


def requires(go_mod: str, path: str, version: str) -> bool:
    """Whether `go_mod` requires module `path` at v`version`."""
    line = rf"^\s*(require\s+)?{re.escape(path)}\s+v{re.escape(version)}\s"
    return re.search(line, go_mod, re.MULTILINE) is not None


def timed(command: list[str], log: Path, stdout: Path | None = None) -> float:
    """Seconds `command` took; its output goes to `log` (its stdout to `stdout` when given)."""
    started = time.monotonic()
    with log.open("w") as out, (stdout or log).open("a") as answer:
        done = subprocess.run(command, stdout=answer if stdout else out, stderr=out, check=False)
    elapsed = time.monotonic() - started
    if done.returncode != 0:
        sys.exit(f"Error: {' '.join(command)} failed (exit {done.returncode}); see {log}")
    return elapsed


def run(args: argparse.Namespace) -> dict[str, Any]:
    cache = module_cache()
    modules: list[Path] = []
    if args.repository:
        if not (Path(args.repository) / ".git").exists():
            sys.exit(f"Error: {args.repository} is not a git repository")
    elif args.modules:
        modules = [Path(m) for m in args.modules]
    else:
        wanted = [*CORE_MODULES, *(() if args.small else MORE_MODULES), *(args.add or [])]
        missing = [m for m in wanted if not (cache / escaped(m) / "go.mod").exists()]
        if missing:
            progress(f"downloading {len(missing)} modules missing from {cache}…")
            subprocess.run(["go", "mod", "download", *missing], cwd=tempfile.gettempdir(), check=False)
        modules = [cache / escaped(m) for m in wanted if (cache / escaped(m) / "go.mod").exists()]
    if not modules and not args.repository:
        sys.exit(f"Error: no Go modules found in {cache}; pass --modules DIR ...")
    with tempfile.TemporaryDirectory(prefix="kivgraph-monorepo-bench-") as directory:
        work = Path(directory)
        repo = work / "mono"
        if args.repository:  # a clone: its notes are not taken, and (c) commits only there
            progress(f"cloning {args.repository}…")
            subprocess.run(["git", "clone", "-q", str(args.repository), str(repo)], check=True)
        else:
            progress(f"building a monorepo of {len(modules)} modules from {cache}…")
            build(modules, repo)
        plan = json.loads(subprocess.run([*kivgraph(), "plan", str(repo), "--languages", "go", "--shards",
                                          str(args.shards), "--json"], capture_output=True, text=True,
                                         check=True).stdout)  # fmt: skip
        # Untimed: the first type-checker run downloads the modules' requirements and fills Go's build
        # cache; every variant below then runs as warm as a CI cache would make it.
        progress("warming the Go module and build caches (untimed)…")
        timed([*kivgraph(), "index", str(repo), "--languages", "go", "--shard", "1/1", "--out", str(work / "warm")],
              work / "warm.log")  # fmt: skip
        rounds: list[tuple[float, list[float], float]] = []
        for r in range(1, args.repeat + 1):
            progress(f"round {r}/{args.repeat}: (a) one job over {len(plan['units'])} units…")
            one = timed([*kivgraph(), "index", str(repo), "--languages", "go", "--out", str(work / "one.kgen")],
                        work / "one.log")  # fmt: skip
            shards: list[float] = []
            for k in range(1, args.shards + 1):
                shards.append(timed([*kivgraph(), "index", str(repo), "--languages", "go", "--shard",
                                     f"{k}/{args.shards}", "--out", str(work / f"s{k}.kshard")],
                                    work / f"shard-{k}.log"))  # fmt: skip
            files = [str(work / f"s{k}.kshard") for k in range(1, args.shards + 1)]
            merged = timed([*kivgraph(), "merge", *files, "--repo", str(repo), "--out", str(work / "merged.kgen")],
                           work / "merge.log")  # fmt: skip
            rounds.append((one, shards, merged))
            progress(f"    (a) {one:.1f} s · (b) shards {' / '.join(f'{s:.1f}' for s in shards)} s + merge "
                     f"{merged:.1f} s → {(max(shards) + merged) / one:.2f} × (a)")  # fmt: skip
        one = median(r[0] for r in rounds)
        shards = [median(r[1][k] for r in rounds) for k in range(args.shards)]
        merged = median(r[2] for r in rounds)
        a, b = load_from_file(str(work / "one.kgen")), load_from_file(str(work / "merged.kgen"))
        differing = differences(a, b)
        incremental = [reuse(repo, work, plan, kind) for kind in INCREMENTAL]
        return {
            "source": args.repository or [str(m) for m in modules], "units": len(plan["units"]),
            "shards": args.shards,
            "files": len(a.files), "symbols": len(a.symbols), "edges": len(a.edges),
            "one_job_s": one, "shard_s": shards, "merge_s": merged, "rounds": len(rounds),
            "critical_path_s": median(max(r[1]) + r[2] for r in rounds),
            "balanced_s": median(sum(r[1]) / len(r[1]) + r[2] for r in rounds),
            "ratio": median((max(r[1]) + r[2]) / r[0] for r in rounds),
            "shard_bytes": [s["bytes"] for s in plan["shards"]], "identical": not differing, "differing": differing,
            "incremental": incremental,
        }  # fmt: skip


def differences(a: Generation, b: Generation) -> list[str]:
    differing = [t for t in TABLES if getattr(a, t) != getattr(b, t)]
    if replace(a.header, created_at="") != replace(b.header, created_at=""):
        differing.append("header")
    return differing


def reuse(repo: Path, work: Path, plan: dict[str, Any], kind: str) -> dict[str, Any]:
    """(c): commit a change, index it on the previous commit's generation (`--reuse`), and index it
    in full (untimed here: (a) is the full figure) to check the two are identical.

    leaf: a comment in one file of the smallest unit nothing depends on; library: a comment in the
    unit most others depend on; addition: a new exported function in that unit (its dependents are
    kept: none spells its name); removal: that function removed again (a change of its public
    surface: its dependents are re-indexed too)."""
    units = plan["units"]
    dependents = {u["id"]: sum(u["id"] in v["depends_on"] for v in units) for u in units}
    if kind == "leaf":
        unit = min((u for u in units if dependents[u["id"]] == 0), key=lambda u: u["bytes"])
    else:
        unit = max(units, key=lambda u: (dependents[u["id"]], u["bytes"]))
    root = repo / unit["root"]
    sources = sorted(p for p in root.rglob("*.go") if not p.name.endswith("_test.go") and "testdata" not in p.parts)
    target = next((p for p in sources if p.parent == root), sources[0])
    text = target.read_text(encoding="utf-8")
    if kind == "removal":
        target.write_text(text.replace(ADDED, ""), encoding="utf-8")
    else:
        target.write_text(text + (ADDED if kind == "addition" else "\n// touched\n"), encoding="utf-8")
    git = ["git", "-C", str(repo), "-c", "user.name=bench", "-c", "user.email=bench@example.com"]
    base = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    subprocess.run([*git, "commit", "-q", "-am", f"bench: {kind} change"], check=True)
    earlier = INCREMENTAL.index(kind) - 1
    before = work / ("one.kgen" if earlier < 0 else f"reuse-{INCREMENTAL[earlier]}.kgen")
    out = work / f"reuse-{kind}.kgen"
    progress(f"(c) {kind}: {target.relative_to(repo)} changed, indexing on {base[:12]}'s generation…")
    answer = work / f"reuse-{kind}.json"
    seconds = timed([*kivgraph(), "index", str(repo), "--languages", "go", "--reuse", str(before), "--out", str(out),
                     "--json"], work / f"reuse-{kind}.log", answer)  # fmt: skip
    report = json.loads(answer.read_text(encoding="utf-8"))
    full = work / f"full-{kind}.kgen"
    timed([*kivgraph(), "index", str(repo), "--languages", "go", "--full", "--out", str(full)], work / "full.log")
    differing = differences(load_from_file(str(out)), load_from_file(str(full)))
    reindexed = [u["unit"] for u in report.get("reused", {}).get("units", []) if not u["reused"]]
    progress(f"    {seconds:.1f} s, {len(reindexed)} of {len(units)} units re-indexed")
    return {"kind": kind, "file": str(target.relative_to(repo)), "seconds": seconds, "reindexed": reindexed,
            "identical": not differing, "differing": differing}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--modules", nargs="+", metavar="DIR",
                        help="Go module directories (default: CORE_MODULES and MORE_MODULES)")  # fmt: skip
    parser.add_argument("--add", nargs="+", metavar="MODULE@VERSION", help="modules of the module cache to add")
    parser.add_argument("--small", action="store_true", help="CORE_MODULES alone: 20 modules, half the tree")
    parser.add_argument("--repository", metavar="DIR",
                        help="measure a clone of this Go monorepo at its HEAD instead of building one")  # fmt: skip
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=3, help="rounds of (a) and (b), side by side (default 3)")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON to FILE")
    args = parser.parse_args()
    if args.shards < 1 or args.repeat < 1:
        parser.error("--shards and --repeat take a positive count")
    r = run(args)
    if args.json:
        Path(args.json).write_text(json.dumps(r, indent=2), encoding="utf-8")
    source = r["source"] if isinstance(r["source"], str) else f"{len(r['source'])} Go modules"
    print(f"monorepo: {source}, {r['units']} units, {r['files']:,} files, "
          f"{r['symbols']:,} symbols, {r['edges']:,} edges; medians of {r['rounds']} rounds")  # fmt: skip
    print("| measure | seconds |\n|---|---:|")
    print(f"| (a) one job | {r['one_job_s']:.1f} |")
    for k, seconds in enumerate(r["shard_s"], 1):
        print(f"| (b) shard {k}/{r['shards']} ({r['shard_bytes'][k - 1] / 1e6:.1f} MB of sources) | {seconds:.1f} |")
    print(f"| (b) merge | {r['merge_s']:.1f} |")
    print(f"| (b) critical path: longest shard + merge | {r['critical_path_s']:.1f} ({r['ratio']:.2f} × (a)) |")
    print(f"| (b) at perfect balance: mean shard + merge | {r['balanced_s']:.1f} "
          f"({r['balanced_s'] / r['one_job_s']:.2f} × (a)) |")  # fmt: skip
    for c in r["incremental"]:
        print(f"| (c) {c['kind']} change ({c['file']}; {len(c['reindexed'])} of {r['units']} units re-indexed) "
              f"| {c['seconds']:.1f} ({c['seconds'] / r['one_job_s']:.2f} × (a)) |")  # fmt: skip
    verdict = "met" if r["ratio"] <= 0.35 else "missed"
    print(f"target (b) ≤ 0.35 × (a): {verdict} · generations identical: {r['identical']}"
          + (f" (differ in {', '.join(r['differing'])})" if r["differing"] else ""))  # fmt: skip
    leaf = next(c for c in r["incremental"] if c["kind"] == "leaf")
    verdict = "met" if leaf["seconds"] <= 0.10 * r["one_job_s"] else "missed"
    print(f"target (c) one-file commit ≤ 0.10 × (a): {verdict} · every (c) identical to its full index: "
          f"{all(c['identical'] for c in r['incremental'])}"
          + "".join(f" ({c['kind']} differs in {', '.join(c['differing'])})" for c in r["incremental"]
                    if c["differing"]))  # fmt: skip


if __name__ == "__main__":
    main()
