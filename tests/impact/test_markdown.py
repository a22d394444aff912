"""The PR comment as GitHub shows it: rendered by cmark-gfm (GitHub's markdown) and read back as
HTML. Its shape for a reviewer at a comment's width (verdict and numbers first, short paths, a
signature diff, completeness counted and folded), and that no file path or symbol name — a
backtick, a `|`, a newline, an @mention, a link, HTML — adds a row, a cell, a link or a mention."""

import urllib.parse
from html.parser import HTMLParser
from pathlib import Path

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options

from kivgraph.impact.analysis import Affected, ChangedSymbol, Impact, Importer, analyze
from kivgraph.impact.markdown import code, signature_diff, visible
from kivgraph.impact.report import to_markdown
from kivgraph.indexing import index_repository
from kivgraph.store import save_to_notes
from kivgraph.store.git import open_repository
from tests.conftest import Repo

REPO = "shop"
BASE, HEAD = "b" * 40, "c" * 40
PREFIX = "https://github.com/o/r/blob/"
HOSTILE_PATHS = [
    "src/a`b.py",
    "src/``x``.py",
    "src/x|y.py",
    "src/new\nline.py",
    "src/| two | cells |.py",
    "src/@octocat.py",
    "src/[click](https://evil.example).py",
    "src/<img src=x onerror=alert(1)>.py",
    "src/www.evil.example.py",
    "src/</code></summary><a href=https://evil.example>x</a>.py",
]
HOSTILE_NAMES = [
    'Color["`@everyone` [a](https://evil.example)"]',  # a TypeScript string-literal member
    "a|b",
    "x\n| injected | row |",
    "</code></summary><a href='https://evil.example'>x</a>",
    "@octocat",
    "`",
    "x` @mention `y",
    "www.evil.example",
    "mail@evil.example",
    "trailing\\",
]


def render(markdown: str) -> str:
    """GitHub's markdown, raw HTML let through (GitHub filters it after): an injected tag shows."""
    return cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE)


class Page(HTMLParser):
    """The rendered comment: its tags, links, table rows and the text outside code."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.hrefs: list[str] = []
        self.rows: list[list[str]] = []
        self.loose: list[str] = []
        """Text outside <code> and <pre>: where GitHub links mentions and references."""
        self.depth_code = 0
        self.cell: list[str] | None = None
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        if tag == "a":
            self.hrefs.append(dict(attrs).get("href") or "")
        if tag in ("code", "pre"):
            self.depth_code += 1
        if tag == "tr":
            self.rows.append([])
        if tag in ("td", "th"):
            self.cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("code", "pre"):
            self.depth_code -= 1
        if tag in ("td", "th") and self.cell is not None:
            self.rows[-1].append("".join(self.cell))
            self.cell = None

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)
        if not self.depth_code:
            self.loose.append(data)


def changed(name: str, path: str, change: str = "modified", *uses: Affected, before: str = "",
            after: str = "") -> ChangedSymbol:  # fmt: skip
    symbol = ChangedSymbol(change, name, name, "function", "python", path, 10, 20, base_path=path,
                           signature_before=before, signature_after=after)  # fmt: skip
    symbol.in_base_graph, symbol.affected = True, list(uses)
    return symbol


def use(name: str, path: str, depth: int = 1, reached_from: str = "", revision: str = "head") -> Affected:
    return Affected(name, "function", REPO, path, 5, 9, depth, "CALLS_DIRECT", "EXACT_TYPECHECKED", reached_from, "",
                    revision)  # fmt: skip


def impact(*symbols: ChangedSymbol, completeness: dict[str, object] | None = None) -> Impact:
    return Impact(REPO, BASE, HEAD, BASE, 3, list(symbols), len({s.file_path for s in symbols}), [],
                  completeness or {"verdict": "COMPLETE"}, seconds=0.25)  # fmt: skip


def github(path: str, line: int, commit: str) -> str:
    """The Action's links (kivgraph/action/steps.py)."""
    return f"{PREFIX}{commit}/{urllib.parse.quote(path)}#L{line}"


def careless(path: str, line: int, commit: str) -> str:
    """A link function that does not encode the path (the CLI's --link-base): the report must."""
    return f"{PREFIX}{commit}/{path}#L{line}"


def hostile() -> Impact:
    symbols = [
        changed(name, path, "modified", use(f"user_{i}", path, reached_from=name), use(name, HOSTILE_PATHS[-1 - i]))
        for i, (name, path) in enumerate(zip(HOSTILE_NAMES, HOSTILE_PATHS, strict=True))
    ]
    symbols[0].imported_by = [Importer(REPO, p) for p in HOSTILE_PATHS]
    spots = [{"reason": "RECEIVER_TYPE_UNKNOWN", "repository": REPO, "file_path": p, "start_line": 3,
              "requested_symbol": n} for p, n in zip(HOSTILE_PATHS, HOSTILE_NAMES, strict=True)]  # fmt: skip
    scopes = [{"reason": "PARSE_FAILED", "repository": REPO, "language": "python", "path": HOSTILE_PATHS[3],
               "detail": "[click](https://evil.example) @octocat <b>x</b> `kivgraph index`"}]  # fmt: skip
    found = impact(*symbols, completeness={"verdict": "LOWER_BOUND", "blind_spots": spots, "invisible_scopes": scopes})
    found.notes = ["a note with a `name` and @octocat [x](https://evil.example)\n## not a heading"]
    return found


def assert_inert(markdown: str, rows: int) -> Page:
    page = Page(render(markdown))
    table = [r for r in page.rows if r and r[0] != "direct"]
    assert len(table) == rows and all(len(r) == 6 for r in table), table
    assert all(href.startswith(PREFIX) for href in page.hrefs), page.hrefs
    assert not {"img", "b", "script", "h2"} & set(page.tags)
    loose = "".join(page.loose)
    assert "@" not in loose and "evil.example" not in loose, loose
    return page


@pytest.mark.parametrize("link", [github, careless, None], ids=["encoded", "not encoded", "no links"])
def test_hostile_names_and_paths_stay_inside_their_code_spans_cells_and_links(link):
    found = hostile()
    markdown = to_markdown(found, link)
    page = assert_inert(markdown, len(HOSTILE_NAMES))
    table = [r for r in page.rows if r and r[0] != "direct"]
    assert [r[3] for r in table] == [visible(n) for n in HOSTILE_NAMES]  # each name whole, in its own cell
    assert [r[5] for r in table] == [visible(f"{p.removeprefix('src/')}:10") for p in HOSTILE_PATHS]
    assert page.tags.count("details") == len(HOSTILE_NAMES) + 1  # one per symbol, and the completeness places
    assert page.tags.count("li") == 2 * len(HOSTILE_NAMES) + len(HOSTILE_PATHS) + 1
    if link is not None:
        # Every place is a link, to the file as it is named.
        assert len(page.hrefs) == 3 * len(HOSTILE_NAMES)
        paths = {urllib.parse.unquote(h[len(PREFIX) + 41 :].rpartition("#")[0]) for h in page.hrefs}
        assert paths == set(HOSTILE_PATHS)


def test_a_repository_with_hostile_file_names_renders_as_many_rows_as_changed_symbols(tmp_path: Path):
    repo = Repo(tmp_path / "hostile")
    names = ["we`ird", "pi|pe", "new\nline", "@octocat", "[x](https:--evil.example)", "<img src=x>", "a``b|c"]
    callers = {f"src/{n}.py": f"from lib import total\n\n\ndef caller_{i}():\n    return total()\n"
               for i, n in enumerate(names)}  # fmt: skip
    repo.commit({"lib.py": "def total():\n    return 1\n", **callers}, message="main")
    save_to_notes(open_repository(str(repo.path)), index_repository(str(repo.path), run_analyzers=False))
    edits = {path: text.replace("return total()", "return total() + 1") for path, text in callers.items()}
    repo.commit({"lib.py": "def total():\n    return 2\n", **edits}, message="every file changes")

    found = analyze(str(repo.path), "HEAD~1", "HEAD")

    assert len(found.changed) == len(names) + 1 and len(found.affected) == len(names)
    page = assert_inert(to_markdown(found, github), len(names) + 1)
    assert len(page.hrefs) == 2 * len(names) + 1


SIGNATURE = "def total(self, currency: str, discount: Decimal = Decimal(0), rounding: str = '{}') -> Money"


def test_the_verdict_and_the_numbers_come_before_the_table_and_paths_are_said_once():
    found = impact(
        changed("orders.Order.total", "src/shop/orders.py", "signature_changed",
                use("cart.checkout", "src/shop/cart.py", reached_from="orders.Order.total"),
                use("api.pay", "src/shop/api/pay.py", 2, "cart.checkout"),
                before=SIGNATURE.format("half"), after=SIGNATURE.format("even")),
        changed("orders.helper", "src/shop/orders.py"),
    )  # fmt: skip
    found.changed[0].imported_by = [Importer(REPO, "src/shop/cart.py"), Importer(REPO, "src/shop/tests/test_x.py")]
    markdown = to_markdown(found, github)
    lines = markdown.splitlines()
    table = lines.index("| direct | transitive | imported by | symbol | change | where |")
    assert lines[0] == "### kivgraph impact: 2 changed symbols affect **2** declarations (1 direct) in 2 files."
    assert lines[2] == ("**2** changed · **1** direct · **2** transitive · imported by **2** files · completeness "
                        "**COMPLETE**")  # fmt: skip
    assert lines[4] == f"Base `{BASE[:12]}` → head `{HEAD[:12]}`, depth 3. Paths are relative to `src/shop/`."
    shown = "\n".join(lines[table:]).split("```mermaid")[0].replace(f"{PREFIX}{HEAD}/src/shop/", "")
    assert table > 4 and "src/shop/" not in shown
    assert lines[table + 2].startswith("| 1 | 2 | 2 | `orders.Order.total` | signature changed | [`orders.py:10`]")
    # The signature change as a diff: one parameter a line, only the one that changed marked.
    diff = markdown.split("```diff\n", 1)[1].split("\n```", 1)[0].splitlines()
    assert [line for line in diff if line[0] in "+-"] == [
        "-     rounding: str = 'half',",
        "+     rounding: str = 'even',",
    ]
    assert diff[0] == "  def total(" and diff[-1] == "  ) -> Money"
    assert "- `api.pay` (function) [`api/pay.py:5`]" in markdown
    assert "Imported by `cart.py`, `tests/test_x.py`." in markdown


def test_completeness_is_counted_by_reason_and_by_file_with_every_place_folded():
    spots = [
        {
            "reason": "RECEIVER_TYPE_UNKNOWN",
            "repository": REPO,
            "file_path": f"src/shop/{f}.py",
            "start_line": i,
            "requested_symbol": "total",
        }
        for i, f in enumerate(["a"] * 12 + ["b"] * 6 + ["c"] * 2 + list("defghi"))
    ]
    scopes = [
        {
            "reason": "NO_TYPE_CHECKER",
            "repository": REPO,
            "language": "python",
            "path": ".",
            "detail": "no type checker ran for python: its edges are CANDIDATE, found by the syntax layer",
        }
    ]
    found = impact(
        changed("orders.total", "src/shop/orders.py", "modified", use("x", "src/shop/x.py")),
        completeness={"verdict": "LOWER_BOUND", "blind_spots": spots, "invisible_scopes": scopes},
    )
    markdown = to_markdown(found)
    assert ("**Completeness:** LOWER_BOUND — 27 places could not be read, so there may be more uses: 26 "
            "`RECEIVER_TYPE_UNKNOWN`, 1 `NO_TYPE_CHECKER`.") in markdown  # fmt: skip
    assert "Unresolved uses by file: `a.py` (12), `b.py` (6), `c.py` (2), `d.py` (1), `e.py` (1) and 4 more files." \
           in markdown  # fmt: skip
    folded = markdown.split("<details><summary>Every place (27)</summary>", 1)[1].split("</details>", 1)[0]
    assert folded.count("\n- ") == 27 and "- `RECEIVER_TYPE_UNKNOWN` `a.py:0` `total`" in folded
    assert markdown.count("RECEIVER_TYPE_UNKNOWN") == 27  # once in the counts, each place once in the fold


def test_a_code_span_is_fenced_longer_than_any_backtick_run_in_it():
    assert code("a") == "`a`" and code("a`b") == "``a`b``" and code("``") == "``` `` ```" and code(" x ") == "`  x  `"
    for text in ["`", "a``b", "`start", "end`", " x ", "", "\n"]:
        assert Page(render(code(text))).loose == ["\n"]  # nothing outside the code
        assert Page(render(f"| {code(text)} |\n| - |\n")).rows


def test_a_short_signature_stays_on_one_line():
    assert signature_diff("func Scale(s Square, k float64) Square", "func Scale(s Square, k int) Square") == [
        "- func Scale(s Square, k float64) Square", "+ func Scale(s Square, k int) Square",
    ]  # fmt: skip
