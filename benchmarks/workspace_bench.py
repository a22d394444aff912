"""Workspace load time and consumer-query latency on a synthetic workspace of 20 Go repositories.

Run: .venv/bin/python benchmarks/workspace_bench.py [--quick] [--exact] [--calls N] [--profile]

Builds, in a temporary directory, one provider library (`example.com/lib`: 16 packages, ~8k exported
functions, ~10k symbols) and 19 consumer services (~5k symbols each) whose generated Go source
imports a few of the provider's packages and calls a Zipf-ranked sample of their functions
(`replace example.com/lib => ../lib`). Each is a git repository indexed with the syntax layer
(`--exact`: with scip-go) and its generation saved to its notes; four consumers are pushed, notes
and all, to bare repositories and listed in kivgraph.toml by file:// URL, the rest by path.
Measures, side by side in one run and reported as median and p99 (the machine is shared and noisy):
  load      `Catalog([], [], kivgraph.toml).load()` with an empty remotes cache (cold: fetches the
            notes of the remote ones) and a filled one (warm), alternately; split into reading and
            decoding the local notes, the remote ones, building the Graph, and within it linking
            (`graph.link.link` timed again on the built graph); the first consumer query after a load;
  queries   `run_tool` latency of find_cross_repo_consumers, get_blast_radius depth 3 and
            find_references (incoming) on provider functions, half the top 1 % by linked cross-repo
            uses, half uniform, interleaved after a warm-up;
  counts    repositories, symbols, edges, linked cross-repo edges, package-level dependencies.
--exact stops with an error when scip-go could not load the provider in a consumer (its uses would not
be linked); --profile prints cProfile's top functions of one warm load and of 100 calls of each query.
"""

import argparse
import cProfile
import gc
import json
import os
import pstats
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from figures import ms, p50_p99

from kivgraph.graph.catalog import Catalog, run_tool
from kivgraph.graph.index import CONFIDENCES, EDGE_KINDS, PROVENANCES, Graph
from kivgraph.graph.link import link
from kivgraph.graph.load import LoadedRepository
from kivgraph.graph.tools import TOOL_BY_NAME
from kivgraph.graph.workspace import load_member, read_workspace
from kivgraph.indexing import index_repository
from kivgraph.model import EdgeKind, Provenance
from kivgraph.store import NOTES_REF, save_to_notes
from kivgraph.store.git import open_repository

CONSUMERS = 19
REMOTE = frozenset({4, 9, 14, 19})
"""Consumers served from a bare repository over file:// (the rest by path)."""
PROVIDER_PACKAGES = ("core", "auth", "billing", "cache", "config", "events", "geo", "httpx",
                     "ledger", "mail", "metrics", "orders", "queue", "search", "storage", "users")  # fmt: skip
CONSUMER_PACKAGES = ("api", "handlers", "jobs", "store", "domain", "report")
VERBS = ("Get", "Set", "Parse", "Load", "Save", "Build", "Check", "Open", "Close", "Read", "Write", "Find",
         "Make", "Merge", "Split", "Apply", "Encode", "Decode", "Render", "Format", "Scan", "Sort", "Count",
         "Reset")  # fmt: skip
NOUNS = ("Order", "Item", "User", "Price", "Cart", "Token", "Page", "Route", "Event", "Batch", "Record", "Rule",
         "Cache", "Queue", "Stream", "Filter", "Config", "Entry", "Index", "Limit", "Range", "Key", "Value",
         "Slot")  # fmt: skip
QUALIFIERS = ("", "All", "Fast", "Safe")
GIT_ENV = {"GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid", "GIT_COMMITTER_NAME": "Bench",
           "GIT_COMMITTER_EMAIL": "bench@example.invalid", "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
           "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z", "GIT_CONFIG_NOSYSTEM": "1"}  # fmt: skip
QUERIES = ("find_cross_repo_consumers", "get_blast_radius", "find_references")


# -- generated Go source ---------------------------------------------------------------------------


def function_names(rng: random.Random, count: int) -> list[str]:
    """`count` distinct names, drawn from the same vocabulary in every package (so names repeat across
    packages and repositories, as real ones do)."""
    names = [f"{v}{q}{n}" for q in QUALIFIERS for v in VERBS for n in NOUNS]
    rng.shuffle(names)
    return names[:count]


def go_file(package: str, imports: list[str], struct: str, functions: list[str], constant: str) -> str:
    quoted = "\n".join(f'\t"{path}"' for path in sorted(imports))
    head = f"package {package}\n\n" + (f"import (\n{quoted}\n)\n\n" if imports else "")
    return (
        f"{head}// {struct} is one record of {package}.\ntype {struct} struct {{\n\tID    int\n\tName  string\n"
        f"\tScore float64\n}}\n\n// Key identifies the record.\nfunc (r *{struct}) Key() int {{ return r.ID }}\n\n"
        f"// Label names the record.\nfunc (r *{struct}) Label() string {{ return r.Name }}\n\n"
        f"// {constant} bounds the package.\nconst {constant} = 64\n\n" + "\n".join(functions)
    )


class Provider:
    """The library: per package its function names, ranked by how popular they are with consumers."""

    def __init__(self, files_per_package: int, functions_per_file: int, seed: int = 3) -> None:
        rng = random.Random(seed)
        self.files_per_package = files_per_package
        self.functions_per_file = functions_per_file
        self.functions = {p: function_names(rng, files_per_package * functions_per_file) for p in PROVIDER_PACKAGES}
        self.popular = {p: rng.sample(names, len(names)) for p, names in self.functions.items()}
        self.rng = rng

    def pick(self, package: str, rng: random.Random) -> str:
        """A function of `package`, the r-th most popular with P(r) ∝ 1/r (a few are used everywhere)."""
        ranked = self.popular[package]
        return ranked[int(len(ranked) ** rng.random()) - 1]

    def files(self) -> dict[str, str]:
        rng = self.rng
        files = {"go.mod": "module example.com/lib\n\ngo 1.22\n"}
        for p, package in enumerate(PROVIDER_PACKAGES):
            names = self.functions[package]
            # Lower-numbered packages only, so the imports never form a cycle.
            deps = rng.sample(PROVIDER_PACKAGES[:p], min(p, 2))
            for f in range(self.files_per_package):
                mine = names[f * self.functions_per_file : (f + 1) * self.functions_per_file]
                used: set[str] = set()
                bodies: list[str] = []
                for n, name in enumerate(mine):
                    calls = [rng.choice(names) for _ in range(rng.randint(1, 2))]
                    if deps and (n < len(deps) or rng.random() < 0.2):
                        dep = deps[n] if n < len(deps) else rng.choice(deps)
                        used.add(dep)
                        calls.append(f"{dep}.{self.pick(dep, rng)}")
                    body = " + ".join(f"{c}(x)" for c in calls)
                    bodies.append(f"// {name} is generated.\nfunc {name}(x int) int {{ return {body} }}\n")
                imports = [f"example.com/lib/{d}" for d in used]
                files[f"{package}/{package}{f:02d}.go"] = go_file(package, imports, f"Record{f}", bodies, f"Max{f}")
        return files


def consumer_files(k: int, provider: Provider, files_per_package: int, functions_per_file: int) -> dict[str, str]:
    """A service importing 3–5 of the provider's packages (`core` always): a third of its functions call
    one or two provider functions, some build a provider type; the rest call the service's own code."""
    rng = random.Random(1000 + k)
    module = f"example.com/svc{k:02d}"
    imported = ["core", *rng.sample(PROVIDER_PACKAGES[1:], rng.randint(2, 4))]
    files = {"go.mod": f"module {module}\n\ngo 1.22\n\nrequire example.com/lib v0.0.0\n\n"
             "replace example.com/lib => ../lib\n"}  # fmt: skip
    sibling_names: list[str] = []
    for c, package in enumerate(CONSUMER_PACKAGES):
        names = function_names(rng, files_per_package * functions_per_file)
        sibling = CONSUMER_PACKAGES[c - 1] if c else ""
        for f in range(files_per_package):
            uses = rng.sample(imported, rng.randint(1, min(3, len(imported))))
            mine = names[f * functions_per_file : (f + 1) * functions_per_file]
            bodies: list[str] = []
            sibling_used = False
            for n, name in enumerate(mine):
                terms = [f"{rng.choice(names)}(x)"]
                record = ""
                if n < len(uses) or rng.random() < 0.33:
                    lib = uses[n] if n < len(uses) else rng.choice(uses)
                    terms += [f"{lib}.{provider.pick(lib, rng)}(x)" for _ in range(rng.randint(1, 2))]
                    if rng.random() < 0.1:
                        record = f"r := {lib}.Record{rng.randrange(provider.files_per_package)}{{ID: x}}; "
                        terms.append("r.ID")
                elif sibling and rng.random() < 0.1:
                    sibling_used = True
                    terms.append(f"{sibling}.{rng.choice(sibling_names)}(x)")
                body = " + ".join(terms)
                bodies.append(f"// {name} is generated.\nfunc {name}(x int) int {{ {record}return {body} }}\n")
            imports = [f"example.com/lib/{lib}" for lib in uses]
            if sibling_used:
                imports.append(f"{module}/{sibling}")
            files[f"{package}/{package}{f:02d}.go"] = go_file(package, imports, f"Model{f}", bodies, f"Cap{f}")
        sibling_names = names
    return files


# -- repositories ----------------------------------------------------------------------------------


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, env={**os.environ, **GIT_ENV}, check=True, capture_output=True)


def commit(path: Path, files: dict[str, str]) -> None:
    path.mkdir(parents=True)
    for name, text in files.items():
        target = path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    git(path, "init", "-q", "-b", "main")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "generated")


def index_and_note(path: Path, exact: bool) -> int:
    generation = index_repository(str(path), run_analyzers=exact)
    if exact and not any(name == "scip-go" for name, _ in generation.header.analyzers):
        raise SystemExit(f"scip-go did not run on {path.name}: install it with scripts/install-analyzers.sh")
    return len(save_to_notes(open_repository(str(path)), generation))


def build_workspace(root: Path, exact: bool, quick: bool) -> tuple[Path, dict[str, float], int]:
    """kivgraph.toml of the 20 repositories; (its path, seconds per stage, bytes of notes)."""
    provider = Provider(files_per_package=6 if quick else 12, functions_per_file=44)
    per_package, per_file = (5, 75) if quick else (10, 75)
    seconds: dict[str, float] = {}
    started = time.perf_counter()
    commit(root / "lib", provider.files())
    sources = {k: consumer_files(k, provider, per_package, per_file) for k in range(1, CONSUMERS + 1)}
    for k, files in sources.items():
        commit(root / f"svc{k:02d}", files)
    seconds["generate Go source and commit"] = time.perf_counter() - started
    started = time.perf_counter()
    size = sum(index_and_note(root / name, exact) for name in ["lib", *(f"svc{k:02d}" for k in sources)])
    seconds[f"index ({'scip-go' if exact else 'syntax layer'}) and save to notes"] = time.perf_counter() - started
    started = time.perf_counter()
    entries = ['[[repository]]\npath = "lib"\n']
    for k in sources:
        name = f"svc{k:02d}"
        if k in REMOTE:
            bare = root / "remote" / f"{name}.git"
            bare.parent.mkdir(exist_ok=True)
            git(root, "init", "-q", "--bare", str(bare))
            git(root / name, "push", "-q", str(bare), "main", NOTES_REF)
            entries.append(f'[[repository]]\nurl = "file://{bare}"\n')
        else:
            entries.append(f'[[repository]]\npath = "{name}"\n')
    toml = root / "kivgraph.toml"
    toml.write_text("\n".join(entries), encoding="utf-8")
    seconds[f"push {len(REMOTE)} consumers to bare repositories"] = time.perf_counter() - started
    return toml, seconds, size


# -- figures ---------------------------------------------------------------------------------------


class Table:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def row(self, label: str, times: list[float], p99: bool = False) -> None:
        median, high = p50_p99(times)
        self.lines.append(f"{label:<72} {ms(median):>10} {ms(high) if p99 else '':>10}")

    def print(self, title: str) -> None:
        print(title)
        print(f"{'':<72} {'median':>10} {'p99':>10}")
        for line in self.lines:
            print(line)


def timed(action: Callable[[], Any]) -> tuple[float, Any]:
    started = time.perf_counter()
    result = action()
    return time.perf_counter() - started, result


# -- load ------------------------------------------------------------------------------------------


def remotes_cache() -> Path:
    return Path(os.environ["XDG_CACHE_HOME"]) / "kivgraph" / "remotes"


def load_catalog(toml: Path) -> Catalog:
    catalog = Catalog([], [], str(toml))
    catalog.load()
    assert catalog.session is not None and not catalog.problems, catalog.problems
    return catalog


def measure_load(table: Table, toml: Path, first: dict[str, Any], repeat: int) -> None:
    """Cold and warm Catalog.load alternately, then the same load taken apart: members read one by one,
    the Graph built from them, and link() run again on it."""
    runs: dict[str, list[float]] = {}

    def add(label: str, seconds: float) -> None:
        runs.setdefault(label, []).append(seconds)

    members = read_workspace(str(toml))
    tool = TOOL_BY_NAME["find_cross_repo_consumers"]
    for _ in range(repeat):
        # A collection left over from the previous graph would land in whichever step comes next.
        gc.collect()
        shutil.rmtree(remotes_cache(), ignore_errors=True)
        add("cold", timed(lambda: load_catalog(toml))[0])
        gc.collect()
        seconds, catalog = timed(lambda: load_catalog(toml))
        add("warm", seconds)
        for label in ("first", "second"):
            started = time.perf_counter()
            run_tool(catalog, tool, first)
            add(label, time.perf_counter() - started)
        del catalog
        gc.collect()
        shutil.rmtree(remotes_cache(), ignore_errors=True)
        loaded: list[LoadedRepository] = []
        for member in members:
            seconds, repository = timed(lambda m=member: load_member(m))
            add("remote cold" if member.url else "local", seconds)
            loaded.append(repository)
        for member in members:
            if member.url:
                add("remote warm", timed(lambda m=member: load_member(m))[0])
        started = time.perf_counter()
        graph = Graph(loaded)
        add("graph", time.perf_counter() - started)
        started = time.perf_counter()
        link(graph)
        add("link", time.perf_counter() - started)
        del graph, loaded

    def total(label: str, per_load: int) -> list[float]:
        values = runs[label]
        return [sum(values[i : i + per_load]) for i in range(0, len(values), per_load)]

    local = sum(1 for m in members if m.path)
    remote = len(members) - local
    table.row(f"load: Catalog.load, cold remotes cache (fetches {remote} notes refs), median of {repeat}",
              runs["cold"])  # fmt: skip
    table.row(f"load: Catalog.load, warm remotes cache, median of {repeat}", runs["warm"])
    table.row(f"  of which read + decode {local} local notes (load_member)", total("local", local))
    table.row(f"  of which fetch + decode {remote} remote notes, cold cache", total("remote cold", remote))
    table.row(f"  of which fetch + decode {remote} remote notes, warm cache", total("remote warm", remote))
    table.row("  of which Graph(...): merge, link, CSR both ways", runs["graph"])
    table.row("    of which link (graph.link.link, timed again on the built graph)", runs["link"])
    graph_only = [g - k for g, k in zip(runs["graph"], runs["link"], strict=True)]
    table.row("    Graph(...) without link (difference)", graph_only)
    table.row("load: first find_cross_repo_consumers after a load (builds its indexes)", runs["first"])
    table.row("load: the same query again", runs["second"])


def profile_load(toml: Path) -> None:
    profiler = cProfile.Profile()
    profiler.enable()
    load_catalog(toml)
    profiler.disable()
    print("\n-- cProfile: one warm Catalog.load, top 15 by own time")
    pstats.Stats(profiler).strip_dirs().sort_stats("tottime").print_stats(15)
    print("-- the same, top 10 by cumulative time")
    pstats.Stats(profiler).strip_dirs().sort_stats("cumulative").print_stats(10)


# -- queries ---------------------------------------------------------------------------------------


def cross_repo_uses(g: Graph) -> np.ndarray:
    linked = g.edge_provenance == PROVENANCES.index(Provenance.MANIFEST)
    return np.bincount(g.edge_target[linked], minlength=g.size)


def provider_functions(g: Graph) -> list[int]:
    home = g.repository_index["lib"]
    return [i for i in np.flatnonzero(g.repository == home).tolist() if g.kind_of(i) == "function"]


def selector(g: Graph, i: int, by_key: bool) -> dict[str, Any]:
    if by_key:
        return {"stable_key": g.key(i)}
    return {"repository": g.repository_name(i), "path": g.path_of(i), "qualified_name": g.qualified_names[i]}


def workloads(g: Graph, calls: int, rng: random.Random) -> dict[str, list[dict[str, Any]]]:
    """Even calls: the top 1 % of provider functions by linked uses; odd: any provider function.
    Selectors alternate between repository + path + qualified_name and stable_key."""
    functions = provider_functions(g)
    uses = cross_repo_uses(g)
    top = sorted(functions, key=lambda i: (-int(uses[i]), i))[: max(1, len(functions) // 100)]
    picks = [rng.choice(functions) if n % 2 else rng.choice(top) for n in range(calls)]
    extra = {"find_cross_repo_consumers": {}, "get_blast_radius": {"depth": 3},
             "find_references": {"direction": "incoming"}}  # fmt: skip
    return {tool: [{**selector(g, i, n % 4 < 2), **extra[tool]} for n, i in enumerate(picks)] for tool in QUERIES}


def measure_queries(catalog: Catalog, work: dict[str, list[dict[str, Any]]], warmup: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {tool: [] for tool in work}
    calls = len(next(iter(work.values())))
    for n in range(calls):
        for tool, arguments in work.items():
            started = time.perf_counter()
            run_tool(catalog, TOOL_BY_NAME[tool], arguments[n])
            times[tool].append(time.perf_counter() - started)
    rows: dict[str, list[float]] = {}
    for tool, values in times.items():
        rows[tool] = values[warmup:]
        rows[f"  {tool}: top 1 % by cross-repo uses"] = values[warmup + warmup % 2 :: 2]
        rows[f"  {tool}: uniform provider functions"] = values[warmup + 1 - warmup % 2 :: 2]
    return rows


def answer_sizes(catalog: Catalog, work: dict[str, list[dict[str, Any]]]) -> None:
    """How much each query returned (total rows), so the latencies can be read against the work done."""
    print("\nanswer sizes (total rows before paging; top 1 % / uniform provider functions):")
    for tool, arguments in work.items():
        totals: dict[bool, list[int]] = {True: [], False: []}
        for n, args in enumerate(arguments[:200]):
            answer = json.loads(run_tool(catalog, TOOL_BY_NAME[tool], args))
            totals[n % 2 == 0].append(int(answer["total"]))
        cells = [f"median {int(statistics.median(v))}, max {max(v):,}" for v in (totals[True], totals[False])]
        print(f"  {tool:<28} {cells[0]:<26} / {cells[1]}")


def profile_queries(catalog: Catalog, work: dict[str, list[dict[str, Any]]]) -> None:
    for tool, arguments in work.items():
        profiler = cProfile.Profile()
        profiler.enable()
        for args in arguments[:100]:
            run_tool(catalog, TOOL_BY_NAME[tool], args)
        profiler.disable()
        print(f"\n-- cProfile: {tool}, {min(100, len(arguments))} calls, top 12 by own time")
        pstats.Stats(profiler).strip_dirs().sort_stats("tottime").print_stats(12)


# -- counts ----------------------------------------------------------------------------------------


def print_counts(g: Graph, built: dict[str, float], notes_bytes: int, exact: bool) -> None:
    local = sum(1 for r in g.repositories if r.root)
    home = g.repository_index["lib"]
    provider = int(np.count_nonzero(g.repository == home))
    linked = g.edge_provenance == PROVENANCES.index(Provenance.MANIFEST)
    within = len(g.edge_source) - int(linked.sum())
    confidences = Counter(CONFIDENCES[c].value for c in g.edge_confidence[linked].tolist())
    by_confidence = ", ".join(f"{n:,} {name}" for name, n in sorted(confidences.items()))
    uses = cross_repo_uses(g)
    functions = provider_functions(g)
    used = [int(uses[i]) for i in functions]
    kinds = Counter(EDGE_KINDS[k].value for k in g.edge_kind[~linked].tolist())
    calls = kinds.get(EdgeKind.CALLS_DIRECT.value, 0)
    reasons = Counter(u.reason for u in g.unresolved)
    scopes = Counter(v.reason for v in g.scopes)
    layer = "scip-go (exact layer)" if exact else "the syntax layer (CANDIDATE edges)"
    print(f"workspace: {len(g.repositories)} repositories ({local} by path, {len(g.repositories) - local} by "
          f"file:// URL), indexed with {layer}; {notes_bytes / 1e6:.1f} MB of notes")  # fmt: skip
    for stage, seconds in built.items():
        print(f"  built: {stage}: {seconds:.1f} s")
    print(f"  symbols {g.size:,} (provider {provider:,}, consumers {g.size - provider:,}; "
          f"{len(functions):,} provider functions), files {len(g.files):,}, packages {len(g.packages)}")  # fmt: skip
    print(f"  edges {len(g.edge_source):,}: within repositories {within:,} ({calls:,} calls), linked cross-repo "
          f"{int(linked.sum()):,} ({by_confidence})")  # fmt: skip
    print(f"  external references {len(g.externals):,}; package-level dependencies {len(g.dependencies):,}; "
          f"unresolved {len(g.unresolved):,} {dict(sorted(reasons.items()))}; invisible scopes "
          f"{dict(sorted(scopes.items()))}")  # fmt: skip
    print(f"  provider functions used across repositories: {sum(1 for u in used if u):,} of {len(used):,}; "
          f"uses per function median {int(statistics.median(used))}, p99 {int(np.percentile(used, 99))}, "
          f"max {max(used):,}")  # fmt: skip


# -- main ------------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="half-size repositories, fewer calls: a smoke run")
    parser.add_argument("--exact", action="store_true", help="index with scip-go instead of the syntax layer")
    parser.add_argument("--calls", type=int, help="timed calls per query (default 400; 40 with --quick)")
    parser.add_argument("--profile", action="store_true", help="print cProfile's top functions of load and queries")
    args = parser.parse_args()
    calls = args.calls or (40 if args.quick else 400)
    warmup = 6 if args.quick else 20
    loads = 2 if args.quick else 5
    rng = random.Random(11)

    with tempfile.TemporaryDirectory(prefix="kivgraph-workspace-bench-") as workdir:
        root = Path(workdir)
        toml, built, notes_bytes = build_workspace(root / "ws", args.exact, args.quick)
        # Remote notes are fetched into $XDG_CACHE_HOME/kivgraph/remotes: ours, so a cold load is cold.
        # Set only now: the analyzers (scip-go) and Go's build cache are found under the real one.
        os.environ["XDG_CACHE_HOME"] = str(root / "cache")
        catalog = load_catalog(toml)
        assert catalog.session is not None
        g = catalog.session.graph
        print_counts(g, built, notes_bytes, args.exact)
        missing = sum(1 for v in g.scopes if v.reason == "MODULE_DEPENDENCIES_MISSING")
        if missing:
            raise SystemExit(f"scip-go could not load example.com/lib in {missing} consumers "
                             "(MODULE_DEPENDENCIES_MISSING), so their uses of it are not linked: the figures "
                             "would not be the exact layer's. See the invisible scopes above.")  # fmt: skip
        work = workloads(g, calls + warmup, rng)
        times = measure_queries(catalog, work, warmup)
        answer_sizes(catalog, work)
        if args.profile:
            profile_queries(catalog, work)
            profile_load(toml)
        first = work["find_cross_repo_consumers"][0]
        del g, catalog
        table = Table()
        measure_load(table, toml, first, loads)
        for label, values in times.items():
            table.row(f"{label}, {len(values)} calls", values, p99=True)
        print()
        table.print(f"workspace load and consumer queries, in-process ({os.cpu_count()} cores, Python "
                    f"{sys.version.split()[0]}); queries on provider functions, half the top 1 % by "
                    "cross-repo uses, half uniform")  # fmt: skip


if __name__ == "__main__":
    main()
