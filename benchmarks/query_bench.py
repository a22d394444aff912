"""Query engine speed on a synthetic 100k-symbol / 1M-edge generation, and answer size in tokens on a real one.

Run: .venv/bin/python benchmarks/query_bench.py [--quick] [--symbols N] [--edges N] [--calls N] [--profile]

Measures, side by side in one run and reported as median and p99 (the machine is shared and noisy):
  load       `Catalog.load` (decode columns + build the Graph, each also timed alone; the validation of
             the columns inside decode timed again alone, target ≤ 10 % of the two) and its first
             find_references, by stable_key and by qualified name (each builds its index): time to
             first answer, median of 5 fresh loads each;
  in-process `run_tool` latency of find_references (half random symbols, half the top 1 % by
             in-degree), get_blast_radius depth 3, find_symbol exact and get_file_outline, interleaved;
  stdio      `python -m kivgraph serve --generation FILE` through the MCP SDK's client: spawn + load +
             handshake, and the round trip of find_symbol calls;
  tokens     cl100k_base tokens of the compact, full and files views of the same questions, asked of
             this repository's own graph (syntax layer only) rather than the synthetic one.
The generation reuses codec_bench.py's symbols and files; its edges keep codec_bench's locality and
add a power-law tail of far references, so a few symbols have thousands of callers.
cl100k_base is loaded offline: the ranks file is rebuilt from npm js-tiktoken (fetched once with
`npm pack` into benchmarks/.cache) and checked against tiktoken's own sha256 before tiktoken reads it.
--profile prints the top functions under cProfile of each in-process query.
"""

import argparse
import cProfile
import dataclasses
import hashlib
import json
import os
import pstats
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
import numpy as np
import tiktoken
from codec_bench import synthetic
from figures import ms, p50_p99
from index_throughput import npm_package
from mcp import Client, StdioServerParameters

from kivgraph.graph.catalog import Catalog, run_tool
from kivgraph.graph.index import EDGE_KINDS, REFERENCE_KINDS, Graph
from kivgraph.graph.load import load_file
from kivgraph.graph.tools import TOOL_BY_NAME
from kivgraph.indexing import index_repository
from kivgraph.model import Confidence, Edge, EdgeKind, Generation, Provenance, SymbolKind
from kivgraph.store import save_to_file
from kivgraph.store.codec import check_columns

ROOT = Path(__file__).resolve().parent.parent
CACHE = Path(__file__).parent / ".cache"
TIKTOKEN_URL = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"
CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"  # tiktoken_ext.openai_public
JS_TIKTOKEN = "js-tiktoken@1.0.21"
USE_OF = {SymbolKind.STRUCT: EdgeKind.TYPE_USES, SymbolKind.FIELD: EdgeKind.REFERENCES,
          SymbolKind.CONSTANT: EdgeKind.REFERENCES}  # fmt: skip
TARGETS_MS = {"load": 500.0, "find_references": 2.0, "get_blast_radius": 20.0}


# -- the synthetic generation ------------------------------------------------------------------------


def realistic(n_symbols: int, n_edges: int, seed: int = 7) -> Generation:
    """codec_bench's symbols and files; 70 % of edges stay within ±40 symbols, 15 % go anywhere and
    15 % land on a Zipf-ranked target (P(rank r) ∝ 1/r), so in-degree has a power-law tail."""
    base = synthetic(n_symbols, 0, seed)
    rng = random.Random(seed)
    symbols = base.symbols
    popularity = list(range(n_symbols))
    rng.shuffle(popularity)
    edges: list[Edge] = []
    for j in range(n_edges):
        src = rng.randrange(n_symbols)
        u = rng.random()
        if u < 0.70:
            dst = min(n_symbols - 1, max(0, src + rng.randint(-40, 40)))
        elif u < 0.85:
            dst = rng.randrange(n_symbols)
        else:
            dst = popularity[int(n_symbols ** rng.random()) - 1]
        s, t = symbols[src], symbols[dst]
        kind = USE_OF.get(t.kind, EdgeKind.CALLS_DIRECT)
        edges.append(Edge(s.key, t.key, kind, Confidence.EXACT_TYPECHECKED, Provenance.SCIP_GO, s.file,
                          s.start_line + 1 + j % 7))  # fmt: skip
    header = dataclasses.replace(base.header, analyzers=(("scip-go", "bench"),))
    return dataclasses.replace(base, header=header, edges=tuple(edges))


# -- figures ---------------------------------------------------------------------------------------


class Table:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def row(self, label: str, median: float, p99: float | None = None, target_ms: float | None = None) -> None:
        target = verdict = ""
        if target_ms is not None:
            target = f"p50 ≤ {target_ms:g} ms" if p99 is not None else f"≤ {target_ms:g} ms"
            verdict = "met" if median * 1000 <= target_ms else "NOT MET"
        p99_text = ms(p99) if p99 is not None else ""
        self.lines.append(f"{label:<60} {ms(median):>10} {p99_text:>10}   {target:<15} {verdict}")

    def print(self, title: str) -> None:
        print(title)
        print(f"{'':<60} {'median':>10} {'p99':>10}   {'target':<15}")
        for line in self.lines:
            print(line)


# -- load ------------------------------------------------------------------------------------------


def load_once(path: str, first_args: dict[str, Any]) -> tuple[float, float, float, float, float]:
    """(decode, graph build, Catalog.load, its first find_references, validation): the first two timed
    on their own, the next two the way the server loads, so anything Catalog adds is counted; the
    validation decode_columns already ran (check_columns) is timed once more on its own."""
    t0 = time.perf_counter()
    loaded = load_file(path)
    t1 = time.perf_counter()
    Graph([loaded])
    t2 = time.perf_counter()
    check_columns(loaded.columns)
    validation = time.perf_counter() - t2
    del loaded
    catalog = Catalog([], [(path, "")])
    t3 = time.perf_counter()
    catalog.load()
    t4 = time.perf_counter()
    run_tool(catalog, TOOL_BY_NAME["find_references"], first_args)
    return t1 - t0, t2 - t1, t4 - t3, time.perf_counter() - t4, validation


def measure_load(table: Table, path: str, first_args: dict[str, Any], repeat: int) -> None:
    """Fresh loads answering first by stable_key (the selector of a previous answer, which builds the
    key index) and by repository + path + qualified_name (what a first question names), alternately."""
    by_key = {"stable_key": first_args["stable_key"]}
    by_name = {k: first_args[k] for k in ("repository", "path", "qualified_name")}
    runs: dict[str, list[tuple[float, float, float, float, float]]] = {"key": [], "name": []}
    for _ in range(repeat):
        runs["key"].append(load_once(path, by_key))
        runs["name"].append(load_once(path, by_name))
    both = runs["key"] + runs["name"]
    table.row(f"load: Catalog.load (file → Graph), median of {len(both)}", statistics.median(r[2] for r in both))
    table.row("  of which decode columns (load_file)", statistics.median(r[0] for r in both))
    table.row("  of which build Graph (CSR both ways, name lists)", statistics.median(r[1] for r in both))
    validation, load = statistics.median(r[4] for r in both), statistics.median(r[0] + r[1] for r in both)
    table.row(f"  of which validating columns: {validation / load:.1%} of decode + build", validation,
              target_ms=round(load * 100, 1))  # fmt: skip
    for selector_name, kind in (("stable_key", "key"), ("qualified_name", "name")):
        first = [r[3] for r in runs[kind]]
        total = [r[2] + r[3] for r in runs[kind]]
        table.row(f"load: first find_references by {selector_name} (its index)", statistics.median(first))
        table.row(f"load: time to first answer by {selector_name}, median of {repeat}", statistics.median(total),
                  target_ms=TARGETS_MS["load"])  # fmt: skip


def profile_load(path: str, first_args: dict[str, Any]) -> None:
    profiler = cProfile.Profile()
    profiler.enable()
    load_once(path, {"stable_key": first_args["stable_key"]})
    profiler.disable()
    print("\n-- cProfile: one fresh load and a first find_references by stable_key, top 12 by own time")
    pstats.Stats(profiler).strip_dirs().sort_stats("tottime").print_stats(12)


# -- in-process latency ----------------------------------------------------------------------------


def selector(g: Graph, i: int, by_key: bool) -> dict[str, Any]:
    if by_key:
        return {"stable_key": g.key(i)}
    return {"repository": g.repository_name(i), "path": g.path_of(i), "qualified_name": g.qualified_names[i]}


def workloads(g: Graph, calls: int, rng: random.Random) -> dict[str, list[dict[str, Any]]]:
    """Arguments per query; symbols half uniform, half from the top 1 % by in-degree, selectors alternating."""
    in_degree = np.diff(g.in_ptr)
    top = np.argsort(-in_degree, kind="stable")[: max(1, g.size // 100)].tolist()
    picks = [rng.randrange(g.size) if n % 2 else rng.choice(top) for n in range(calls)]
    files = [f.path for f in g.files]
    directories = sorted({p.rpartition("/")[0] for p in files})
    repository = g.repositories[0].name
    return {
        "find_references": [selector(g, i, n % 4 < 2) for n, i in enumerate(picks)],
        "get_blast_radius": [{**selector(g, i, n % 4 < 2), "depth": 3} for n, i in enumerate(picks)],
        "find_symbol": [{"name": g.names[rng.randrange(g.size)]} for _ in range(calls)],
        "get_file_outline": [{"repository": repository, "path": rng.choice(files)} for _ in range(calls)],
        "get_file_outline (directory)": [
            {"repository": repository, "path": rng.choice(directories)} for _ in range(calls)
        ],
    }


def tool_of(label: str) -> str:
    return label.partition(" ")[0]


def measure_queries(catalog: Catalog, work: dict[str, list[dict[str, Any]]], warmup: int) -> dict[str, list[float]]:
    """Every query's calls interleaved, so drift on the shared machine hits all of them alike; the
    symbol queries also get a row each for the random (odd calls) and the high in-degree symbols."""
    times: dict[str, list[float]] = {label: [] for label in work}
    calls = len(next(iter(work.values())))
    for n in range(calls):
        for label, arguments in work.items():
            tool = TOOL_BY_NAME[tool_of(label)]
            started = time.perf_counter()
            run_tool(catalog, tool, arguments[n])
            times[label].append(time.perf_counter() - started)
    rows: dict[str, list[float]] = {}
    for label, values in times.items():
        rows[label] = values[warmup:]
        if label in TARGETS_MS:
            rows[f"  {label}: random symbols"] = values[warmup + 1 - warmup % 2 :: 2]
            rows[f"  {label}: top 1 % by in-degree"] = values[warmup + warmup % 2 :: 2]
    return rows


def profile(catalog: Catalog, work: dict[str, list[dict[str, Any]]]) -> None:
    for label, arguments in work.items():
        tool = TOOL_BY_NAME[tool_of(label)]
        profiler = cProfile.Profile()
        profiler.enable()
        for args in arguments[:100]:
            run_tool(catalog, tool, args)
        profiler.disable()
        print(f"\n-- cProfile: {label}, {min(100, len(arguments))} calls, top 12 by own time")
        pstats.Stats(profiler).strip_dirs().sort_stats("tottime").print_stats(12)


# -- stdio -----------------------------------------------------------------------------------------


def measure_stdio(path: str, names: list[str], warmup: int) -> tuple[float, list[float]]:
    params = StdioServerParameters(command=sys.executable, args=["-m", "kivgraph", "serve", "--generation", path],
                                   cwd=str(ROOT))  # fmt: skip
    times: list[float] = []

    async def go() -> float:
        started = time.perf_counter()
        async with Client(params) as client:
            ready = time.perf_counter() - started
            for n, name in enumerate(names):
                t0 = time.perf_counter()
                result = await client.call_tool("find_symbol", {"name": name})
                elapsed = time.perf_counter() - t0
                if result.is_error:
                    raise RuntimeError(f"find_symbol {name!r} failed over stdio: {result.content}")
                if n >= warmup:
                    times.append(elapsed)
        return ready

    return anyio.run(go), times


# -- tokens ----------------------------------------------------------------------------------------


def cl100k_ranks() -> bytes:
    """tiktoken's cl100k_base.tiktoken, rebuilt from js-tiktoken's `"! <first rank> tok tok …"` lines."""
    module = npm_package(JS_TIKTOKEN) / "package" / "dist" / "ranks" / "cl100k_base.js"
    text = module.read_text(encoding="utf-8").strip().removeprefix("export default").strip().rstrip(";")
    ranks: list[tuple[int, str]] = []
    for line in json.loads(text)["bpe_ranks"].split("\n"):
        _, first, *tokens = line.split(" ")
        ranks += [(int(first) + n, token) for n, token in enumerate(tokens)]
    return "".join(f"{token} {rank}\n" for rank, token in sorted(ranks)).encode()


def cl100k() -> tiktoken.Encoding:
    """tiktoken's cl100k_base without its download: the ranks file sits in TIKTOKEN_CACHE_DIR under the
    name tiktoken looks for, and is only ever written after its sha256 matched tiktoken's."""
    directory = CACHE / "tiktoken"
    cached = directory / hashlib.sha1(TIKTOKEN_URL.encode()).hexdigest()
    if not cached.exists() or hashlib.sha256(cached.read_bytes()).hexdigest() != CL100K_SHA256:
        data = cl100k_ranks()
        if hashlib.sha256(data).hexdigest() != CL100K_SHA256:
            raise SystemExit(f"the cl100k_base ranks rebuilt from {JS_TIKTOKEN} do not match tiktoken's sha256")
        directory.mkdir(parents=True, exist_ok=True)
        cached.with_suffix(".tmp").write_bytes(data)
        cached.with_suffix(".tmp").replace(cached)
    os.environ["TIKTOKEN_CACHE_DIR"] = str(directory)
    return tiktoken.get_encoding("cl100k_base")


def questions(g: Graph) -> list[tuple[str, str, dict[str, Any]]]:
    """Six questions about this repository's own code, picked by in-degree so renames do not break them."""
    reference = np.isin(g.edge_kind, [EDGE_KINDS.index(k) for k in REFERENCE_KINDS])
    in_degree = np.bincount(g.edge_target[reference], minlength=g.size)
    out_degree = np.bincount(g.edge_source[reference], minlength=g.size)
    # Exported top-level declarations of the package itself: names a reader would ask about.
    package = [i for i in range(g.size) if g.path_of(i).startswith("kivgraph/") and g.exported[i]
               and "." not in g.qualified_names[i]]  # fmt: skip

    def most(kind: str, degree: np.ndarray) -> int:
        return max((i for i in package if g.kind_of(i) == kind), key=lambda i: (int(degree[i]), -i))

    def named(i: int) -> dict[str, Any]:
        return selector(g, i, by_key=False)

    common_class, common_function = most("class", in_degree), most("function", in_degree)
    rare = min((i for i in package if g.kind_of(i) == "function" and in_degree[i] == 2),
               key=lambda i: g.qualified_names[i])  # fmt: skip
    busy = most("function", out_degree)

    def refs(i: int) -> str:
        return f"{g.qualified_names[i]} ({int(in_degree[i])} refs)"

    return [
        (f"find_references {refs(common_class)}", "find_references", named(common_class)),
        (f"find_references {refs(common_function)}", "find_references", named(common_function)),
        (f"find_references {refs(rare)}", "find_references", named(rare)),
        (f"get_blast_radius {g.qualified_names[common_function]} depth 3", "get_blast_radius",
         {**named(common_function), "depth": 3}),
        (f"trace_dependencies {g.qualified_names[busy]} depth 3", "trace_dependencies", {**named(busy), "depth": 3}),
        ("get_file_outline kivgraph/graph/", "get_file_outline", {"repository": g.repositories[0].name,
                                                                   "path": "kivgraph/graph"}),
    ]  # fmt: skip


def measure_tokens(workdir: str) -> None:
    encoding = cl100k()
    started = time.perf_counter()
    generation = index_repository(str(ROOT), run_analyzers=False)
    indexed = time.perf_counter() - started
    path = os.path.join(workdir, "self.kgen")
    save_to_file(generation, path)
    catalog = Catalog([], [(path, "")])
    catalog.load()
    assert catalog.session is not None
    print(f"\nanswer size in cl100k_base tokens: this repository's HEAD ({len(generation.symbols):,} symbols, "
          f"{len(generation.edges):,} edges, syntax layer only, indexed in {indexed:.1f} s); default limits, "
          "rows returned in brackets")  # fmt: skip
    print(f"{'question':<70} {'compact':>13} {'full':>13} {'files':>13} {'compact/full':>13}")
    sums = {"compact": 0, "full": 0}
    for label, tool_name, args in questions(catalog.session.graph):
        tool = TOOL_BY_NAME[tool_name]
        views = next(p.enum for p in tool.params if p.name == "view")
        cells: dict[str, str] = {}
        counts: dict[str, int] = {}
        for view in ("compact", "full", "files"):
            if view not in views:
                cells[view] = "—"
                continue
            text = run_tool(catalog, tool, {**args, "view": view})
            counts[view] = len(encoding.encode(text, disallowed_special=()))
            cells[view] = f"{counts[view]:,} [{json.loads(text)['returned']}]"
        sums["compact"] += counts["compact"]
        sums["full"] += counts["full"]
        ratio = counts["compact"] / counts["full"]
        print(f"{label[:70]:<70} {cells['compact']:>13} {cells['full']:>13} {cells['files']:>13} {ratio:>13.2f}")
    total = sums["compact"] / sums["full"]
    print(f"{'all six':<70} {sums['compact']:>13,} {sums['full']:>13,} {'':>13} {total:>13.2f}")


# -- main ------------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer repetitions: a smoke run")
    parser.add_argument("--symbols", type=int, default=100_000)
    parser.add_argument("--edges", type=int, default=1_000_000)
    parser.add_argument("--calls", type=int, help="timed calls per query (default 400; 40 with --quick)")
    parser.add_argument("--profile", action="store_true", help="print cProfile's top functions per query")
    args = parser.parse_args()
    calls = args.calls or (40 if args.quick else 400)
    warmup = 5 if args.quick else 20
    loads = 2 if args.quick else 5
    stdio_calls = 20 if args.quick else 100
    rng = random.Random(11)

    with tempfile.TemporaryDirectory(prefix="kivgraph-query-bench-") as workdir:
        started = time.perf_counter()
        generation = realistic(args.symbols, args.edges)
        path = os.path.join(workdir, "bench.kgen")
        size = len(save_to_file(generation, path))
        del generation
        built = time.perf_counter() - started

        catalog = Catalog([], [(path, "")])
        catalog.load()
        assert catalog.session is not None
        g = catalog.session.graph
        in_degree = np.diff(g.in_ptr)
        print(f"synthetic generation: {g.size:,} symbols, {len(g.edge_source):,} edges, {len(g.files):,} files, "
              f"{size / 1e6:.1f} MB (built in {built:.1f} s); in-degree median {int(np.median(in_degree))}, "
              f"p99 {int(np.percentile(in_degree, 99))}, max {int(in_degree.max()):,}")  # fmt: skip
        some = rng.randrange(g.size)
        first = {**selector(g, some, True), **selector(g, some, False)}
        work = workloads(g, calls + warmup, rng)
        times = measure_queries(catalog, work, warmup)
        stdio_names = [g.names[rng.randrange(g.size)] for _ in range(stdio_calls + warmup)]
        if args.profile:
            profile(catalog, work)
            profile_load(path, first)
        del g, catalog
        table = Table()
        measure_load(table, path, first, loads)
        ready, stdio = measure_stdio(path, stdio_names, warmup)

        print()
        for label, values in times.items():
            p50, p99 = p50_p99(values)
            table.row(f"{label}, {len(values)} calls", p50, p99, TARGETS_MS.get(label))
        p50, p99 = p50_p99(stdio)
        table.row("stdio: spawn + load + handshake (python -m kivgraph serve)", ready)
        table.row(f"stdio: find_symbol round trip, {len(stdio)} calls", p50, p99)
        table.print(f"query engine, in-process unless marked stdio ({os.cpu_count()} cores, Python "
                    f"{sys.version.split()[0]}); find_references and get_blast_radius: half random symbols, "
                    "half the top 1 % by in-degree")  # fmt: skip
        measure_tokens(workdir)


if __name__ == "__main__":
    main()
