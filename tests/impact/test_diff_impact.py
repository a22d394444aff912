"""diff-impact on real repositories with real history: the Go fixture indexed with scip-go on main,
then one pull request per kind of change, read back from the base commit's note."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kivgraph.impact.analysis import analyze
from kivgraph.impact.report import COMMENT_LIMIT, to_json, to_markdown
from kivgraph.indexing import index_repository
from kivgraph.store import save_to_notes
from kivgraph.store.git import open_repository
from tests.conftest import FIXTURES, Repo
from tests.scip.analyzers import require

SHAPES = "shapes/shapes.go"


@pytest.fixture
def indexed(tmp_path: Path) -> Repo:
    """The fixture committed on main with its generation in notes; each test branches off it."""
    require("scip-go")
    repo = Repo(tmp_path / "shapes")
    shutil.copytree(FIXTURES / "exact" / "go", repo.path, dirs_exist_ok=True)
    repo.commit(message="main")
    save_to_notes(open_repository(str(repo.path)), index_repository(str(repo.path), run_analyzers=True))
    repo.git("checkout", "-q", "-b", "pr")
    return repo


def edit(repo: Repo, path: str, old: str, new: str) -> None:
    file = repo.path / path
    text = file.read_text(encoding="utf-8")
    assert old in text, (path, old)
    file.write_text(text.replace(old, new), encoding="utf-8")


def changes(impact) -> dict[str, tuple[str, set[str]]]:
    return {s.qualified_name: (s.change, {a.qualified_name for a in s.affected}) for s in impact.changed}


def test_a_body_change_reaches_the_callers_of_the_function(indexed: Repo):
    edit(indexed, SHAPES, "sum += item.Area()", "sum += 2 * item.Area()")
    indexed.commit(message="body")
    impact = analyze(str(indexed.path), "main", "HEAD")
    assert changes(impact) == {"Total": ("modified", {"main"})}
    assert impact.generation_commit == impact.base_commit and impact.notes == []
    assert impact.completeness["verdict"] == "COMPLETE"


def test_a_signature_change_says_before_and_after(indexed: Repo):
    edit(indexed, SHAPES, "func Scale(s Square, k float64) Square", "func Scale(s Square, k int) Square")
    indexed.commit(message="signature")
    [symbol] = analyze(str(indexed.path), "main", "HEAD").changed
    assert (symbol.change, symbol.qualified_name) == ("signature_changed", "Scale")
    assert symbol.signature_before.endswith("k float64) Square") and symbol.signature_after.endswith("k int) Square")
    assert [a.qualified_name for a in symbol.affected] == ["main"]  # geo.Scale's callers are not shapes.Scale's


def test_deleting_a_function_still_called_names_its_callers(indexed: Repo):
    edit(indexed, "geo/geo.go", "func Scale(x, k float64) float64 { return x * k }\n", "")
    indexed.commit(message="delete")
    impact = analyze(str(indexed.path), "main", "HEAD")
    assert changes(impact) == {"Scale": ("deleted", {"main"})}
    assert impact.changed[0].file_path == "geo/geo.go"


def test_an_interface_method_change_reaches_callers_through_the_implementation(indexed: Repo):
    edit(indexed, SHAPES, "func (s Square) Area() float64 { return s.Side * s.Side }",
         "func (s Square) Area() float64 { return s.Side * s.Side * 1 }")  # fmt: skip
    indexed.commit(message="impl")
    [symbol] = analyze(str(indexed.path), "main", "HEAD").changed
    reached = {(a.qualified_name, a.via_interface) for a in symbol.affected}
    assert ("Total", "Shape.Area") in reached and ("main", "Shape.Area") in reached


def test_comment_and_layout_edits_change_nothing(indexed: Repo):
    edit(indexed, SHAPES, "// Total sums the areas", "// Total adds up the areas")
    edit(indexed, SHAPES, "\tsum := 0.0\n", "\tsum := 0.0 // running total\n\n")
    indexed.commit(message="comments")
    impact = analyze(str(indexed.path), "main", "HEAD")
    assert impact.changed == [] and impact.files_changed == 1
    assert json.loads(json.dumps(to_json(impact)))["verdict"] == "NO_CHANGE"


def test_a_rename_is_the_old_name_deleted_with_its_callers_and_the_new_one_added(indexed: Repo):
    edit(indexed, SHAPES, "func Total[T Shape]", "func Sum[T Shape]")
    edit(indexed, "cmd/app/main.go", "shapes.Total(squares)", "shapes.Sum(squares)")
    indexed.commit(message="rename")
    found = changes(analyze(str(indexed.path), "main", "HEAD"))
    assert found["Total"] == ("deleted", {"main"})
    assert found["Sum"] == ("added", set())
    assert found["main"][0] == "modified"


def test_a_function_moved_to_another_file_unchanged_is_moved(indexed: Repo):
    body = "// Scale is declared here and, with the same name, in package geo.\n" \
           "func Scale(s Square, k float64) Square { return Square{Side: s.Side * k} }\n"  # fmt: skip
    edit(indexed, SHAPES, body, "")
    (indexed.path / "shapes" / "scale.go").write_text("package shapes\n\n" + body, encoding="utf-8")
    indexed.commit(message="move")
    [symbol] = analyze(str(indexed.path), "main", "HEAD").changed
    assert (symbol.change, symbol.file_path, symbol.base_path) == ("moved", "shapes/scale.go", SHAPES)
    assert [a.qualified_name for a in symbol.affected] == ["main"]


def test_the_working_tree_is_compared_with_head_by_default(indexed: Repo):
    edit(indexed, SHAPES, "sum += item.Area()", "sum -= item.Area()")
    impact = analyze(str(indexed.path), None, None)
    assert changes(impact) == {"Total": ("modified", {"main"})}
    assert impact.head_commit == "" and "working tree" in impact.notes[0]


def test_a_base_without_a_note_uses_the_nearest_indexed_ancestor_and_says_so(indexed: Repo):
    indexed.commit({"notes.txt": "unindexed base\n"}, message="base without a note")
    base = indexed.git("rev-parse", "HEAD")
    edit(indexed, SHAPES, "sum += item.Area()", "sum += 3 * item.Area()")
    indexed.commit(message="change")
    impact = analyze(str(indexed.path), base, "HEAD")
    assert impact.generation_commit != base and "nearest indexed ancestor" in impact.notes[0]
    assert changes(impact) == {"Total": ("modified", {"main"})}
    indexed_now = analyze(str(indexed.path), base, "HEAD", index_missing=True)
    assert indexed_now.generation_commit == base and "indexed it now" in indexed_now.notes[0]
    assert indexed.git("notes", "--ref=kivgraph", "show", base)  # the note is stored for next time


def test_a_base_indexed_without_its_type_checker_says_so_and_names_the_fix(indexed: Repo):
    base = indexed.git("rev-parse", "HEAD")
    exact = analyze(str(indexed.path), base, "HEAD")
    assert not [n for n in exact.notes if "base exactness" in n]  # scip-go ran on the base
    save_to_notes(open_repository(str(indexed.path)), index_repository(str(indexed.path), run_analyzers=False))
    edit(indexed, SHAPES, "sum += item.Area()", "sum += 3 * item.Area()")
    guessed = analyze(str(indexed.path), base, None)
    [line] = [n for n in guessed.notes if "base exactness" in n]
    assert "syntax-only for go (scip-go did not run)" in line and "kivgraph analyzers install" in line


def test_no_generation_anywhere_is_a_clear_error(tmp_path: Path):
    repo = Repo(tmp_path / "bare")
    repo.commit({"a.go": "package a\n\nfunc A() {}\n"}, message="one")
    repo.commit({"a.go": "package a\n\nfunc A() { println() }\n"}, message="two")
    done = subprocess.run([sys.executable, "-m", "kivgraph", "diff-impact", str(repo.path), "--base", "HEAD~1"],
                          capture_output=True, text=True, check=False)  # fmt: skip
    assert done.returncode == 1 and "--index-missing" in done.stderr and "Traceback" not in done.stderr


def test_the_three_formats_and_the_failure_threshold(indexed: Repo):
    edit(indexed, SHAPES, "func Scale(s Square, k float64) Square", "func Scale(s Square, k int) Square")
    indexed.commit(message="signature")

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "kivgraph", "diff-impact", str(indexed.path), "--base", "main",
                               *args], capture_output=True, text=True, check=False, env={"NO_COLOR": "1",
                               "PATH": "/usr/bin:/bin", "HOME": str(indexed.path.parent)})  # fmt: skip

    report = json.loads(run("--format", "json").stdout)
    assert report["schema"] == "kivgraph.diff-impact/1" and report["verdict"] == "IMPACT"
    assert report["summary"]["affected"] == 1 and report["changed"][0]["change"] == "signature_changed"
    markdown = run("--format", "markdown", "--link-base", "https://github.com/o/r/blob/abc").stdout
    assert "| `Scale` | signature changed |" in markdown and "```mermaid" in markdown
    assert "(https://github.com/o/r/blob/abc/cmd/app/main.go#L10)" in markdown
    text = run().stdout
    assert "signature changed" in text and "\x1b[" not in text
    gate = run("--fail-on", "1")
    assert gate.returncode == 3 and "at or above --fail-on 1" in gate.stderr
    assert run("--fail-on", "2").returncode == 0


def test_a_huge_report_stays_within_githubs_comment_limit_and_says_what_it_cut(indexed: Repo):
    count = 800
    helpers = "\n".join(
        f"func Helper{i}() float64 {{ return Total([]Square{{}}) }}\nfunc Caller{i}() float64 {{ return Helper{i}() }}"
        for i in range(count)
    )
    (indexed.path / "shapes" / "many.go").write_text(f"package shapes\n\n{helpers}\n", encoding="utf-8")
    indexed.commit(message="many callers")
    save_to_notes(open_repository(str(indexed.path)), index_repository(str(indexed.path), run_analyzers=False))
    text = (indexed.path / "shapes" / "many.go").read_text(encoding="utf-8")
    (indexed.path / "shapes" / "many.go").write_text(text.replace("{ return Total", "{ return 1 + Total"),
                                                      encoding="utf-8")  # fmt: skip
    indexed.commit(message="touch every helper")
    impact = analyze(str(indexed.path), "HEAD~1", "HEAD")
    assert len(impact.changed) == count and len(impact.affected) == count
    markdown = to_markdown(impact, lambda p, line, commit: f"https://example.invalid/{commit}/{p}#L{line}")
    assert len(markdown) <= COMMENT_LIMIT
    # Details go first, then the graph, then table rows; each cut is said with its count.
    assert f"… and {count} more symbols' details (the JSON report has them all)" in markdown
    rows = markdown.count("| body modified |")
    assert 0 < rows < count and f"| … and {count - rows} more changed symbols |" in markdown
    roomy = to_markdown(impact, limit=10_000_000)
    assert roomy.count("| body modified |") == count and "more symbols' details" not in roomy
    assert len(to_json(impact)["changed"]) == count
