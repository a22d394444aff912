"""Sharded indexing on a real repository of three Go modules (one a library the others require and
replace): `kivgraph index --shard K/N` runs scip-go on its shard's modules, `kivgraph merge` joins the
shard files, and the generation is the one a single `kivgraph index` makes. Shards that are not
the N of one run are refused by name."""

import json
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from kivgraph.cli import cli
from kivgraph.model import Generation
from kivgraph.shard import MAGIC
from kivgraph.store import load_from_file, load_from_notes
from kivgraph.store.git import open_repository
from tests.conftest import Repo
from tests.scip.analyzers import require

LIB = (
    "package lib\n\n// Do does.\nfunc Do() int { return 1 }\n\n"
    "// Twice calls Do twice.\nfunc Twice() int { return Do() + Do() }\n"
)
TREE: dict[str, str | bytes] = {
    "go.mod": "module example.com/app\n\ngo 1.21\n\nrequire example.com/lib v0.0.0\n\n"
    "replace example.com/lib => ./lib\n",
    "main.go": 'package main\n\nimport "example.com/lib"\n\nfunc main() { println(lib.Twice()) }\n',
    "lib/go.mod": "module example.com/lib\n\ngo 1.21\n",
    "lib/lib.go": LIB,
    "tools/go.mod": "module example.com/tools\n\ngo 1.21\n\nrequire example.com/lib v0.0.0\n\n"
    "replace example.com/lib => ../lib\n",
    "tools/gen.go": 'package tools\n\nimport "example.com/lib"\n\n'
    "// Gen uses the library.\nfunc Gen() int { return lib.Do() }\n",
    "notes.py": "def helper():\n    return 1\n",
}


def run(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def same(a: Generation, b: Generation) -> None:
    assert replace(a.header, created_at="") == replace(b.header, created_at="")
    for table in ("files", "packages", "symbols", "edges", "external_references", "unresolved", "invisible_scopes"):
        assert getattr(a, table) == getattr(b, table), table


@pytest.fixture(scope="module")
def modules(tmp_path_factory: pytest.TempPathFactory) -> tuple[Repo, Path]:
    require("scip-go")
    work = tmp_path_factory.mktemp("shards")
    repo = Repo(work / "mono")
    repo.commit(TREE, message="three modules")
    run("index", str(repo.path), "--languages", "go", "--out", str(work / "one.kgen"))
    for k in (1, 2):
        run("index", str(repo.path), "--languages", "go", "--shard", f"{k}/2", "--out", str(work / f"s{k}.kshard"))
    return repo, work


def test_the_merged_shards_are_the_generation_of_one_run(modules: tuple[Repo, Path]):
    repo, work = modules
    out = json.loads(run("merge", str(work / "s2.kshard"), str(work / "s1.kshard"), "--repo", str(repo.path),
                         "--out", str(work / "merged.kgen"), "--json"))  # fmt: skip
    assert out["counts"]["symbols"] > 0
    assert sorted(u["unit"] for u in out["units"]) == ["scip-go:.", "scip-go:lib", "scip-go:tools"]
    assert all(u["indexed"] and u["seconds"] > 0 and u["shard"] in ("1/2", "2/2") for u in out["units"])
    one, merged = load_from_file(str(work / "one.kgen")), load_from_file(str(work / "merged.kgen"))
    same(one, merged)
    exact = [e for e in merged.edges if e.confidence.value == "EXACT_TYPECHECKED"]
    assert any(e.file == "tools/gen.go" for e in exact)  # a use across modules, type-checked in its shard


def test_merge_publishes_the_note_of_the_shards_commit(modules: tuple[Repo, Path]):
    repo, work = modules
    run("merge", str(work / "s1.kshard"), str(work / "s2.kshard"), "--repo", str(repo.path))
    head = repo.git("rev-parse", "HEAD").strip()
    same(load_from_notes(open_repository(str(repo.path)), head), load_from_file(str(work / "one.kgen")))


def test_a_shard_runs_only_its_units_and_says_so(modules: tuple[Repo, Path]):
    repo, work = modules
    first = json.loads(run("index", str(repo.path), "--languages", "go", "--shard", "1/2", "--out",
                           str(work / "again.kshard"), "--json"))  # fmt: skip
    second = json.loads(run("plan", str(repo.path), "--languages", "go", "--shards", "2", "--json"))
    assert first["units"] == second["shards"][0]["units"]
    assert [r["unit"] for r in first["runs"]] == first["units"] and all(r["indexed"] for r in first["runs"])


def test_shards_that_are_not_the_n_of_one_run_are_refused_by_name(modules: tuple[Repo, Path], tmp_path: Path):
    repo, work = modules

    def refused(*args: str) -> str:
        result = CliRunner().invoke(cli, ["merge", *args, "--repo", str(repo.path), "--out", str(tmp_path / "x")])
        assert result.exit_code != 0 and "Traceback" not in result.output
        return result.output

    s1, s2 = str(work / "s1.kshard"), str(work / "s2.kshard")
    assert "shard 2/2 is missing" in refused(s1)
    assert "given twice" in refused(s1, s1, s2)
    garbage = tmp_path / "garbage.kshard"
    garbage.write_bytes(b"not a shard")
    assert "not a kivgraph shard file" in refused(str(garbage), s2)
    corrupt = tmp_path / "corrupt.kshard"
    corrupt.write_bytes(MAGIC + b"\x28\xb5\x2f\xfd" + b"\x00" * 20)
    assert "is corrupt" in refused(str(corrupt), s2)
    assert not (tmp_path / "x").exists()
    other = Repo(tmp_path / "other")
    other.commit({**TREE, "lib/lib.go": LIB + "\nfunc More() {}\n"}, message="another commit")
    run("index", str(other.path), "--languages", "go", "--shard", "2/2", "--out", str(tmp_path / "o2.kshard"))
    assert "of commit" in refused(s1, str(tmp_path / "o2.kshard"))


def test_shard_options_that_make_no_sense_are_refused(modules: tuple[Repo, Path], tmp_path: Path):
    repo, _ = modules
    for args in (["--shard", "3/2", "--out", "x"], ["--shard", "1/2"], ["--shard", "1/2", "--out", "x", "--worktree"],
                 ["--shard", "one", "--out", "x"]):  # fmt: skip
        result = CliRunner().invoke(cli, ["index", str(repo.path), *args])
        assert result.exit_code != 0 and "--shard" in result.output and "Traceback" not in result.output
