"""The impact graph: every Mermaid graph the PR comment can carry is parsed by the real Mermaid
(npm `mermaid`, pinned, installed into a cache the test manages) so a syntax error or a name that
escapes its label fails here; the shape (marks, files, cap, import-only modules) and report.json's
whole graph are checked in Python."""

import json
import os
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kivgraph.impact.analysis import Affected, ChangedSymbol, Impact, analyze
from kivgraph.impact.mermaid import MERMAID_NODES, graph_json, impact_graph, to_mermaid
from kivgraph.impact.report import to_json, to_markdown
from kivgraph.indexing import index_repository
from kivgraph.store import save_to_notes
from kivgraph.store.git import open_repository
from tests.conftest import FIXTURES, Repo

MERMAID = "11.17.2"
"""GitHub renders with Mermaid 11; its 12.x needs Node 22."""
JSDOM = "26.1.0"
"""Mermaid's sanitizer needs a DOM, even to parse."""
REPO = "shop"
PARSE = r"""
import { readFileSync } from 'node:fs';
import { JSDOM } from 'jsdom';
const dom = new JSDOM('<!doctype html><html><body></body></html>');
globalThis.window = dom.window;
globalThis.document = dom.window.document;
const { default: mermaid } = await import('mermaid');
// Mermaid keeps an entity code as a placeholder until it draws; decode it as the browser would.
const decode = (text) => {
  const area = document.createElement('textarea');
  area.innerHTML = String(text ?? '').replace(/ﬂ°°/g, '&#').replace(/ﬂ°/g, '&').replace(/¶ß/g, ';');
  return area.value;
};
const out = [];
for (const text of JSON.parse(readFileSync(0, 'utf8'))) {
  try {
    const parsed = await mermaid.parse(text);
    const { db } = await mermaid.mermaidAPI.getDiagramFromText(text);
    out.push({
      ok: true, type: parsed.diagramType, config: parsed.config,
      vertices: [...db.getVertices().values()].map((v) => ({ id: v.id, text: decode(v.text), classes: v.classes })),
      edges: db.getEdges().map((e) => ({ start: e.start, end: e.end, text: decode(e.text), stroke: e.stroke })),
      subgraphs: db.getSubGraphs().map((s) => ({ id: s.id, title: decode(s.title), nodes: s.nodes })),
      clicks: [...db.getVertices().values()].filter((v) => v.link || v.haveCallback).length,
      tooltips: db.tooltips instanceof Map ? db.tooltips.size : Object.keys(db.tooltips ?? {}).length,
    });
  } catch (err) {
    out.push({ ok: false, error: String(err?.message ?? err) });
  }
}
process.stdout.write(JSON.stringify(out));
"""


# -- impacts to draw -------------------------------------------------------------------------------


def changed(name: str, path: str = "src/orders.py", change: str = "modified", *uses: Affected) -> ChangedSymbol:
    symbol = ChangedSymbol(change, name, name.rpartition(".")[2], "function", "python", path, 10, 20)
    symbol.in_base_graph, symbol.affected = True, list(uses)
    return symbol


def use(name: str, path: str, depth: int = 1, reached_from: str = "", kind: str = "function",
        via: str = "CALLS_DIRECT", repository: str = REPO, through: str = "") -> Affected:  # fmt: skip
    return Affected(name, kind, repository, path, 5, 9, depth, via, "EXACT_TYPECHECKED", reached_from, through)


def impact(*symbols: ChangedSymbol) -> Impact:
    return Impact(REPO, "b" * 40, "h" * 40, "b" * 40, 3, list(symbols), len({s.file_path for s in symbols}), [],
                  {"verdict": "COMPLETE"})  # fmt: skip


def small() -> Impact:
    return impact(changed("total", "src/orders.py", "signature_changed", use("checkout", "src/cart.py", 1, "total")))


def one_changed_many_dependents() -> Impact:
    """One changed function with 12 callers in 4 files, each called from 3 places, 36 more under."""
    uses = [use(f"caller{i}", f"src/area{i % 4}/calls.py", 1, "parse") for i in range(12)]
    uses += [use(f"user{i}_{j}", f"src/area{i % 4}/users.py", 2, f"caller{i}") for i in range(12) for j in range(3)]
    uses += [use(f"deep{j}", "src/area0/deep.py", 3, "user0_0") for j in range(5)]
    return impact(changed("parse", "src/core/parse.py", "modified", *uses))


def many_changed() -> Impact:
    """14 changed symbols in 3 files; some reach each other."""
    symbols = [
        changed(f"model.Field{i}.validate", f"src/model/{['fields', 'forms', 'types'][i % 3]}.py",
                ["modified", "signature_changed", "deleted"][i % 3],
                use(f"views.page{i}", "src/views.py", 1, f"model.Field{i}.validate"),
                use(f"model.Field{(i + 1) % 14}.validate", f"src/model/{['fields', 'forms', 'types'][(i + 1) % 3]}.py",
                    1, f"model.Field{i}.validate"))
        for i in range(14)
    ]  # fmt: skip
    return impact(*symbols)


def cross_file() -> Impact:
    return impact(
        changed("Price.amount", "pkg/money/price.py", "signature_changed",
                use("Cart.total", "pkg/cart/cart.py", 1, "Price.amount"),
                use("Invoice.sum", "pkg/billing/invoice.py", 1, "Price.amount", via="REFERENCES"),
                use("report", "pkg/billing/report.py", 2, "Invoice.sum"),
                use("Money", "pkg/money/types.py", 1, "Price.amount", kind="class", via="TYPE_USES")),
    )  # fmt: skip


def consumers() -> Impact:
    return impact(
        changed("api.Client.get", "api/client.py", "signature_changed",
                use("sync", "api/sync.py", 1, "api.Client.get"),
                use("billing.fetch", "src/fetch.py", 1, "api.Client.get", repository="billing"),
                use("billing.run", "src/run.py", 2, "billing.fetch", repository="billing"),
                use("web.page", "app/page.ts", 1, "api.Client.get", repository="web-app")),
    )  # fmt: skip


def interfaces() -> Impact:
    """Dispatch through an interface, a conformance site, and a step whose origin is not drawn."""
    return impact(
        changed("Square.area", "shapes/square.ts", "modified",
                use("total", "shapes/total.ts", 1, "Square.area", through="Shape.area"),
                use("main", "src/main.ts", 2, "total"),
                use("Circle.area", "shapes/circle.ts", 1, "Square.area", via="IMPLEMENTS"),
                use("draw", "src/draw.ts", 2, "Square", via="CONFORMANCE", through="Circle.area"),
                use("lost", "src/lost.ts", 3, "nowhere")),
    )  # fmt: skip


def import_only() -> Impact:
    """Two modules that only import the changed function; a function reached only through one."""
    return impact(
        changed("lib.total", "lib/total.py", "modified",
                use("app.main", "app/main.py", 1, "lib.total"),
                use("app", "app/__init__.py", 1, "lib.total", kind="module", via="IMPORTS_SYMBOL"),
                use("tests.test_total", "tests/test_total.py", 1, "lib.total", kind="module", via="IMPORTS_SYMBOL"),
                use("app.cli", "app/__init__.py", 2, "app", via="REFERENCES")),
    )  # fmt: skip


HOSTILE = [
    'say "hi"|pipe',
    "back`tick` &amp; #quot;",
    "<img src=x onerror=alert(1)>",
    "new\nline;semi",
    "[bracket]{brace}(paren)",
    "%%{init: {'theme':'dark'}}%%",
    "click n0 call alert()",
    "x:::changed",
    "end",
    "\u202eevil",
    "a --> b",
]


def hostile() -> Impact:
    uses = [use(name, f"src/{name}.py", 1, HOSTILE[0]) for name in HOSTILE[1:]]
    uses.append(use("graph TD", "src/x.py", 1, HOSTILE[0], repository='evil"repo`%%'))
    return impact(changed(HOSTILE[0], 'src/we"ird|path`%%.py', "signature_changed", *uses))


def huge() -> Impact:
    """800 changed functions, one caller each."""
    callers = [use(f"Caller{i}", "shapes/many.go", 1, f"Helper{i}") for i in range(800)]
    return impact(*[changed(f"Helper{i}", "shapes/many.go", "modified", caller) for i, caller in enumerate(callers)])


def real(tmp_path_factory: pytest.TempPathFactory) -> Impact:
    """The TypeScript fixture with a pull request that changes Shape.area and total (syntax layer:
    no analyzer needed to draw)."""
    repo = Repo(tmp_path_factory.mktemp("real") / "shapes")
    shutil.copytree(FIXTURES / "exact" / "typescript", repo.path, dirs_exist_ok=True)
    repo.commit(message="main")
    save_to_notes(open_repository(str(repo.path)), index_repository(str(repo.path), run_analyzers=False))
    shape = repo.path / "src" / "shapes" / "shape.ts"
    text = shape.read_text(encoding="utf-8")
    shape.write_text(text.replace("area(): number;", "area(unit?: string): number;")
                     .replace("sum + item.area(), 0", "sum + 2 * item.area(), 0"), encoding="utf-8")  # fmt: skip
    repo.commit(message="pr")
    return analyze(str(repo.path), "HEAD~1", "HEAD")


CASES: dict[str, Callable[[], Impact]] = {
    "small": small,
    "one_changed_many_dependents": one_changed_many_dependents,
    "many_changed": many_changed,
    "cross_file": cross_file,
    "consumers": consumers,
    "interfaces": interfaces,
    "import_only": import_only,
    "hostile": hostile,
    "huge": huge,
}


def mermaid_blocks(markdown: str) -> list[str]:
    return re.findall(r"^```mermaid\n(.*?)^```$", markdown, flags=re.M | re.S)


# -- the real parser -------------------------------------------------------------------------------


def missing(message: str) -> None:
    """Skipped where node or npm is absent; failed where CI requires the real tools."""
    if os.environ.get("KIVGRAPH_REQUIRE_ANALYZERS") == "1":
        pytest.fail(message)
    pytest.skip(message)


def mermaid_home() -> Path:
    """`npm install --no-save` of the pins, once per pin, into kivgraph's cache (test-tools)."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        missing("the Mermaid parser test needs node and npm on PATH")
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "kivgraph" / "test-tools"
    home = base / f"mermaid-{MERMAID}-jsdom-{JSDOM}"
    if (home / "node_modules" / "mermaid" / "package.json").is_file():
        return home
    staging = base / f".{home.name}.{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    done = subprocess.run([str(npm), "install", "--no-save", "--no-audit", "--no-fund", "--ignore-scripts",
                           f"mermaid@{MERMAID}", f"jsdom@{JSDOM}"], cwd=staging, capture_output=True, text=True,
                          timeout=600, check=False)  # fmt: skip
    if done.returncode != 0:
        shutil.rmtree(staging, ignore_errors=True)
        missing(f"npm install mermaid@{MERMAID} failed (offline?): {done.stderr[-1000:]}")
    try:
        staging.rename(home)
    except OSError:  # another run installed it meanwhile
        shutil.rmtree(staging, ignore_errors=True)
    return home


def parse_all(texts: list[str]) -> list[dict[str, Any]]:
    home = mermaid_home()
    script = home / "parse.mjs"
    if not script.is_file() or script.read_text(encoding="utf-8") != PARSE:
        script.write_text(PARSE, encoding="utf-8")
    done = subprocess.run(["node", str(script)], input=json.dumps(texts), capture_output=True, text=True,
                          timeout=300, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def drawn(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Impact, str, dict[str, Any]]]:
    """Each case: its impact, the one Mermaid block of its comment, and what Mermaid parsed of it."""
    mermaid_home()  # skipped (or failed) before any work when the parser cannot be had
    impacts = {name: make() for name, make in CASES.items()}
    impacts["real"] = real(tmp_path_factory)
    blocks: dict[str, str] = {}
    for name, found in impacts.items():
        [block] = mermaid_blocks(to_markdown(found, limit=10_000_000))
        blocks[name] = block
    results = parse_all(list(blocks.values()))
    return {name: (impacts[name], blocks[name], result) for name, result in zip(blocks, results, strict=True)}


@pytest.mark.parametrize("case", [*CASES, "real"])
def test_every_graph_the_comment_can_carry_parses_with_mermaid_and_injects_nothing(drawn, case: str):
    found, block, parsed = drawn[case]
    assert parsed["ok"], f"{parsed.get('error')}\n{block}"
    assert parsed["type"] == "flowchart-v2" and parsed["config"] == {}  # no %%{init}%% got through
    assert parsed["clicks"] == 0 and parsed["tooltips"] == 0
    graph = impact_graph(found)
    ids = {v["id"] for v in parsed["vertices"]}
    assert all(re.fullmatch(r"n\d+|more", i) for i in ids), ids
    drawn_nodes = {int(i[1:]) for i in ids if i != "more"}
    assert 2 <= len(drawn_nodes) <= MERMAID_NODES
    assert all(re.fullmatch(r"f\d+", s["id"]) for s in parsed["subgraphs"])
    # Every symbol sits in the subgraph of its file; nothing else is in one.
    members = [n for s in parsed["subgraphs"] for n in s["nodes"]]
    assert sorted(members) == sorted(f"n{i}" for i in drawn_nodes)
    for s in parsed["subgraphs"]:
        assert len({(graph.nodes[int(n[1:])].repository, graph.nodes[int(n[1:])].file_path) for n in s["nodes"]}) == 1
    # Labels read back as the names; every changed symbol drawn is marked, and only those.
    for v in parsed["vertices"]:
        if v["id"] == "more":
            continue
        node = graph.nodes[int(v["id"][1:])]
        name = v["text"].partition("<br>")[0]
        assert name == node.qualified_name.translate(CONTROL) or name.startswith("…"), (name, node)
        assert ("changed" in v["classes"]) == bool(node.change)
    assert all(e["start"] in ids and e["end"] in ids for e in parsed["edges"])


CONTROL = {ord("\n"): "\ufffd", ord("\u202e"): "\ufffd"}


def test_a_hostile_name_reads_back_exactly_and_breaks_nothing(drawn):
    _, block, parsed = drawn["hostile"]
    texts = {v["text"].partition("<br>")[0] for v in parsed["vertices"]}
    assert {name.translate(CONTROL) for name in HOSTILE} <= texts
    titles = {s["title"] for s in parsed["subgraphs"]}
    assert 'we"ird|path`%%.py' in titles and 'evil"repo`%%: src/x.py' in titles
    # Nothing a name holds reaches the source raw: no quote inside a label, no comment, no markup.
    for line in block.splitlines():
        for text in re.findall(r'\["(.*?)"\]', line):
            assert not set(re.sub(r"#\d+;", "", text.replace("<br/>", ""))) & set('"`%<>|;#[]{}'), line
    assert "%%" not in block and "`" not in block


# -- the shape, in Python --------------------------------------------------------------------------


def labels(flowchart: str) -> dict[str, str]:
    """Each node's label, its entity codes decoded."""
    found = re.findall(r'^\s+(n\d+|more)\["(.*?)"\]$', flowchart, flags=re.M)
    return {node: re.sub(r"#(\d+);", lambda m: chr(int(m[1])), text) for node, text in found}


def test_every_changed_symbol_drawn_is_marked_not_only_the_first():
    flowchart = to_mermaid(many_changed())
    [marked] = re.findall(r"^  class (\S+) changed$", flowchart, flags=re.M)
    graph = impact_graph(many_changed())
    assert sorted(marked.split(",")) == sorted(f"n{i}" for i, n in enumerate(graph.nodes) if n.change)
    assert len(marked.split(",")) == 14


def test_a_large_impact_keeps_the_most_depended_on_symbols_and_says_how_many_more():
    flowchart = to_mermaid(one_changed_many_dependents())
    shown = labels(flowchart)
    names = {text.partition("<br/>")[0] for i, text in shown.items() if i != "more"}
    assert len(names) == MERMAID_NODES
    # The changed function, its 12 callers (each used three times), then users that are used.
    assert "parse" in names and {f"caller{i}" for i in range(12)} <= names and "user0_0" in names
    total = 1 + 12 + 36 + 5
    assert shown["more"] == f"+{total - MERMAID_NODES} more symbols · paths under src/"
    assert "flowchart RL" in flowchart


def test_many_changed_symbols_each_bring_one_user_before_the_cap_runs_out():
    names = [text.partition("<br/>")[0] for i, text in labels(to_mermaid(huge())).items() if i != "more"]
    assert len(names) == MERMAID_NODES - MERMAID_NODES % 2
    assert sum(name.startswith("Helper") for name in names) == sum(name.startswith("Caller") for name in names)


def test_import_only_modules_are_left_out_and_counted():
    flowchart = to_mermaid(import_only())
    shown = labels(flowchart)
    assert {text.partition("<br/>")[0] for i, text in shown.items() if i != "more"} == {"lib.total", "app.main"}
    assert shown["more"] == "2 import-only modules and 1 symbol reached only through them left out"
    graph = graph_json(import_only())
    assert sorted(n["qualified_name"] for n in graph["nodes"] if n["import_only"]) == ["app", "tests.test_total"]


def test_symbols_are_grouped_by_file_under_short_paths_and_consumers_under_their_repository():
    titles = re.findall(r'^  subgraph f\d+\["(.*?)"\]$', to_mermaid(cross_file()), flags=re.M)
    assert sorted(titles) == ["billing/invoice.py", "billing/report.py", "cart/cart.py", "money/price.py",
                              "money/types.py"]  # fmt: skip
    titles = re.findall(r'^  subgraph f\d+\["(.*?)"\]$', to_mermaid(consumers()), flags=re.M)
    assert sorted(titles) == ["billing: src/fetch.py", "billing: src/run.py", "client.py", "sync.py",
                              "web-app: app/page.ts"]  # fmt: skip


def test_edges_say_how_a_symbol_uses_another_and_a_step_not_drawn_is_dotted():
    flowchart = to_mermaid(interfaces())
    graph = impact_graph(interfaces())
    n = {node.qualified_name: f"n{i}" for i, node in enumerate(graph.nodes)}
    assert f"  {n['main']} --> {n['total']}" in flowchart
    # A call dispatched through an interface names it.
    assert f'  {n["total"]} -->|"via Shape.area"| {n["Square.area"]}' in flowchart
    assert f'  {n["Circle.area"]} -->|"implements"| {n["Square.area"]}' in flowchart
    # A conformance site uses the member it stands for, named by via_interface.
    assert f'  {n["draw"]} -->|"conforms"| {n["Circle.area"]}' in flowchart
    assert f"  {n['lost']} -.-> {n['Square.area']}" in flowchart


def test_report_json_carries_the_whole_graph_uncapped():
    found = one_changed_many_dependents()
    report = json.loads(json.dumps(to_json(found)))
    assert len(report["graph"]["nodes"]) == 1 + 12 + 36 + 5 and len(report["graph"]["edges"]) == 12 + 36 + 5
    [parse] = [i for i, n in enumerate(report["graph"]["nodes"]) if n["change"]]
    assert report["graph"]["nodes"][parse]["qualified_name"] == "parse" and parse == 0
    assert sum(e["target"] == parse for e in report["graph"]["edges"]) == 12
    assert {"source", "target", "via_kind", "via_confidence"} <= set(report["graph"]["edges"][0])


def test_a_change_nothing_depends_on_draws_no_graph():
    lonely = impact(changed("unused", "src/unused.py", "modified"))
    assert to_mermaid(lonely) == "" and "```mermaid" not in to_markdown(lonely)
    assert graph_json(lonely) == {"nodes": [{"qualified_name": "unused", "kind": "function", "repository": REPO,
                                             "file_path": "src/unused.py", "start_line": 10, "depth": 0,
                                             "change": "modified", "import_only": False}], "edges": []}  # fmt: skip
