"""kivgraph side by side with the public reference implementation (the Go `kivgraph`), on its own repository.
Owns the runs and the table; the questions, recorded callers and answer reader are reference_questions.py.

Run: .venv/bin/python benchmarks/reference_bench.py PATH [--reference-binary BIN] [--repeat N]
         [--index-repeat N] [--calls N] [--languages go] [--json [FILE]]

PATH is a clone of the reference repository (its mcp-token-cost questions are asked of it). Measured:
  index      wall seconds and peak RSS (largest process of the tree, wait4's ru_maxrss) of
             `kivgraph index PATH --out TMP --languages L` (analyzers included) and of the reference's
             `index --full` after `init --repository NAME=PATH --languages L`; median of --index-repeat runs;
  first      spawn → initialize (legacy handshake, the MCP SDK's stdio client) → first find_references
             MergeAll answered, wall ms, median of --repeat spawns;
  questions  the six questions in default views, cl100k_base tokens of the answer text: kivgraph in one
             find_references call by name (by path + qualified name for Publish), the reference with its
             harness's two calls (find_symbol or get_symbol, then find_references direction incoming),
             and kivgraph asked the reference's two-call way too;
  callers    every caller the reference lists must be in kivgraph's one-call answer (listed, or a test
             file whose test rows the answer states); without a reference binary, against the callers
             recorded in reference_questions.py;
  latency    median and p90 round trip of find_references and get_blast_radius on MergeAll over one live
             session per server, --calls calls each after 20 warm-up calls, the servers interleaved;
  traversals get_blast_radius and trace_dependencies on MergeAll (defaults), get_blast_radius on the type
             Set (internal/facts, limit 500, every page), and what the reference reaches there that
             kivgraph does not.
The reference runs with a private HOME and XDG directories under a temporary directory and its own
--config there; Go's module and build caches (`go env GOMODCACHE GOCACHE …`) are passed through so both
indexers type-check against the same warm caches. Nothing is written to PATH (kivgraph indexes with --out).
The reference needs its LadybugDB build (`go build -tags ladybug`): a plain `go build` cannot publish.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncGenerator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import anyio
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import TextContent
from query_bench import cl100k
from reference_questions import (
    QUESTIONS,
    REACH_ROOT,
    RECORDED_CALLERS,
    RECORDED_COMMIT,
    TRAVERSAL_ROOT,
    Answer,
    Question,
    lost_callers,
    parse_answer,
    subject_of,
)

from kivgraph.snapshot import repository_name
from kivgraph.store.git import open_repository

OURS, REFERENCE = "kivgraph", "reference"
GO_VARIABLES = ("GOMODCACHE", "GOCACHE", "GOPATH", "GOFLAGS", "GOPROXY", "GOSUMDB", "GONOSUMDB", "GOPRIVATE",
                "GOTOOLCHAIN")  # fmt: skip
TARGETS = {"tokens": 750, "first_answer_ms": 300.0, "index_s": 5.4}
WARMUP = 20
REACH_LIMIT = 500
MAX_PAGES = 20


class BenchError(Exception):
    """A failure the benchmark reports as `Error: …` and exit code 1."""


def progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def median_p90(values: list[float]) -> tuple[float, float]:
    p90 = statistics.quantiles(values, n=10, method="inclusive")[8] if len(values) > 1 else values[0]
    return statistics.median(values), p90


# -- the checkout and the two indexers -------------------------------------------------------------


def checkout(path: str) -> tuple[str, str]:
    """(top level, HEAD commit) of the git checkout at PATH."""
    found = subprocess.run(
        ["git", "-C", path, "rev-parse", "--show-toplevel", "HEAD"], capture_output=True, text=True, check=False
    )
    if found.returncode != 0 or not os.path.isdir(path):
        raise BenchError(
            f"{path} is not a git checkout ({found.stderr.strip() or 'no such directory'}); "
            "pass the root of a clone of the reference repository."
        )
    top, commit = found.stdout.split()
    return top, commit


def go_environment() -> dict[str, str]:
    """The Go settings of this user, so a private HOME still finds the module and build caches."""
    go = shutil.which("go")
    if go is None:
        return {}
    found = subprocess.run([go, "env", "-json", *GO_VARIABLES], capture_output=True, text=True, check=False)
    if found.returncode != 0:
        return {}
    return {name: value for name, value in json.loads(found.stdout).items() if value}


@dataclass(frozen=True, slots=True)
class Run:
    wall_s: float
    rss_mb: float


def timed(command: list[str], log: Path, env: dict[str, str], cwd: str, what: str) -> Run:
    """Run one command to completion; wall time and the peak RSS wait4 reports for its process tree."""
    with log.open("w", encoding="utf-8") as out:
        started = time.perf_counter()
        try:
            process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=cwd)
        except OSError as err:
            raise BenchError(f"{what} could not start ({command[0]}: {err}).") from err
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        tail = log.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-12:]
        hint = ""
        if any("LadybugDB native support is unavailable" in line for line in tail):
            hint = (
                "\nThis reference binary was built without LadybugDB: rebuild it with `go build -tags ladybug`"
                " and CGO_LDFLAGS pointing at liblbug (see the reference's Makefile, test-ladybug)."
            )
        raise BenchError(
            f"{what} failed with exit code {process.returncode}: `{' '.join(command)}`; its output "
            "ends:\n  " + "\n  ".join(tail) + hint
        )
    return Run(wall, usage.ru_maxrss / 1024)


def compile_bytecode() -> None:
    """Byte-compile kivgraph as `pip install` does: an editable checkout under PYTHONDONTWRITEBYTECODE
    (set on some CI machines) never caches it, and would time the compiler at every spawn."""
    import compileall

    import kivgraph

    compileall.compile_dir(str(Path(kivgraph.__file__).parent), quiet=1)


def kivgraph_command() -> list[str]:
    script = Path(sys.executable).with_name("kivgraph")
    return [str(script)] if script.exists() else [sys.executable, "-m", "kivgraph"]


def index_ours(path: str, work: Path, languages: str, repeat: int) -> tuple[list[Run], Path]:
    runs: list[Run] = []
    generation = work / "kivgraph.kgen"
    for n in range(repeat):
        progress(f"indexing {path} with kivgraph ({n + 1}/{repeat})…")
        command = [*kivgraph_command(), "index", path, "--out", str(generation), "--languages", languages]
        runs.append(timed(command, work / f"kivgraph-index-{n}.log", dict(os.environ), str(work), "kivgraph index"))
        progress(f"  {runs[-1].wall_s:.1f} s, peak RSS {runs[-1].rss_mb:,.0f} MB")
    return runs, generation


@dataclass(frozen=True, slots=True)
class Reference:
    binary: str
    version: str
    env: dict[str, str]  # the private HOME / XDG directories and the user's Go caches


def reference(binary: str, work: Path) -> Reference:
    home = work / "home"
    env = {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_DATA_HOME": str(home / ".local/share"),
        "XDG_STATE_HOME": str(home / ".local/state"),
        "NO_COLOR": "1",
        **go_environment(),
    }
    home.mkdir(parents=True)
    try:
        found = subprocess.run(
            [binary, "version"], capture_output=True, text=True, env={**os.environ, **env}, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        raise BenchError(f"the reference binary {binary} does not run ({err}).") from err
    if found.returncode != 0:
        raise BenchError(f"`{binary} version` failed with exit code {found.returncode}: {found.stderr.strip()}")
    return Reference(binary, found.stdout.strip().splitlines()[0], env)


def index_reference(
    ref: Reference, path: str, name: str, work: Path, languages: str, repeat: int
) -> tuple[list[Run], Path]:
    """`init` (untimed) into a fresh --config per run, so every `index --full` starts without a fact cache."""
    runs: list[Run] = []
    env = {**os.environ, **ref.env}
    config = work
    for n in range(repeat):
        config = work / f"reference-{n}" / "config.yaml"
        config.parent.mkdir()
        init = [ref.binary, "init", "--config", str(config), "--repository", f"{name}={path}", "--languages", languages]
        timed(init, work / f"reference-init-{n}.log", env, str(work), "reference init")
        progress(f"indexing {path} with the reference ({n + 1}/{repeat})…")
        command = [ref.binary, "index", "--full", "--config", str(config)]
        runs.append(timed(command, work / f"reference-index-{n}.log", env, str(work), "reference index --full"))
        progress(f"  {runs[-1].wall_s:.1f} s, peak RSS {runs[-1].rss_mb:,.0f} MB")
    return runs, config


# -- MCP sessions ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Server:
    label: str
    params: StdioServerParameters
    repository: str  # the name its answers and selectors use
    errlog: Path

    def selector(self, path: str, qualified_name: str) -> dict[str, Any]:
        return {"repository": self.repository, "path": path, "qualified_name": qualified_name}


def leaf(err: BaseException) -> BaseException:
    """The first error inside the task groups the SDK nests it in, a BenchError before any other."""
    if not isinstance(err, BaseExceptionGroup):
        return err
    group = cast(BaseExceptionGroup[BaseException], err)
    leaves = [leaf(inner) for inner in group.exceptions]
    return next((e for e in leaves if isinstance(e, BenchError)), leaves[0])


@asynccontextmanager
async def session(server: Server) -> AsyncGenerator[Client]:
    with server.errlog.open("a", encoding="utf-8") as errlog:
        try:
            async with Client(stdio_client(server.params, errlog=errlog), mode="legacy") as client:
                yield client
        except Exception as err:  # the SDK raises anything from OSError to nested ExceptionGroups
            cause = leaf(err)
            if isinstance(cause, BenchError):
                raise cause from None
            tail = server.errlog.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-5:]
            said = "\n  ".join(tail) if tail else "(nothing)"
            raise BenchError(f"the {server.label} server failed ({cause!r}); its stderr ends:\n  {said}") from err


async def call(client: Client, server: Server, tool: str, arguments: dict[str, Any]) -> str:
    result = await client.call_tool(tool, arguments)
    text = next((block.text for block in result.content if isinstance(block, TextContent)), "")
    if result.is_error:
        raise BenchError(f"{server.label} {tool} {json.dumps(arguments)} answered an error: {text[:400]}")
    return text


async def first_answer(server: Server, arguments: dict[str, Any]) -> float:
    started = time.perf_counter()
    async with session(server) as client:
        await call(client, server, "find_references", arguments)
        return time.perf_counter() - started


# -- the measurements over MCP ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Asked:
    """One question answered one way: tokens of every call it took, and the find_references answer."""

    symbol: str
    tokens: int
    reference_tokens: int  # of the find_references call alone
    answer: Answer


Tokens = Callable[[str], int]


async def ask_once(client: Client, server: Server, question: Question, tokens: Tokens) -> Asked:
    """kivgraph's way: one find_references call naming the symbol."""
    arguments = server.selector(question.path, question.qualified_name) if question.named else {"name": question.symbol}
    text = await call(client, server, "find_references", arguments)
    return Asked(question.symbol, tokens(text), tokens(text), parse_answer(text))


async def ask_twice(client: Client, server: Server, question: Question, tokens: Tokens) -> Asked:
    """The reference harness's way: find_symbol (get_symbol when named), then find_references incoming."""
    if question.named:
        tool, arguments = "get_symbol", server.selector(question.path, question.qualified_name)
    else:
        tool, arguments = "find_symbol", {"name": question.symbol}
    found = await call(client, server, tool, arguments)
    try:
        repository, path, name = subject_of(tool, found, server.repository)
    except (KeyError, ValueError) as err:
        raise BenchError(f"{server.label} {tool} {question.symbol}: no declaration in {found[:300]}") from err
    selector = {"repository": repository, "path": path, "qualified_name": name, "direction": "incoming"}
    text = await call(client, server, "find_references", selector)
    return Asked(question.symbol, tokens(found) + tokens(text), tokens(text), parse_answer(text))


async def all_pages(client: Client, server: Server, tool: str, arguments: dict[str, Any]) -> Answer:
    """Every page of one traversal, its rows joined."""
    text = await call(client, server, tool, arguments)
    first = answer = parse_answer(text)
    rows = list(answer.rows)
    for _ in range(MAX_PAGES):
        if not answer.next_cursor:
            break
        answer = parse_answer(await call(client, server, tool, {**arguments, "cursor": answer.next_cursor}))
        rows += answer.rows
    return Answer(first.total, tuple(rows), first.test_rows, first.test_files)


async def answers(server: Server, tokens: Tokens) -> dict[str, Any]:
    """Everything one server is asked in one session: the questions both ways, the traversals, the graph."""
    async with session(server) as client:
        status: dict[str, Any] = json.loads(await call(client, server, "graph_status", {})).get("results") or {}
        once = [await ask_once(client, server, q, tokens) for q in QUESTIONS] if server.label == OURS else []
        twice = [await ask_twice(client, server, q, tokens) for q in QUESTIONS]
        root = server.selector(*TRAVERSAL_ROOT)
        traversals: dict[str, dict[str, int]] = {}
        for tool in ("get_blast_radius", "trace_dependencies"):
            text = await call(client, server, tool, root)
            answer = parse_answer(text)
            traversals[tool] = {"rows": len(answer.rows), "total": answer.total, "tokens": tokens(text)}
        reach = await all_pages(
            client, server, "get_blast_radius", {**server.selector(*REACH_ROOT), "limit": REACH_LIMIT}
        )
    graph = {key: status.get(key) for key in ("files", "symbols", "edges")}
    return {"graph": graph, "once": once, "twice": twice, "traversals": traversals, "reach": reach}


async def latency(servers: list[Server], calls: int) -> dict[str, dict[str, list[float]]]:
    """Round trips of find_references and get_blast_radius on MergeAll, the servers' sessions interleaved so
    drift on the shared machine hits both alike."""
    times: dict[str, dict[str, list[float]]] = {
        s.label: {"find_references": [], "get_blast_radius": []} for s in servers
    }
    async with AsyncExitStack() as stack:
        clients = [await stack.enter_async_context(session(s)) for s in servers]
        for n in range(WARMUP + calls):
            for server, client in zip(servers, clients, strict=True):
                for tool in ("find_references", "get_blast_radius"):
                    started = time.perf_counter()
                    await call(client, server, tool, server.selector(*TRAVERSAL_ROOT))
                    if n >= WARMUP:
                        times[server.label][tool].append(time.perf_counter() - started)
    return times


async def measure(servers: list[Server], repeat: int, calls: int, tokens: Tokens) -> dict[str, Any]:
    spawns: dict[str, list[float]] = {s.label: [] for s in servers}
    for n in range(repeat):
        progress(f"first answers, spawn {n + 1}/{repeat}…")
        for server in servers:
            arguments = server.selector(*TRAVERSAL_ROOT)
            spawns[server.label].append(await first_answer(server, arguments))
    asked = {}
    for server in servers:
        progress(f"asking the {server.label} server the six questions and the traversals…")
        asked[server.label] = await answers(server, tokens)
    progress(f"latency: {calls} calls per tool and server after {WARMUP} warm-up calls…")
    return {"spawns": spawns, "asked": asked, "latency": await latency(servers, calls)}


# -- figures ---------------------------------------------------------------------------------------


def index_figures(runs: list[Run]) -> dict[str, Any]:
    return {
        "wall_s": [r.wall_s for r in runs],
        "rss_mb": [r.rss_mb for r in runs],
        "median_s": statistics.median(r.wall_s for r in runs),
        "median_rss_mb": statistics.median(r.rss_mb for r in runs),
    }


def asked_figures(asked: list[Asked]) -> list[dict[str, Any]]:
    return [
        {
            "symbol": a.symbol,
            "tokens": a.tokens,
            "find_references_tokens": a.reference_tokens,
            "rows": len(a.answer.rows),
            "total": a.answer.total,
            "test_rows_not_listed": a.answer.test_rows,
            "callers": sorted(a.answer.callers),
        }
        for a in asked
    ]


def coverage(ours: list[Asked], theirs: list[Asked] | None) -> dict[str, Any]:
    expected = {a.symbol: tuple(sorted(a.answer.callers)) for a in theirs} if theirs else RECORDED_CALLERS
    lost = lost_callers(expected, {a.symbol: a.answer for a in ours})
    return {
        "source": "live" if theirs else f"recorded at {RECORDED_COMMIT}",
        "reference": sum(len(callers) for callers in expected.values()),
        "kivgraph": sum(len(a.answer.callers) for a in ours),
        "lost": [{"question": symbol, "path": path, "caller": name} for symbol, path, name in lost],
        "expected": {symbol: [list(c) for c in callers] for symbol, callers in expected.items()},
    }


def latency_figures(times: dict[str, list[float]]) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for tool, values in times.items():
        p50, p90 = median_p90(values)
        out[tool] = {"median_ms": p50 * 1000, "p90_ms": p90 * 1000, "calls": len(values)}
    return out


def figures(measured: dict[str, Any], indexes: dict[str, list[Run]]) -> dict[str, Any]:
    asked = measured["asked"]
    out: dict[str, Any] = {"index": {k: index_figures(v) for k, v in indexes.items()}, "servers": {}}
    for label, got in asked.items():
        p50, p90 = median_p90(measured["spawns"][label])
        out["servers"][label] = {
            "graph": got["graph"],
            "first_answer_ms": {
                "median": p50 * 1000,
                "p90": p90 * 1000,
                "runs": [t * 1000 for t in measured["spawns"][label]],
            },
            "questions": asked_figures(got["once"]),
            "questions_two_calls": asked_figures(got["twice"]),
            "latency": latency_figures(measured["latency"][label]),
            "traversals": got["traversals"],
            "reach": {
                "root": list(REACH_ROOT),
                "limit": REACH_LIMIT,
                "total": got["reach"].total,
                "rows": len(got["reach"].rows),
            },
        }
    theirs = asked.get(REFERENCE)
    out["coverage"] = coverage(asked[OURS]["once"], theirs["twice"] if theirs else None)
    if theirs:
        ours_reach, ref_reach = asked[OURS]["reach"].callers, theirs["reach"].callers
        out["reach"] = {
            "reference_only": sorted(ref_reach - ours_reach),
            "kivgraph_only": sorted(ours_reach - ref_reach),
        }
    out["targets"] = targets(out)
    return out


def targets(out: dict[str, Any]) -> list[dict[str, Any]]:
    ours = out["servers"][OURS]
    ref = out["servers"].get(REFERENCE)
    tokens = sum(q["tokens"] for q in ours["questions"])
    lost = len(out["coverage"]["lost"])
    rows = [
        {
            "target": f"tokens ≤ {TARGETS['tokens']} with no caller lost",
            "value": f"{tokens} tokens, {lost} lost",
            "met": tokens <= TARGETS["tokens"] and lost == 0,
        },
        {
            "target": f"first answer ≤ {TARGETS['first_answer_ms']:g} ms",
            "value": f"{ours['first_answer_ms']['median']:.0f} ms",
            "met": ours["first_answer_ms"]["median"] <= TARGETS["first_answer_ms"],
        },
    ]
    for tool in ("find_references", "get_blast_radius"):
        mine = ours["latency"][tool]["median_ms"]
        theirs = ref["latency"][tool]["median_ms"] if ref else None
        value = f"{mine:.2f} ms" + (f" vs {theirs:.2f} ms" if theirs is not None else ", no reference run")
        rows.append(
            {"target": f"{tool} latency ≤ reference", "value": value, "met": None if theirs is None else mine <= theirs}
        )
    index = out["index"][OURS]["median_s"]
    rows.append(
        {"target": f"index ≤ {TARGETS['index_s']:g} s", "value": f"{index:.1f} s", "met": index <= TARGETS["index_s"]}
    )
    return rows


# -- the table -------------------------------------------------------------------------------------


def tok(question: dict[str, Any]) -> str:
    return f"{question['tokens']:,} ({question['rows']} rows)"


def table(out: dict[str, Any], header: str) -> list[str]:
    ours = out["servers"][OURS]
    ref = out["servers"].get(REFERENCE)
    lines = [header, ""]
    columns = ["measure", "kivgraph", *(["reference"] if ref else []), "kivgraph, the reference's two calls"]
    lines += ["| " + " | ".join(columns) + " |", "|" + "---|" + "---:|" * (len(columns) - 1)]

    def row(label: str, mine: str, theirs: str = "", twice: str = "—") -> None:
        lines.append("| " + " | ".join([label, mine, *([theirs] if ref else []), twice]) + " |")

    def both(make: Callable[[dict[str, Any]], str], source: str = "servers") -> tuple[str, str]:
        group = out[source]
        return make(group[OURS]), make(group[REFERENCE]) if ref else ""

    runs = len(out["index"][OURS]["wall_s"])
    row(f"index wall, median of {runs}", *both(lambda i: f"{i['median_s']:.1f} s", "index"))
    row("index peak RSS (largest process)", *both(lambda i: f"{i['median_rss_mb']:,.0f} MB", "index"))
    row("graph: files / symbols / edges", *both(lambda s: "{files:,} / {symbols:,} / {edges:,}".format(**s["graph"])))
    spawns = len(ours["first_answer_ms"]["runs"])
    row(
        f"spawn → first find_references answer, median of {spawns}",
        *both(lambda s: f"{s['first_answer_ms']['median']:.0f} ms (p90 {s['first_answer_ms']['p90']:.0f})"),
    )
    for n, question in enumerate(QUESTIONS):
        row(
            f"tokens: {question.symbol}",
            tok(ours["questions"][n]),
            tok(ref["questions_two_calls"][n]) if ref else "",
            tok(ours["questions_two_calls"][n]),
        )
    arms: list[list[dict[str, Any]]] = [ours["questions"], ref["questions_two_calls"] if ref else [],
                                        ours["questions_two_calls"]]  # fmt: skip
    totals = [sum(q["tokens"] for q in arm) for arm in arms]
    row("**tokens: six questions**", f"**{totals[0]:,}**", f"**{totals[1]:,}**", f"**{totals[2]:,}**")
    per_row = [sum(q["find_references_tokens"] for q in arm) / max(1, sum(q["rows"] for q in arm)) for arm in arms]
    row("tokens per find_references row", f"{per_row[0]:.1f}", f"{per_row[1]:.1f}", f"{per_row[2]:.1f}")
    cover = out["coverage"]
    row(
        "callers listed (of the reference's)",
        f"{cover['kivgraph']} ({cover['reference'] - len(cover['lost'])} of {cover['reference']})",
        str(cover["reference"]),
    )
    for tool in ("find_references", "get_blast_radius"):
        calls = ours["latency"][tool]["calls"]
        row(
            f"{tool} {TRAVERSAL_ROOT[1]} round trip, {calls} calls",
            *both(lambda s, t=tool: f"{s['latency'][t]['median_ms']:.2f} ms (p90 {s['latency'][t]['p90_ms']:.2f})"),
        )
    for tool in ("get_blast_radius", "trace_dependencies"):
        row(
            f"{tool} {TRAVERSAL_ROOT[1]}: rows / total, tokens",
            *both(lambda s, t=tool: "{rows} / {total}, {tokens:,} tok".format(**s["traversals"][t])),
        )
    row(
        f"get_blast_radius {REACH_ROOT[1]} (limit {REACH_LIMIT}, all pages): rows / total",
        *both(lambda s: f"{s['reach']['rows']} / {s['reach']['total']}"),
    )
    return lines


def verdict(met: bool | None) -> str:
    return "n/a" if met is None else "PASS" if met else "MISS"


def report(out: dict[str, Any], header: str) -> list[str]:
    lines = table(out, header)
    lines += [
        "",
        "targets: " + " · ".join(f"{t['target']}: {verdict(t['met'])} ({t['value']})" for t in out["targets"]),
    ]
    cover = out["coverage"]
    found = "all" if not cover["lost"] else f"{cover['reference'] - len(cover['lost'])}"
    lines.append(
        f"callers found: kivgraph {cover['kivgraph']} ({found} of the reference's {cover['reference']}) / "
        f"reference {cover['reference']} ({cover['source']})"
    )
    for lost in cover["lost"]:
        lines.append(
            f"  !!! LOST CALLER: {lost['question']}: {lost['path']} {lost['caller']} — the reference lists it, "
            "kivgraph's one-call answer does not"
        )
    if "reach" in out:
        only = out["reach"]["reference_only"]
        lines.append(
            f"get_blast_radius {REACH_ROOT[1]}: the reference reaches {len(only)} symbol(s) kivgraph does not"
            f"{':' if only else ''} (kivgraph reaches {len(out['reach']['kivgraph_only'])} it does not)"
        )
        lines += [f"  - {path} {name}" for path, name in only]
    return lines


# -- main ------------------------------------------------------------------------------------------


def run(args: argparse.Namespace) -> tuple[dict[str, Any], str]:
    top, commit = checkout(args.path)
    if not args.reference_binary and not commit.startswith(RECORDED_COMMIT):
        progress(f"warning: {top} is at {commit[:9]}; the recorded reference callers are from {RECORDED_COMMIT}")
    encoding = cl100k()

    def tokens(text: str) -> int:
        return len(encoding.encode(text, disallowed_special=()))

    name = repository_name(open_repository(top))
    compile_bytecode()
    with tempfile.TemporaryDirectory(prefix="kivgraph-reference-bench-") as directory:
        work = Path(directory)
        indexes: dict[str, list[Run]] = {}
        servers: list[Server] = []
        version = ""
        if args.reference_binary:  # first: a binary that cannot publish fails before the long kivgraph run
            ref = reference(args.reference_binary, work)
            version = ref.version
            indexes[REFERENCE], config = index_reference(ref, top, name, work, args.languages, args.index_repeat)
            serve = StdioServerParameters(command=ref.binary, args=["serve", "--config", str(config)], env=ref.env,
                                          cwd=str(work))  # fmt: skip
            servers.append(Server(REFERENCE, serve, name, work / "reference-serve.log"))
        indexes[OURS], generation = index_ours(top, work, args.languages, args.index_repeat)
        command = [*kivgraph_command(), "serve", "--generation", str(generation), "--repo", top]
        serve = StdioServerParameters(command=command[0], args=command[1:], cwd=str(work))
        servers.insert(0, Server(OURS, serve, name, work / "kivgraph-serve.log"))
        measured = anyio.run(measure, servers, args.repeat, args.calls, tokens)
        out = figures(measured, indexes)
    out["settings"] = {
        "path": top,
        "commit": commit,
        "repository": name,
        "languages": args.languages,
        "reference_binary": args.reference_binary,
        "reference_version": version,
        "repeat": args.repeat,
        "index_repeat": args.index_repeat,
        "calls": args.calls,
        "cpus": os.cpu_count(),
        "python": sys.version.split()[0],
    }
    against = f"the reference {version} ({args.reference_binary})" if version else "the reference's recorded callers"
    header = (
        f"kivgraph vs {against} on {top} at {commit[:9]}, languages {args.languages}; cl100k_base tokens "
        f"of each answer's text; {os.cpu_count()} cores"
    )
    return out, header


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("path", help="a git checkout of the reference repository")
    parser.add_argument("--reference-binary", help="the reference's kivgraph executable (built with -tags ladybug)")
    parser.add_argument("--repeat", type=int, default=5, help="server spawns timed to a first answer (default 5)")
    parser.add_argument("--index-repeat", type=int, default=1, help="index runs per indexer (default 1)")
    parser.add_argument("--calls", type=int, default=200, help="timed calls per tool for latency (default 200)")
    parser.add_argument(
        "--languages",
        default="go",
        help="languages both indexers index (default go, the reference's question set is Go)",
    )
    parser.add_argument(
        "--json",
        nargs="?",
        const="-",
        metavar="FILE",
        help="write the raw figures as JSON to FILE, or alone: print them instead of the table",
    )
    args = parser.parse_args()
    if min(args.repeat, args.index_repeat, args.calls) < 1:
        parser.error("--repeat, --index-repeat and --calls take a positive count")
    try:
        out, header = run(args)
    except BenchError as err:
        print(f"Error: {err}", file=sys.stderr)
        sys.exit(1)
    if args.json == "-":
        print(json.dumps(out, indent=2))
        return
    print("\n".join(report(out, header)))
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
