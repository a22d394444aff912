#!/usr/bin/env python3
"""Render a diff-impact PR comment to PNG the way a reviewer sees it: cmark-gfm (GitHub's markdown)
→ HTML at a comment's width, each Mermaid block drawn by mermaid-cli (mmdc) in Chromium, the page
screenshotted by headless Chromium. For looking at, not for tests (tests/impact/test_mermaid.py
parses every graph with the real Mermaid).

  .venv/bin/python scripts/render-report.py report.md -o report.png
  .venv/bin/python scripts/render-report.py --repo PATH --base REV --head REV -o report.png
  .venv/bin/python scripts/render-report.py --examples docs/images      # the PNGs in docs/action.md

Needs node and npm (mermaid-cli is installed, pinned, into ~/.cache/kivgraph/test-tools on first
use, without puppeteer's browser download), Chromium (Debian: `apt-get install chromium`; or
CHROMIUM=/path/to/chrome) and cmark-gfm (Debian: `apt-get install cmark-gfm`). --examples also
needs scip-go and scip-python (`kivgraph analyzers install`).
"""

import argparse
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import NoReturn

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

MERMAID_CLI = "11.17.0"
MERMAID = "11.17.2"
"""The Mermaid the tests parse with (tests/impact/test_mermaid.py)."""
WIDTH = 880
"""The body of a pull request comment on a desktop browser, in CSS pixels."""
EXAMPLE_COMMIT = "e87b2ec"
"""kivgraph's own history: the base of the larger example."""
CSS = """
body { margin: 0; background: #fff; color: #1f2328; font: 14px/1.5 -apple-system, "Segoe UI", "Noto Sans",
       Helvetica, Arial, sans-serif; }
.comment { width: %(width)dpx; margin: 12px; border: 1px solid #d0d7de; border-radius: 6px; }
.head { background: #f6f8fa; border-bottom: 1px solid #d0d7de; padding: 8px 16px; color: #59636e;
        border-radius: 6px 6px 0 0; }
.head b { color: #1f2328; }
.body { padding: 16px; overflow-wrap: break-word; }
h3 { font-size: 1.25em; font-weight: 600; margin: 0 0 16px; line-height: 1.25; }
p, blockquote, ul, table, pre, details { margin: 0 0 16px; }
blockquote { color: #59636e; border-left: .25em solid #d0d7de; padding: 0 1em; margin-left: 0; }
code { font: 85%% ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "Liberation Mono", monospace;
       background: rgba(175, 184, 193, .2); padding: .2em .4em; border-radius: 6px; }
pre { background: #f6f8fa; padding: 16px; border-radius: 6px; overflow: auto; }
pre code { background: none; padding: 0; font-size: 85%%; }
table { border-collapse: collapse; display: block; width: max-content; max-width: 100%%; overflow: auto; }
th, td { border: 1px solid #d0d7de; padding: 6px 13px; }
th { font-weight: 600; }
tr:nth-child(2n) { background: #f6f8fa; }
a { color: #0969da; text-decoration: none; }
ul { padding-left: 2em; }
details summary { cursor: pointer; }
sub { font-size: 75%%; }
.mermaid { margin: 0 0 16px; border: 1px solid #d0d7de; border-radius: 6px; padding: 8px; text-align: center; }
.mermaid svg { max-width: 100%%; height: auto; }
"""


def fail(message: str) -> NoReturn:
    sys.stderr.write(f"Error: {message}\n")
    raise SystemExit(1)


def run(args: list[str], cwd: Path | None = None, env: dict[str, str] | None = None,
        input: str | None = None) -> subprocess.CompletedProcess[str]:  # fmt: skip
    done = subprocess.run(args, cwd=cwd, env=env, input=input, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        fail(f"{' '.join(args[:3])} … exited {done.returncode}: {(done.stderr or done.stdout)[-2000:]}")
    return done


# -- tools -----------------------------------------------------------------------------------------


def chromium() -> str:
    """CHROMIUM, else a Chromium or Chrome on PATH, else one puppeteer downloaded before."""
    explicit = os.environ.get("CHROMIUM")
    if explicit:
        return explicit
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    downloaded = sorted((Path.home() / ".cache" / "puppeteer").glob("chrome*/*/*/chrome*"))
    for path in downloaded:
        if path.is_file() and os.access(path, os.X_OK):
            return str(path)
    fail("no Chromium: `apt-get install chromium` (Debian), or set CHROMIUM to a Chrome/Chromium binary.")


def mmdc() -> Path:
    """mermaid-cli, pinned, in kivgraph's test-tools cache; puppeteer is told not to fetch a browser."""
    if shutil.which("npm") is None or shutil.which("node") is None:
        fail("mermaid-cli needs node and npm on PATH.")
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "kivgraph" / "test-tools"
    home = base / f"mermaid-cli-{MERMAID_CLI}-mermaid-{MERMAID}"
    binary = home / "node_modules" / ".bin" / "mmdc"
    if binary.exists():
        return binary
    staging = Path(tempfile.mkdtemp(prefix=f".{home.name}.", dir=base if base.is_dir() else None))
    sys.stderr.write(f"installing @mermaid-js/mermaid-cli@{MERMAID_CLI} into {home}\n")
    run(["npm", "install", "--no-save", "--no-audit", "--no-fund", "--ignore-scripts",
         f"@mermaid-js/mermaid-cli@{MERMAID_CLI}", f"mermaid@{MERMAID}"], cwd=staging,
        env={**os.environ, "PUPPETEER_SKIP_DOWNLOAD": "1"})  # fmt: skip
    home.parent.mkdir(parents=True, exist_ok=True)
    staging.rename(home)
    return binary


def markdown_to_html(text: str) -> str:
    """GitHub's own markdown (cmark-gfm with its extensions, raw HTML kept, the tag filter on);
    python-markdown when cmark-gfm is absent."""
    cmark = shutil.which("cmark-gfm")
    if cmark:
        extensions = [arg for name in ("table", "autolink", "strikethrough", "tagfilter") for arg in ("-e", name)]
        return run([cmark, "--unsafe", *extensions], input=text).stdout
    try:
        import markdown  # type: ignore[import-not-found]  # optional: the fallback renderer
    except ImportError:
        fail("no markdown renderer: `apt-get install cmark-gfm` (Debian) or `pip install markdown`.")
    return markdown.markdown(text, extensions=["tables", "fenced_code"])


# -- rendering -------------------------------------------------------------------------------------


def render(markdown: str, out: Path, author: str = "github-actions") -> None:
    """The comment as a PNG at `out`."""
    browser = chromium()
    blocks: list[str] = []

    def hold(match: re.Match[str]) -> str:
        blocks.append(match.group(1))
        return f"\n<!--mermaid-{len(blocks) - 1}-->\n"

    held = re.sub(r"^```mermaid\n(.*?)^```$", hold, markdown, flags=re.M | re.S)
    body = markdown_to_html(held)
    with tempfile.TemporaryDirectory(prefix="kivgraph-render-") as scratch:
        work = Path(scratch)
        if blocks:
            tool = mmdc()
            config = work / "puppeteer.json"
            config.write_text(json.dumps({"executablePath": browser, "args": ["--no-sandbox", "--disable-gpu"]}),
                              encoding="utf-8")  # fmt: skip
            for i, block in enumerate(blocks):
                source, svg = work / f"graph{i}.mmd", work / f"graph{i}.svg"
                source.write_text(block, encoding="utf-8")
                run([str(tool), "-q", "-p", str(config), "-i", str(source), "-o", str(svg), "-b", "white",
                     "-w", str(WIDTH)])  # fmt: skip
                drawn = svg.read_text(encoding="utf-8")
                body = body.replace(f"<!--mermaid-{i}-->", f'<div class="mermaid">{drawn}</div>')
        page = work / "comment.html"
        measure = "<script>document.title = 'height=' + document.documentElement.scrollHeight;</script>"
        page.write_text(
            f'<!doctype html><html><head><meta charset="utf-8"><style>{CSS % {"width": WIDTH}}</style></head>'
            f'<body><div class="comment"><div class="head"><b>{html.escape(author)}</b> commented</div>'
            f'<div class="body">{body}</div></div>{measure}</body></html>',
            encoding="utf-8",
        )
        flags = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                 "--force-device-scale-factor=1", f"--user-data-dir={work / 'profile'}"]  # fmt: skip
        dom = run([*flags, f"--window-size={WIDTH + 26},800", "--dump-dom", page.as_uri()]).stdout
        found = re.search(r"<title>height=(\d+)</title>", dom)
        if found is None:
            fail("Chromium did not report the page's height.")
        out.parent.mkdir(parents=True, exist_ok=True)
        run([*flags, f"--window-size={WIDTH + 26},{int(found.group(1))}", f"--screenshot={out.resolve()}",
             page.as_uri()])  # fmt: skip
    sys.stderr.write(f"wrote {out} ({out.stat().st_size:,} bytes)\n")


def report_markdown(repo: str, base: str | None, head: str, url: str = "") -> str:
    """The comment for base..head of `repo`, its places linked under `url` (a GitHub repository's)."""
    from kivgraph.impact.analysis import analyze
    from kivgraph.impact.report import to_markdown

    impact = analyze(repo, base, head)
    return to_markdown(impact, (lambda p, line, commit: f"{url}/blob/{commit}/{p}#L{line}") if url else None)


# -- the examples in docs/action.md ----------------------------------------------------------------


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "Example", "GIT_AUTHOR_EMAIL": "example@example.invalid",
           "GIT_COMMITTER_NAME": "Example", "GIT_COMMITTER_EMAIL": "example@example.invalid",
           "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z"}  # fmt: skip
    return run(["git", *args], cwd=repo, env=env).stdout.strip()


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    if old not in text:
        fail(f"{path}: the example's edit no longer applies ({old!r} is gone); update scripts/render-report.py.")
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def index_base(repo: Path, language: str) -> None:
    from kivgraph.indexing import index_repository
    from kivgraph.model import Language
    from kivgraph.store import save_to_notes
    from kivgraph.store.git import open_repository

    generation = index_repository(str(repo), languages=frozenset({Language(language)}), run_analyzers=True)
    save_to_notes(open_repository(str(repo)), generation)


def examples(out: Path) -> None:
    """Two real pull requests: a small one on the Go fixture (tests/fixtures/exact/go), and a larger
    one on kivgraph itself at EXAMPLE_COMMIT, both indexed with their type checker."""
    with tempfile.TemporaryDirectory(prefix="kivgraph-examples-") as scratch:
        shapes = Path(scratch) / "shapes"
        shutil.copytree(ROOT / "tests" / "fixtures" / "exact" / "go", shapes)
        git(shapes, "init", "-q", "-b", "main")
        git(shapes, "add", "-A")
        git(shapes, "commit", "-q", "-m", "main")
        index_base(shapes, "go")
        go = shapes / "shapes" / "shapes.go"
        edit(go, "func Scale(s Square, k float64) Square", "func Scale(s Square, k int) Square")
        edit(go, "Square{Side: s.Side * k}", "Square{Side: s.Side * float64(k)}")
        edit(go, "\t\tsum += item.Area()\n", "\t\tif area := item.Area(); area > 0 {\n\t\t\tsum += area\n\t\t}\n")
        git(shapes, "commit", "-q", "-am", "Scale by whole factors; Total skips degenerate shapes")
        render(report_markdown(str(shapes), "HEAD~1", "HEAD", "https://github.com/example/shapes"),
               out / "pr-comment-small.png")  # fmt: skip

        kivgraph = Path(scratch) / "kivgraph"
        run(["git", "clone", "-q", "--no-checkout", str(ROOT), str(kivgraph)])
        git(kivgraph, "checkout", "-q", "-B", "main", EXAMPLE_COMMIT)
        index_base(kivgraph, "python")
        store = kivgraph / "kivgraph" / "store" / "git.py"
        edit(store, "def merge_base(repo: pygit2.Repository, left: pygit2.Oid | str, right: pygit2.Oid | str)",
             "def merge_base(repo: pygit2.Repository, left: pygit2.Oid | str, right: pygit2.Oid | str, *, "
             "octopus: bool = False)")  # fmt: skip
        edit(store, "        return int(ahead)", "        return max(0, int(ahead))")
        git(kivgraph, "commit", "-q", "-am", "merge_base: octopus merges; commits_between never negative")
        render(report_markdown(str(kivgraph), "HEAD~1", "HEAD", "https://github.com/example/kivgraph"),
               out / "pr-comment-larger.png")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("report", nargs="?", help="a report.md (the comment body)")
    parser.add_argument("-o", "--out", type=Path, default=Path("report.png"), help="the PNG to write")
    parser.add_argument("--repo", help="analyze this repository instead of reading a report")
    parser.add_argument("--base", help="with --repo: the base revision (default: diff-impact's)")
    parser.add_argument("--head", default="HEAD", help="with --repo: the head revision")
    parser.add_argument("--examples", type=Path, metavar="DIR", help="write the docs' two example PNGs to DIR")
    args = parser.parse_args()
    if args.examples:
        examples(args.examples)
    elif args.repo:
        render(report_markdown(args.repo, args.base, args.head), args.out)
    elif args.report:
        render(Path(args.report).read_text(encoding="utf-8"), args.out)
    else:
        parser.error("give a report.md, --repo or --examples")


if __name__ == "__main__":
    main()
