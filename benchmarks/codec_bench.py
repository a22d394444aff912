"""Generation size and decode time on a synthetic 100k-symbol / 1M-edge generation.

Run: .venv/bin/python benchmarks/codec_bench.py [--symbols N] [--edges N] [--repeat N]
Prints bytes per symbol and per edge, encode time, the median decode times of the columns (what the
query layer loads) and of full rows, and how many times its size the blob decompresses to (the ratio
that `envelope.MAX_EXPANSION` caps). `--ratio FILE …` prints that ratio for existing generation files.
"""

import argparse
import random
import statistics
import sys
import time

import zstandard

from kivgraph.model import (
    Confidence,
    Edge,
    EdgeKind,
    FileRecord,
    Generation,
    GenerationHeader,
    Language,
    Provenance,
    Symbol,
    SymbolKind,
    canonical_identity,
    stable_key,
)
from kivgraph.store import codec, envelope


def synthetic(n_symbols: int, n_edges: int, seed: int = 7) -> Generation:
    """Shaped like real code: 20 symbols a file, most edges local, a long tail of far ones."""
    rng = random.Random(seed)
    n_files = max(1, n_symbols // 20)
    files = tuple(FileRecord(f"pkg{i // 50}/file{i}.go", Language.GO, f"{i:040x}", 4000) for i in range(n_files))
    kinds = [SymbolKind.FUNCTION, SymbolKind.METHOD, SymbolKind.STRUCT, SymbolKind.FIELD, SymbolKind.CONSTANT]
    symbols = []
    for i in range(n_symbols):
        f = i // 20
        name = f"Name{i % 5000}"
        qn = f"Type{i % 700}.{name}" if i % 3 else name
        key = stable_key(canonical_identity("go", "bench", f"pkg{f // 50}", "", f"{qn}#{i}", "function", ""))
        line = (i % 20) * 10 + 1
        symbols.append(
            Symbol(
                key,
                name,
                qn,
                kinds[i % 5],
                Language.GO,
                files[f].path,
                line,
                line + 8,
                line,
                5,
                f"func {name}(a int) error",
                i % 2 == 0,
                None,
                "",
                "",
            )
        )
    keys = [s.key for s in symbols]
    edge_kinds = [EdgeKind.CALLS_DIRECT, EdgeKind.REFERENCES, EdgeKind.TYPE_USES]
    edges = []
    for j in range(n_edges):
        src = rng.randrange(n_symbols)
        dst = min(n_symbols - 1, max(0, src + rng.randint(-40, 40))) if rng.random() < 0.7 else rng.randrange(n_symbols)
        edges.append(
            Edge(
                keys[src],
                keys[dst],
                edge_kinds[j % 3],
                Confidence.EXACT_TYPECHECKED,
                Provenance.SCIP_GO,
                symbols[src].file,
                symbols[src].start_line + 1 + j % 7,
            )
        )
    header = GenerationHeader("bench", "0" * 40, "1" * 40, "bench", "2026-01-01T00:00:00Z", languages=(Language.GO,))
    return Generation(header, files, (), tuple(symbols), tuple(edges))


def median_seconds(action, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def expansion(blob: bytes) -> str:
    raw = len(zstandard.ZstdDecompressor().decompress(blob))
    limit = envelope.decompressed_limit(len(blob))
    return (f"{len(blob):,} bytes decompress to {raw:,} = {raw / len(blob):.2f}× "
            f"(limit {limit:,} = {limit / len(blob):.0f}×)")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--symbols", type=int, default=100_000)
    parser.add_argument("--edges", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--ratio", nargs="+", metavar="FILE", help="only print the expansion of these generations")
    args = parser.parse_args()
    if args.ratio:
        for path in args.ratio:
            with open(path, "rb") as handle:
                print(f"{path}: {expansion(handle.read())}")
        sys.exit(0)
    g = synthetic(args.symbols, args.edges)
    started = time.perf_counter()
    blob = codec.encode(g)
    encode_s = time.perf_counter() - started
    columns_s = median_seconds(lambda: codec.decode_columns(blob), args.repeat)
    rows_s = median_seconds(lambda: codec.decode(blob), max(1, args.repeat // 2))
    print(f"generation: {args.symbols:,} symbols, {args.edges:,} edges")
    print(
        f"size: {len(blob):,} bytes = {len(blob) / args.symbols:.1f} B/symbol (all-in) = "
        f"{len(blob) / (args.symbols + args.edges):.2f} B per symbol-or-edge"
    )
    print(f"expansion: {expansion(blob)}")
    print(f"encode: {encode_s:.2f} s")
    print(f"decode columns (what loading uses), median of {args.repeat}: {columns_s * 1000:.0f} ms")
    print(f"decode to rows (every Edge/Symbol object), median: {rows_s:.2f} s")


if __name__ == "__main__":
    main()
