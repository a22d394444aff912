"""One place per symbol, linked to the commit it is in: a dependent in a file the pull request
edits is named by its line in the head (not the base's, which lands on another line there); one
the head deleted stays at its base line and links into the base; a renamed file's dependent is at
its new path. Text, markdown and JSON say the same line. The Go fixture, indexed with scip-go."""

import re
import shutil
from pathlib import Path

import pytest

from kivgraph.impact.analysis import Affected, Impact, analyze
from kivgraph.impact.report import to_json, to_markdown, to_text
from kivgraph.indexing import index_repository
from kivgraph.store import save_to_notes
from kivgraph.store.git import open_repository
from tests.conftest import FIXTURES, Repo
from tests.scip.analyzers import require

SHAPES, MAIN = "shapes/shapes.go", "cmd/app/main.go"
SUM = 'package report\n\nimport "example.com/exact/shapes"\n\n// Sum is deleted by the pull request.\n' \
      "func Sum() float64 { return shapes.Total([]shapes.Square{}) }\n"  # fmt: skip
KEEP = 'package report\n\nimport "example.com/exact/shapes"\n\n// Keep moves to another file, unchanged.\n' \
       "func Keep() float64 { return shapes.Total([]shapes.Square{{Side: 1}}) }\n"  # fmt: skip
HELPER = '// banner is new: it pushes main down.\nfunc banner() string {\n\treturn "shapes"\n}\n\n'


def line_of(text: str, needle: str) -> int:
    return text[: text.index(needle)].count("\n") + 1


def url(commit: str, path: str, line: int) -> str:
    return f"https://github.com/o/r/blob/{commit}/{path}#L{line}"


def links(impact: Impact) -> str:
    return to_markdown(impact, lambda path, line, commit: url(commit, path, line))


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    require("scip-go")
    repo = Repo(tmp_path / "lines")
    shutil.copytree(FIXTURES / "exact" / "go", repo.path, dirs_exist_ok=True)
    repo.commit({"report/sum.go": SUM, "report/keep.go": KEEP}, message="main")
    save_to_notes(open_repository(str(repo.path)), index_repository(str(repo.path), run_analyzers=True))
    return repo


def pull_request(repo: Repo) -> None:
    shapes = (repo.path / SHAPES).read_text(encoding="utf-8")
    main = (repo.path / MAIN).read_text(encoding="utf-8")
    (repo.path / "report" / "sum.go").unlink()
    (repo.path / "report" / "keep.go").rename(repo.path / "report" / "kept.go")
    repo.commit({SHAPES: shapes.replace("sum += item.Area()", "sum += 2 * item.Area()"),
                 MAIN: main.replace("func main()", HELPER + "func main()")}, message="pr")  # fmt: skip


def by_name(impact: Impact) -> dict[str, Affected]:
    [total] = [s for s in impact.changed if s.qualified_name == "Total"]
    return {a.qualified_name: a for a in total.affected}


def test_each_dependent_is_named_where_the_head_has_it_else_where_the_base_had_it(repo: Repo):
    base_main = line_of((repo.path / MAIN).read_text(encoding="utf-8"), "func main()")
    base_sum = line_of(SUM, "func Sum()")
    pull_request(repo)
    head_main = line_of((repo.path / MAIN).read_text(encoding="utf-8"), "func main()")
    assert head_main == base_main + HELPER.count("\n")
    impact = analyze(str(repo.path), "HEAD~1", "HEAD")
    base, head = impact.base_commit, impact.head_commit

    rows = by_name(impact)
    assert (rows["main"].file_path, rows["main"].start_line, rows["main"].revision) == (MAIN, head_main, "head")
    assert (rows["Sum"].file_path, rows["Sum"].start_line, rows["Sum"].revision) == ("report/sum.go", base_sum, "base")
    assert (rows["Keep"].file_path, rows["Keep"].revision) == ("report/kept.go", "head")

    markdown, text = links(impact), to_text(impact)
    assert f"[`{MAIN}:{head_main}`]({url(head, MAIN, head_main)})" in markdown
    assert f"[`report/sum.go:{base_sum}`]({url(base, 'report/sum.go', base_sum)})" in markdown
    assert f"({url(head, 'report/kept.go', rows['Keep'].start_line)})" in markdown
    assert f"{MAIN}:{head_main} " in text and f"{MAIN}:{base_main} " not in text
    # One line per symbol: the JSON, the text and the markdown agree.
    rows_json = {a["qualified_name"]: a for s in to_json(impact)["changed"] for a in s["affected"]}
    assert (rows_json["main"]["start_line"], rows_json["main"]["revision"]) == (head_main, "head")
    assert (rows_json["Sum"]["start_line"], rows_json["Sum"]["revision"]) == (base_sum, "base")
    # Changed symbols: where the head has them; a deleted one where the base had it, linked there.
    [deleted] = [s for s in impact.changed if s.qualified_name == "Sum"]
    assert deleted.change == "deleted"
    assert f"[`report/sum.go:{base_sum}`]({url(base, 'report/sum.go', base_sum)}) |" in markdown
    total_line = line_of((repo.path / SHAPES).read_text(encoding="utf-8"), "func Total")
    assert f"[`{SHAPES}:{total_line}`]({url(head, SHAPES, total_line)}) |" in markdown
    # Every link targets the head or the base, never a line the other one has.
    assert set(re.findall(r"/blob/([0-9a-f]{40})/", markdown)) == {base, head}


def test_with_an_older_generation_a_file_changed_since_links_into_that_generation(repo: Repo):
    indexed = repo.git("rev-parse", "HEAD")
    old_main = line_of((repo.path / MAIN).read_text(encoding="utf-8"), "func main()")
    main = (repo.path / MAIN).read_text(encoding="utf-8")
    repo.commit({MAIN: main.replace("func main()", HELPER + "func main()")}, message="unindexed base")
    shapes = (repo.path / SHAPES).read_text(encoding="utf-8")
    repo.commit({SHAPES: shapes.replace("sum += item.Area()", "sum += 2 * item.Area()")}, message="pr")

    impact = analyze(str(repo.path), "HEAD~1", "HEAD")

    assert impact.generation_commit == indexed != impact.base_commit
    rows = by_name(impact)
    # The graph's line for main is the generation's, and main.go changed since: it stays there, linked there.
    assert (rows["main"].start_line, rows["main"].revision) == (old_main, "base")
    assert f"({url(indexed, MAIN, old_main)})" in links(impact)
    # report/sum.go did not change since the generation, nor in the pull request: the head has it there.
    assert rows["Sum"].revision == "head" and f"({url(impact.head_commit, 'report/sum.go', 6)})" in links(impact)
