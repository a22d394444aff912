"""report.json read back: `from_json` rebuilds the Impact that `to_json` wrote, so the comment step
renders the comment from data instead of posting an artifact's markdown; a report that is not one
(a wrong type, an unknown value, counts that do not match the rows) is refused, naming the field."""

import copy
import json
import shutil
from collections.abc import Callable
from typing import Any

import pytest

from kivgraph.errors import KivgraphError
from kivgraph.impact.analysis import Impact, analyze
from kivgraph.impact.report import ReportError, from_json, to_json, to_markdown, to_text
from kivgraph.indexing import index_repository
from kivgraph.store import save_to_notes
from kivgraph.store.git import open_repository
from tests.conftest import FIXTURES, Repo
from tests.impact.test_markdown import github, hostile
from tests.scip.analyzers import require


def again(impact: Impact) -> Impact:
    return from_json(json.loads(json.dumps(to_json(impact))))


@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory) -> Impact:
    """A signature change and a body change on the Go fixture, with a workspace naming a consumer
    that cannot be read (a LOWER_BOUND with its reasons)."""
    require("scip-go")
    root = tmp_path_factory.mktemp("json")
    repo = Repo(root / "shapes")
    shutil.copytree(FIXTURES / "exact" / "go", repo.path, dirs_exist_ok=True)
    repo.commit(message="main")
    save_to_notes(open_repository(str(repo.path)), index_repository(str(repo.path), run_analyzers=True))
    text = (repo.path / "shapes" / "shapes.go").read_text(encoding="utf-8")
    text = text.replace("k float64) Square", "k int) Square").replace("sum += item.Area()", "sum += 2 * item.Area()")
    repo.commit({"shapes/shapes.go": text}, message="pr")
    (root / "kivgraph.toml").write_text(f'[[repository]]\npath = "{root / "missing"}"\n', encoding="utf-8")
    return analyze(str(repo.path), "HEAD~1", "HEAD", workspace=str(root / "kivgraph.toml"))


def test_the_comment_rebuilt_from_report_json_is_the_comment(real: Impact):
    assert real.completeness["verdict"] == "LOWER_BOUND" and len(real.changed) == 2
    rebuilt = again(real)
    assert to_markdown(rebuilt) == to_markdown(real)
    assert to_markdown(rebuilt, github, 4000, "<!-- m -->") == to_markdown(real, github, 4000, "<!-- m -->")
    assert to_text(rebuilt) == to_text(real) and to_json(rebuilt) == to_json(real)


def test_hostile_names_survive_the_round_trip_as_inert_as_they_went_in():
    found = hostile()
    assert to_markdown(again(found), github) == to_markdown(found, github)


def report(real: Impact) -> dict[str, Any]:
    return json.loads(json.dumps(to_json(real)))


def put(path: str, value: object) -> Callable[[dict[str, Any]], None]:
    """Set (or, with ..., delete) the field at a dotted path with [i] indexes."""

    def change(data: dict[str, Any]) -> None:
        *parents, last = path.replace("[", ".").replace("]", "").split(".")
        holder: Any = data
        for key in parents:
            holder = holder[int(key)] if key.isdigit() else holder[key]
        if value is ...:
            del holder[last]
        else:
            holder[int(last) if last.isdigit() else last] = value

    return change


@pytest.mark.parametrize(("change", "field", "says"), [
    (put("schema", "kivgraph.diff-impact/9"), "schema", "must be 'kivgraph.diff-impact/1'"),
    (put("changed[0].affected[0].start_line", "10"), "changed[0].affected[0].start_line",
     "must be a whole number, not a string"),
    (put("changed[0].affected[0].depth", True), "changed[0].affected[0].depth", "not a boolean"),
    (put("changed[0].change", "renamed"), "changed[0].change", "is not a valid value: 'renamed'"),
    (put("changed[0].affected[0].via_kind", "[x](https://evil.example)"), "changed[0].affected[0].via_kind",
     "is not a valid value"),
    (put("changed[0].affected[0].revision", "main"), "changed[0].affected[0].revision", "is not a valid value"),
    (put("changed[0].kind", "<b>"), "changed[0].kind", "is not a valid value"),
    (put("base.commit", "HEAD"), "base.commit", "is not a valid value"),
    (put("head.commit", 7), "head.commit", "must be a string, not a number"),
    (put("depth", 9), "depth", "must be between 1 and 5, not 9"),
    (put("notes", ["fine", 3]), "notes[1]", "must be a string"),
    (put("changed[0].imported_by", ...), "changed[0].imported_by", "is missing"),
    (put("changed[0].imported_by[0].file_path", None), "changed[0].imported_by[0].file_path", "not null"),
    (put("completeness.blind_spots", [{"reason": "X", "file_path": "a.go"}]), "completeness.blind_spots[0].start_line",
     "is missing"),
    (put("completeness.invisible_scopes[0].reason", "rm -rf"), "completeness.invisible_scopes[0].reason",
     "is not a valid value"),
    (put("completeness.verdict", "MAYBE"), "completeness.verdict", "is not a valid value"),
    (put("seconds", "fast"), "seconds", "must be a number of seconds"),
    (put("unavailable_repositories[0]", []), "unavailable_repositories[0]", "must be an object, not an array"),
    # Counts that do not match the rows: a gate reads summary.affected.
    (put("summary.affected", 0), "summary.affected", "must be 1"),
    (put("summary.direct", 1.0), "summary.direct", "must be 1"),
    (put("verdict", "NO_IMPACT"), "verdict", "must be 'IMPACT'"),
    (put("changed[0].direct", 7), "changed[0].direct", "must be 1"),
    (put("base.stale", True), "base.stale", "must be False"),
    (put("consumers", [{"repository": "elsewhere", "affected": []}]), "consumers", "must list"),
])  # fmt: skip
def test_a_report_that_is_not_one_is_refused_naming_the_field(real: Impact, change: Callable[[dict[str, Any]], None],
                                                              field: str, says: str):  # fmt: skip
    data = report(real)
    change(data)
    with pytest.raises(ReportError) as caught:
        from_json(data)
    assert caught.value.field == field and says in str(caught.value)
    assert isinstance(caught.value, KivgraphError) and str(caught.value).startswith(field)


@pytest.mark.parametrize("data", [[], "report", None, 3, {"schema": "kivgraph.diff-impact/1"}])
def test_what_is_not_a_report_object_is_refused(data: object):
    with pytest.raises(ReportError):
        from_json(data)


def test_fields_a_newer_writer_adds_are_ignored(real: Impact):
    data = report(real)
    data["added_later"] = {"anything": [1, 2]}
    data["changed"][0]["affected"][0]["added_later"] = True
    data["completeness"]["added_later"] = "x"
    assert to_markdown(from_json(data)) == to_markdown(real)


def test_a_rebuilt_report_holds_only_what_was_checked(real: Impact):
    data = report(real)
    rebuilt = from_json(copy.deepcopy(data))
    assert set(rebuilt.completeness) <= {"verdict", "invisible_scopes", "blind_spots", "reasons", "more_blind_spots",
                                         "more_invisible_scopes", "fallback"}  # fmt: skip
    assert rebuilt.head_commit == data["head"]["commit"] and rebuilt.files_changed == data["summary"]["files_changed"]
