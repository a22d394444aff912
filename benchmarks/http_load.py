"""`kivgraph serve --http` under load: concurrent sessions of mixed tool calls on the synthetic
100k-symbol / 1M-edge generation of query_bench.py.

    python benchmarks/http_load.py [--sessions 50] [--calls 200] [--symbols N] [--edges N]

The server runs as its own process on a loopback port with a bearer token. Each session (a thread
here, with its own HTTP connection) initializes, makes its calls — find_references,
get_blast_radius depth 2, find_symbol and get_file_outline in turn, half by stable key and half by
qualified name, on random and on heavily used symbols — and ends itself with DELETE. Printed: p50
and p99 latency per tool and overall, the errors (any non-200 answer, JSON-RPC error or tool error
result), the server's resident memory before, at its peak during and after the load, and whether
requests without the token were refused.
"""

import argparse
import random
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import httpx2

sys.path.insert(0, str(Path(__file__).parent))
from figures import ms, p50_p99  # noqa: E402
from query_bench import realistic, selector  # noqa: E402

from kivgraph.graph.catalog import Catalog  # noqa: E402
from kivgraph.store import save_to_file  # noqa: E402

TOKEN = "http-load-bench-token-0123456789abcdef"


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def calls_for(catalog: Catalog, count: int, rng: random.Random) -> list[tuple[str, dict[str, Any]]]:
    session = catalog.session
    assert session is not None
    g = session.graph
    in_degree = sorted(range(g.size), key=lambda i: -(g.in_ptr[i + 1] - g.in_ptr[i]))[: max(1, g.size // 100)]
    files = [f.path for f in g.files]
    repository = g.repositories[0].name
    made: list[tuple[str, dict[str, Any]]] = []
    for n in range(count):
        i = rng.randrange(g.size) if n % 2 else rng.choice(in_degree)
        tool = ("find_references", "get_blast_radius", "find_symbol", "get_file_outline")[n % 4]
        if tool == "find_references":
            made.append((tool, selector(g, i, n % 8 < 4)))
        elif tool == "get_blast_radius":
            made.append((tool, {**selector(g, i, n % 8 < 4), "depth": 2}))
        elif tool == "find_symbol":
            made.append((tool, {"name": g.names[i]}))
        else:
            made.append((tool, {"repository": repository, "path": rng.choice(files)}))
    return made


def session(url: str, calls: list[tuple[str, dict[str, Any]]], times: dict[str, list[float]],
            errors: list[str], lock: threading.Lock) -> None:  # fmt: skip
    auth = {"Authorization": f"Bearer {TOKEN}"}
    hello = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
             "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                        "clientInfo": {"name": "http-load", "version": "1"}}}  # fmt: skip
    with httpx2.Client(timeout=120) as http:
        started = http.post(url, json=hello, headers=auth)
        if started.status_code != 200:
            with lock:
                errors.append(f"initialize: HTTP {started.status_code}")
            return
        headers = {**auth, "Mcp-Session-Id": started.headers["Mcp-Session-Id"], "MCP-Protocol-Version": "2025-11-25"}
        http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers)
        for n, (tool, arguments) in enumerate(calls, 1):
            message = {
                "jsonrpc": "2.0",
                "id": n,
                "method": "tools/call",
                "params": {"name": tool, "arguments": arguments},
            }
            before = time.perf_counter()
            answer = http.post(url, json=message, headers=headers)
            elapsed = time.perf_counter() - before
            problem = ""
            if answer.status_code != 200:
                problem = f"HTTP {answer.status_code}"
            else:
                body = answer.json()
                if "error" in body:
                    problem = f"JSON-RPC {body['error'].get('code')}"
                elif body["result"].get("isError"):
                    problem = body["result"]["content"][0]["text"][:120]
            with lock:
                times[tool].append(elapsed)
                if problem:
                    errors.append(f"{tool}: {problem}")
        http.delete(url, headers=headers)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=50)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--symbols", type=int, default=100_000)
    parser.add_argument("--edges", type=int, default=1_000_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="kivgraph-http-load-") as directory:
        work = Path(directory)
        print(f"building the {args.symbols:,}-symbol / {args.edges:,}-edge generation…", file=sys.stderr)
        generation = work / "bench.kgen"
        save_to_file(realistic(args.symbols, args.edges), str(generation))
        catalog = Catalog([], [(str(generation), "")])
        catalog.load()
        rng = random.Random(11)
        plans = [calls_for(catalog, args.calls, rng) for _ in range(args.sessions)]
        token_file = work / "token"
        token_file.write_text(TOKEN, encoding="utf-8")
        server = subprocess.Popen([sys.executable, "-m", "kivgraph", "serve", "--generation", str(generation),
                                   "--http", "127.0.0.1:0", "--token-file", str(token_file)],
                                  stderr=subprocess.PIPE, text=True)  # fmt: skip
        assert server.stderr is not None
        found = re.search(r"http://\S+/mcp", server.stderr.readline())
        if found is None:
            server.kill()
            sys.exit("Error: the server did not start")
        url = found.group()
        try:
            with httpx2.Client() as http:
                refused = http.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"}).status_code
            warm = [calls_for(catalog, 20, rng)]
            session(
                url, warm[0], defaultdict(list), [], threading.Lock()
            )  # the server's first answers build its indexes
            before = rss_kib(server.pid)
            peak = [before]
            done = threading.Event()

            def sample() -> None:
                while not done.wait(0.2):
                    peak.append(rss_kib(server.pid))

            sampler = threading.Thread(target=sample)
            sampler.start()
            times: dict[str, list[float]] = defaultdict(list)
            errors: list[str] = []
            lock = threading.Lock()
            print(f"{args.sessions} sessions × {args.calls} calls…", file=sys.stderr)
            started = time.perf_counter()
            threads = [threading.Thread(target=session, args=(url, plan, times, errors, lock)) for plan in plans]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            wall = time.perf_counter() - started
            done.set()
            sampler.join()
            after = rss_kib(server.pid)
        finally:
            server.terminate()
            server.wait(timeout=30)
            server.stderr.close()
    every = [t for values in times.values() for t in values]
    print(f"http load: {args.sessions} sessions × {args.calls} calls = {len(every):,} calls in {wall:.1f} s "
          f"({len(every) / wall:,.0f} calls/s) on {args.symbols:,} symbols / {args.edges:,} edges")  # fmt: skip
    print("| tool | calls | p50 | p99 |\n|---|---:|---:|---:|")
    for tool, values in sorted(times.items()):
        p50, p99 = p50_p99(values)
        print(f"| {tool} | {len(values):,} | {ms(p50)} | {ms(p99)} |")
    p50, p99 = p50_p99(every)
    print(f"| all | {len(every):,} | {ms(p50)} | {ms(p99)} |")
    print(f"errors: {len(errors)}" + (f" (first: {errors[0]})" if errors else ""))
    print(f"server RSS: {before / 1024:,.0f} MiB before, {max(peak) / 1024:,.0f} MiB peak, {after / 1024:,.0f} MiB "
          f"after ({(after - before) / 1024:+,.0f} MiB)")  # fmt: skip
    print(f"a request without the token: HTTP {refused} ({'refused' if refused == 401 else 'NOT refused'})")
    print(f"median of medians per tool: {statistics.median(p50_p99(v)[0] for v in times.values()) * 1000:.2f} ms")


if __name__ == "__main__":
    main()
