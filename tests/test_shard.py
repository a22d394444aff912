"""Sharded indexing on real repositories (three Go modules, one a library the others require and
replace; a tree of every kind of unit): `kivgraph index --shard K/N` indexes its shard's units with
what they depend on, `kivgraph merge` composes the shard files, and the generation is the one a
single `kivgraph index` makes — blind spots that wait on a name declared in another shard included.
Shards that are not the N of one run, or not of this kivgraph, are refused by name."""

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from kivgraph.cli import cli
from kivgraph.model import Generation
from kivgraph.shard import MAGIC, read_shard
from kivgraph.store import codec, load_from_file, load_from_notes
from kivgraph.store.git import open_repository
from tests.conftest import Repo
from tests.scip.analyzers import require
from tests.scip.test_run import PYTHON_ROOTS

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


def test_a_merge_loads_no_parser_nor_type_checker_machinery(modules: tuple[Repo, Path]):
    """The merge is on every sharded run's critical path: a process of its own that composes
    stored rows. Loading the parsers and the indexers' machinery besides cost it 0.13 s of its
    1.2 s on the monorepo bench; run as CI runs it, it loads neither."""
    repo, work = modules
    merge = ("import sys\nfrom kivgraph.cli import main\nsys.argv = ['kivgraph', *sys.argv[1:]]\n"
             "try:\n    main()\nexcept SystemExit as done:\n    assert not done.code, done.code\n"
             "print(sorted(m for m in sys.modules if m.startswith(('tree_sitter', 'google.protobuf', "
             "'kivgraph.indexing', 'kivgraph.units', 'kivgraph.scip.run', 'kivgraph.scip.index', "
             "'kivgraph.languages.resolve'))))\n")  # fmt: skip
    done = subprocess.run([sys.executable, "-c", merge, "merge", str(work / "s1.kshard"), str(work / "s2.kshard"),
                           "--repo", str(repo.path), "--out", str(work / "light.kgen")],
                          capture_output=True, text=True, check=True)  # fmt: skip
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stdout
    same(load_from_file(str(work / "light.kgen")), load_from_file(str(work / "one.kgen")))


def test_a_shard_runs_only_its_units_and_says_so(modules: tuple[Repo, Path]):
    repo, work = modules
    first = json.loads(run("index", str(repo.path), "--languages", "go", "--shard", "1/2", "--out",
                           str(work / "again.kshard"), "--json"))  # fmt: skip
    second = json.loads(run("plan", str(repo.path), "--languages", "go", "--shards", "2", "--json"))
    assert first["units"] == second["shards"][0]["units"]
    assert sorted(r["unit"] for r in first["runs"]) == sorted(first["units"])
    # Only its own: a use of a sibling another shard type-checks is bound at the merge.
    assert all(r["own"] and r["indexed"] for r in first["runs"])


def test_a_shard_resolves_the_uses_of_its_own_units_only(modules: tuple[Repo, Path]):
    """The units a shard's units reach are parsed for their declarations (and type-checked, for Go),
    but their own uses are another shard's to resolve: stating them would only be thrown away."""
    _, work = modules

    def unit(path: str) -> str:
        top = path.partition("/")[0]
        return f"scip-go:{top if top in ('lib', 'tools') else '.'}"

    seen_reached: set[str] = set()
    for k in (1, 2):
        shard = read_shard(str(work / f"s{k}.kshard"))
        g = codec.rows(shard.generation)
        reached = {f.path for f in g.files if unit(f.path) not in shard.units}
        uses = [e for e in g.edges if e.kind.value != "METHOD_OF"]
        assert uses and all(e.file not in reached for e in uses), (shard.units, reached)
        assert all(x.file not in reached for x in g.external_references)
        seen_reached |= reached
    assert "lib/lib.go" in seen_reached  # one shard's modules use lib, which the other owns


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


def shards_and_one(repo: Repo, work: Path, count: int, *options: str) -> tuple[Generation, Generation]:
    """(the generation of one run, the merge of `count` shards), made with `options`."""
    run("index", str(repo.path), *options, "--out", str(work / "one.kgen"))
    files = [str(work / f"s{k}.kshard") for k in range(1, count + 1)]
    for k, file in enumerate(files, 1):
        run("index", str(repo.path), *options, "--shard", f"{k}/{count}", "--out", file)
    run("merge", *files, "--repo", str(repo.path), "--out", str(work / "merged.kgen"))
    return load_from_file(str(work / "one.kgen")), load_from_file(str(work / "merged.kgen"))


NAMED_ELSEWHERE: dict[str, str | bytes] = {
    "a/go.mod": "module example.com/a\n\ngo 1.21\n",
    "a/a.go": "package a\n\ntype T struct{}\n\nfunc F() {\n\tvar t T\n\tt.Missing()\n\tUndeclared()\n}\n",
    "c/go.mod": "module example.com/c\n\ngo 1.21\n",
    "c/c.go": "package c\n\n// Missing and Undeclared are declared here only.\nfunc Missing() {}\n\n"
    "func Undeclared() {}\n\n" + "".join(f"func Pad{i}() {{}}\n" for i in range(20)),
}


def test_a_blind_spot_waiting_on_a_name_declared_in_another_shard_is_decided_at_the_merge(make_repo,
                                                                                           tmp_path: Path):  # fmt: skip
    repo = make_repo(NAMED_ELSEWHERE)
    plan = json.loads(run("plan", str(repo.path), "--shards", "2", "--json"))
    assert sorted(s["units"] for s in plan["shards"]) == [["scip-go:a"], ["scip-go:c"]]
    one, merged = shards_and_one(repo, tmp_path, 2, "--no-analyzers")
    same(one, merged)
    # Syntax cannot tell `t.Missing` or `Undeclared` from c's functions of those names (only a type
    # checker knows a does not reach them): both stay blind spots, as in one run.
    found = {(u.reason, u.requested_symbol) for u in merged.unresolved if u.file == "a/a.go"}
    assert {("MEMBER_NOT_FOUND", "Missing"), ("NAME_NOT_RESOLVED", "Undeclared")} <= found
    key = {s.qualified_name: s.key for s in merged.symbols if s.file == "a/a.go"}
    assert any((e.source, e.target, e.line) == (key["F"], key["T"], 7) for e in merged.edges)
    # a's shard could not see c's declarations: it held them for the merge to decide.
    k = next(k for k, s in enumerate(plan["shards"], 1) if s["units"] == ["scip-go:a"])
    held = read_shard(str(tmp_path / f"s{k}.kshard")).held
    assert {name for _, name in held} == {"Missing", "Undeclared"}


POLYGLOT: dict[str, str | bytes] = {
    **TREE,
    "web/tsconfig.json": '{"compilerOptions": {"strict": true, "allowJs": true}, "include": ["src"]}\n',
    "web/src/util.ts": "export function shout(s: string): string {\n  return s.toUpperCase();\n}\n",
    "web/src/main.ts": 'import { shout } from "./util";\nimport { build } from "../../scripts/build";\n\n'
    'export const hello = (): string => shout("hi") + build();\n',
    "py/pyproject.toml": '[project]\nname = "tools"\nversion = "0"\n',
    "py/pkg/__init__.py": "",
    "py/pkg/core.py": "def base():\n    return 1\n\n\ndef unseen(x):\n    return x.nowhere_declared()\n",
    "py/run.py": "from pkg.core import base\n\n\ndef main():\n    return base()\n",
    "scripts/build.js": "function build() {\n  return 1;\n}\nmodule.exports = { build };\n",
    "native/lib.rs": "pub fn native() -> u32 {\n    helper()\n}\n\nfn helper() -> u32 {\n    1\n}\n",
}


def test_every_kind_of_unit_sharded_makes_the_generation_of_one_run(make_repo, tmp_path: Path):
    for analyzer in ("scip-go", "scip-typescript", "scip-python"):
        require(analyzer)
    repo = make_repo(POLYGLOT)
    one, merged = shards_and_one(repo, tmp_path, 3)
    same(one, merged)
    assert {f.language.value for f in merged.files} >= {"go", "typescript", "javascript", "python", "rust"}
    assert any(e.file == "web/src/main.ts" and e.confidence.value == "EXACT_TYPECHECKED" for e in merged.edges)


def test_python_project_roots_sharded_make_the_generation_of_one_run(make_repo, tmp_path: Path):
    """Each Python project root is a unit; a shard's scip-python checks its own projects, finding
    the others' modules in the tree, and the merge binds their uses as one run does: exactly."""
    require("scip-python")
    repo = make_repo(PYTHON_ROOTS)
    one, merged = shards_and_one(repo, tmp_path, 3)
    same(one, merged)
    names = {s.key: s.qualified_name for s in merged.symbols}
    exact = {(names[e.source], names[e.target]) for e in merged.edges if e.confidence.value == "EXACT_TYPECHECKED"}
    assert {("main", "greet"), ("main", "Greeter.run"), ("tools.run", "main")} <= exact


def test_a_package_name_two_python_projects_share_is_named_alike_in_their_shards(make_repo, tmp_path: Path):
    """kivgraph's own tree: its fixtures hold two Python packages named `billing`; one run names each
    by its directory too (`python:billing@…`), but a shard holding one of them alone named it plain,
    and the merge differed from one job. Whether a name is two packages' is the whole tree's call."""
    tree: dict[str, str | bytes] = {}
    for project in ("a", "b"):
        tree |= {f"{project}/pyproject.toml": f"[project]\nname = '{project}'\n", f"{project}/tests/__init__.py": "",
                 f"{project}/tests/test_{project}.py": "def test():\n    pass\n"}  # fmt: skip
    repo = make_repo(tree)
    one, merged = shards_and_one(repo, tmp_path, 2, "--no-analyzers")
    same(one, merged)
    assert {p.id for p in merged.packages} >= {"python:tests@a/tests", "python:tests@b/tests"}


def test_shards_of_another_kivgraph_are_refused(modules: tuple[Repo, Path], tmp_path: Path):
    import cbor2
    import zstandard

    repo, work = modules
    data = (work / "s1.kshard").read_bytes()
    body = cbor2.loads(zstandard.ZstdDecompressor().decompress(data[len(MAGIC) :]))
    body["kivgraph"] = "0.0.1"
    older = tmp_path / "older.kshard"
    older.write_bytes(MAGIC + zstandard.ZstdCompressor().compress(cbor2.dumps(body)))
    first = tmp_path / "first.kshard"
    first.write_bytes(b"KIVGRAPH-SHARD-1\n" + data[len(MAGIC) :])
    for file in (older, first):
        result = CliRunner().invoke(cli, ["merge", str(file), str(work / "s2.kshard"), "--repo", str(repo.path),
                                          "--out", str(tmp_path / "x")])  # fmt: skip
        assert result.exit_code != 0 and "Traceback" not in result.output
        assert "kivgraph" in result.output and ("0.0.1" in result.output or "another kivgraph" in result.output)


def test_more_shards_than_units_leaves_some_empty_and_the_merge_still_equals_one_run(make_repo, tmp_path: Path):
    repo = make_repo(NAMED_ELSEWHERE)
    one, merged = shards_and_one(repo, tmp_path, 4, "--no-analyzers")
    same(one, merged)
    empty = [read_shard(str(tmp_path / f"s{k}.kshard")) for k in (3, 4)]
    assert all(not s.units and not s.generation.count("symbols") for s in empty)


QUOTED: dict[str, str | bytes] = {
    "a/go.mod": "module example.com/a\n\ngo 1.21\n\nrequire example.com/b v0.0.0\n",
    "a/a.go": 'package a\n\nimport "example.com/b"\n\n// A uses b.\nfunc A() int { return b.B() }\n',
    "b/go.mod": 'module "example.com/b"\n\ngo 1.21\n',
    "b/b.go": "package b\n\n// B is b's.\nfunc B() int { return 1 }\n"
    + "".join(f"func Pad{i}() {{}}\n" for i in range(30)),
}


def test_a_quoted_module_path_is_the_module_its_importers_reach(make_repo, tmp_path: Path):
    """Found in use: gopkg.in/yaml.v3's go.mod says `module "gopkg.in/yaml.v3"`; the plan kept the
    quotes, so a shard with a module importing it did not index it, and resolved the uses as
    external where one run resolves them to its declarations."""
    repo = make_repo(QUOTED)
    plan = json.loads(run("plan", str(repo.path), "--shards", "2", "--json"))
    assert {u["id"]: u["name"] for u in plan["units"]}["scip-go:b"] == "example.com/b"
    assert {u["id"]: u["depends_on"] for u in plan["units"]}["scip-go:a"] == ["scip-go:b"]
    one, merged = shards_and_one(repo, tmp_path, 2, "--no-analyzers")
    same(one, merged)
    key = {s.qualified_name: s.key for s in merged.symbols if s.file == "b/b.go"}
    assert any(e.file == "a/a.go" and e.target == key["B"] for e in merged.edges)


def test_a_shard_missing_a_file_of_its_units_is_refused_not_merged_short(modules: tuple[Repo, Path], tmp_path: Path):
    """A shard file is checked field by field; one that reads well but leaves out a file of its
    units (cut by hand, or by a bug) must not make a generation silently without it."""
    from kivgraph.shard import encode

    repo, work = modules
    shard = read_shard(str(work / "s1.kshard"))
    g = codec.rows(shard.generation)
    dropped = next(f.path for f in g.files if f.path.endswith(".go"))
    gone = {s.key for s in g.symbols if s.file == dropped}
    generation = replace(g, files=tuple(f for f in g.files if f.path != dropped),
                         symbols=tuple(s for s in g.symbols if s.file != dropped),
                         edges=tuple(e for e in g.edges if not {e.source, e.target} & gone),
                         external_references=tuple(x for x in g.external_references if x.source not in gone),
                         unresolved=tuple(u for u in g.unresolved if u.source not in gone))  # fmt: skip
    cut = tmp_path / "cut.kshard"
    cut.write_bytes(encode(replace(shard, generation=codec.columns_of(generation))))
    result = CliRunner().invoke(cli, ["merge", str(cut), str(work / "s2.kshard"), "--repo", str(repo.path),
                                      "--out", str(tmp_path / "x")])  # fmt: skip
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert "internal error" not in result.output and "do not make up the commit's tree" in result.output
    assert dropped in result.output and not (tmp_path / "x").exists()


def test_shards_that_do_not_split_the_units_between_them_are_refused_by_name(modules: tuple[Repo, Path],
                                                                             tmp_path: Path):  # fmt: skip
    """The merge does not plan the shards again (that reads every file); it checks that every
    unit of the commit is one shard's, which is what composing their rows needs."""
    from kivgraph.shard import encode

    repo, work = modules
    one, two = (read_shard(str(work / f"s{k}.kshard")) for k in (1, 2))
    cases = {"is in two shards": one.units + two.units[:1], "no shard stands for": one.units[1:],
             "which is not a unit of the commit": (*one.units, "scip-go:elsewhere")}  # fmt: skip
    for message, units in cases.items():
        edited = tmp_path / "edited.kshard"
        edited.write_bytes(encode(replace(one, units=tuple(units))))
        result = CliRunner().invoke(cli, ["merge", str(edited), str(work / "s2.kshard"), "--repo", str(repo.path),
                                          "--out", str(tmp_path / "x")])  # fmt: skip
        assert result.exit_code != 0 and message in result.output and "Traceback" not in result.output, result.output
        assert not (tmp_path / "x").exists()


def test_a_shard_or_merge_that_must_have_its_type_checkers_refuses_when_one_crashed(
    make_repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    crash = tmp_path / "scip-go"
    crash.write_text('#!/bin/sh\necho "panic: boom" >&2; exit 2\n', encoding="utf-8")
    crash.chmod(0o755)
    monkeypatch.setenv("KIVGRAPH_SCIP_GO", str(crash))
    repo = make_repo(TREE)
    shard = ["index", str(repo.path), "--languages", "go", "--shard"]
    for args, env in ((["--require-analyzers"], {}), ([], {"KIVGRAPH_REQUIRE_ANALYZERS": "1"})):
        result = CliRunner().invoke(cli, [*shard, "1/2", "--out", str(tmp_path / "s1.kshard"), *args], env=env)
        assert result.exit_code == 1 and "Traceback" not in result.output
        assert "a required type checker did not run, so no shard file was written: go at " in result.output
        assert "ANALYZER_CRASHED" in result.output and not (tmp_path / "s1.kshard").exists()
    off = {"KIVGRAPH_REQUIRE_ANALYZERS": "0"}
    for k in (1, 2):
        result = CliRunner().invoke(cli, [*shard, f"{k}/2", "--out", str(tmp_path / f"s{k}.kshard")], env=off)
        assert result.exit_code == 0, result.output
    files = [str(tmp_path / "s1.kshard"), str(tmp_path / "s2.kshard")]
    merge = ["merge", *files, "--repo", str(repo.path)]
    for args, env in ((["--require-analyzers"], off), ([], {"KIVGRAPH_REQUIRE_ANALYZERS": "1"})):
        result = CliRunner().invoke(cli, [*merge, *args], env=env)
        assert result.exit_code == 1 and "so nothing was stored: go at " in result.output, result.output
        assert repo.git("notes", "--ref=kivgraph", "list") == ""
    assert CliRunner().invoke(cli, merge, env=off).exit_code == 0
    assert repo.git("notes", "--ref=kivgraph", "list") != ""
    # Syntax-only shards have no type checker to require.
    for k in (1, 2):
        run(*shard, f"{k}/2", "--out", str(tmp_path / f"n{k}.kshard"), "--no-analyzers")
    plain = CliRunner().invoke(cli, ["merge", str(tmp_path / "n1.kshard"), str(tmp_path / "n2.kshard"), "--repo",
                                     str(repo.path), "--require-analyzers"])  # fmt: skip
    assert plain.exit_code == 2 and "--require-analyzers needs shards indexed with the analyzers" in plain.output


def test_go_modules_of_one_path_and_loose_go_files_key_alike_in_shards_and_one_run(make_repo, tmp_path: Path):
    """Found on charmbracelet/x: its examples are modules each named `example`, so their packages
    share an import path and their `main`s an identity; which got the plainer key depended on the
    files in sight, and the merge refused shards that had keyed two of them alike. Their keys now
    carry the directory (as do those of Go files no go.mod holds), whatever else is in sight."""
    example = "package main\n\nfunc helper() int { return 1 }\n\nfunc main() { println(helper()) }\n"
    files: dict[str, str | bytes] = {f"{d}/go.mod": "module example\n\ngo 1.21\n" for d in ("one", "two", "three")}
    files |= {f"{d}/main.go": example for d in ("one", "two", "three")}
    files |= {"loose/a/main.go": example, "loose/b/main.go": example, "other/main.go": example}
    repo = make_repo(files)
    one, merged = shards_and_one(repo, tmp_path, 3, "--no-analyzers")
    same(one, merged)
    mains = [s for s in one.symbols if s.qualified_name == "main"]
    assert len(mains) == 6 and len({s.key for s in mains}) == 6


def test_twin_modules_each_replaced_by_its_own_app_bind_to_their_own_declarations(make_repo, tmp_path: Path):
    """Found indexing kivgraph's own fixtures in 3 shards: two modules of one path
    (example.com/lib), each replaced by its own app. In the shard that held one app and the other
    lib, the app's call `greet.Hello()` met the other lib's declaration — the shard told the twins
    apart only by the modules it ran — and the merge swapped the two apps' targets. A shard now
    tells them apart by every Go module of the tree, so the use waits for the merge and binds to
    its own lib."""
    require("scip-go")
    fixtures = Path(__file__).parent / "fixtures" / "go"
    files: dict[str, str | bytes] = {
        f"{prefix}/{path.relative_to(fixtures / name).as_posix()}": path.read_bytes()
        for prefix, name in (("a", "nested"), ("b", "workspace"))
        for path in sorted((fixtures / name).rglob("*")) if path.is_file()
    }  # fmt: skip
    repo = make_repo(files)
    hazard = False
    for count in (2, 3, 4):
        split = json.loads(run("plan", str(repo.path), "--languages", "go", "--shards", str(count), "--json"))
        shard_of = {unit: k for k, shard in enumerate(split["shards"]) for unit in shard["units"]}
        if shard_of["scip-go:a"] != shard_of["scip-go:a/lib"] and shard_of["scip-go:a"] == shard_of["scip-go:b/lib"]:
            hazard = True
            work = tmp_path / str(count)
            work.mkdir()
            one, merged = shards_and_one(repo, work, count, "--languages", "go")
            same(one, merged)
            hello = {s.key: s.file for s in one.symbols if s.qualified_name == "Hello"}
            calls = {e.file: hello[e.target] for e in merged.edges
                     if e.target in hello and e.kind.value == "CALLS_DIRECT"}  # fmt: skip
            assert calls == {"a/cmd/app/main.go": "a/lib/greet/greet.go", "b/app/cmd/main.go": "b/lib/greet/greet.go"}
    assert hazard, "no shard count put an app beside the twin of the lib it replaces: the test no longer tests it"


VENDORED: dict[str, str | bytes] = {
    "lib/go.mod": "module example.com/lib\n\ngo 1.21\n",
    "lib/lib.go": "package lib\n\n// Do does.\nfunc Do() int { return 1 }\n"
    + "".join(f"func Pad{i}() {{}}\n" for i in range(30)),
    "app/go.mod": "module example.com/app\n\ngo 1.21\n\nrequire example.com/lib v0.1.0\n",
    "app/vendor/modules.txt": "# example.com/lib v0.1.0\n## explicit\nexample.com/lib\n",
    "app/vendor/example.com/lib/lib.go": "package lib\n\n// Do does.\nfunc Do() int { return 1 }\n",
    "app/app.go": 'package app\n\nimport "example.com/lib"\n\n// App uses it.\nfunc App() int { return lib.Do() }\n',
}


def test_a_sibling_the_go_command_does_not_load_from_the_tree_is_not_type_checked_for_its_importer(
    make_repo, tmp_path: Path
):
    """Found on the monorepo benchmark: a module that requires a sibling by version (here from its
    vendor directory; in charmbracelet/x from the module cache) is built against that copy, and
    its uses of it are external references; yet its shard ran the sibling's type checker too, a
    second's work for nothing. The importer's shard now parses the sibling (the syntax layer reads
    imports by path) without type-checking it, and the merge still equals one run."""
    require("scip-go")
    repo = make_repo(VENDORED)
    plan = json.loads(run("plan", str(repo.path), "--shards", "2", "--json"))
    assert sorted(s["units"] for s in plan["shards"]) == [["scip-go:app"], ["scip-go:lib"]]
    one, merged = shards_and_one(repo, tmp_path, 2)
    same(one, merged)
    assert one.invisible_scopes == ()  # built from its vendor directory: nothing to download
    assert any(x.file == "app/app.go" and x.symbol == "example.com/lib.Do" for x in one.external_references)
    number = next(k for k, s in enumerate(plan["shards"], 1) if s["units"] == ["scip-go:app"])
    app_shard = json.loads(
        run("index", str(repo.path), "--shard", f"{number}/2", "--out", str(tmp_path / "s"), "--json")
    )
    assert [r["unit"] for r in app_shard["runs"]] == ["scip-go:app"]


def test_a_sibling_replaced_by_a_quoted_directory_is_type_checked_beside_its_user(make_repo, tmp_path: Path):
    """Found using an installed kivgraph on a tree with a module in `lib dir`: go.mod must quote
    that directory (`replace example.com/lib => "../lib dir"`), the plan read only bare paths, and
    app's shard ran no type checker for lib: the merge held external references where one run
    had an exact edge."""
    require("scip-go")
    repo = make_repo({
        "lib dir/go.mod": "module example.com/lib\n\ngo 1.22\n",
        "lib dir/lib.go": "package lib\n\n// Do does.\nfunc Do() int { return 1 }\n",
        "app/go.mod": 'module example.com/app\n\ngo 1.22\n\nrequire example.com/lib v0.0.0\n\n'
                      'replace example.com/lib => "../lib dir" // a directory with a space\n',
        "app/main.go": 'package main\n\nimport "example.com/lib"\n\nfunc main() { println(lib.Do()) }\n',
    })  # fmt: skip
    one, merged = shards_and_one(repo, tmp_path, 2)
    same(one, merged)
    assert one.invisible_scopes == () and one.external_references == ()
    assert any(e.file == "app/main.go" and e.confidence.value == "EXACT_TYPECHECKED" for e in one.edges)


def test_uses_of_a_sibling_another_shard_type_checks_are_bound_at_the_merge(make_repo, tmp_path: Path):
    """Found on the monorepo bench: a shard ran the indexer of every sibling its modules replace,
    for the uses of it (kong and x/mod ran twice, and lipgloss's cluster could not be split). Now
    the shard holds those uses and the merge binds them: calls, a function passed as a value, an
    interface implemented, an embedded type and a name of no declaration, as one run has them."""
    require("scip-go")
    repo = make_repo({
        "lib/go.mod": "module example.com/lib\n\ngo 1.22\n",
        "lib/lib.go": "package lib\n\n// Greeter greets.\ntype Greeter interface{ Greet() string }\n\n"
                      "// Base is embedded.\ntype Base struct{ Name string }\n\n"
                      "// Do does.\nfunc Do() int { return 1 }\n\n"
                      "// Value is a variable.\nvar Value = 2\n",
        "app/go.mod": "module example.com/app\n\ngo 1.22\n\nrequire example.com/lib v0.0.0\n\n"
                      "replace example.com/lib => ../lib\n",
        "app/main.go": 'package main\n\nimport "example.com/lib"\n\n// Hello greets.\ntype Hello struct{ lib.Base }\n\n'
                       '// Greet says hello.\nfunc (h Hello) Greet() string { return h.Name }\n\n'
                       "func run(f func() int) int { return f() }\n\n"
                       "func main() {\n\tvar g lib.Greeter = Hello{}\n"
                       "\tprintln(g.Greet(), lib.Do(), run(lib.Do), lib.Value)\n}\n",
    })  # fmt: skip
    one, merged = shards_and_one(repo, tmp_path, 2)
    same(one, merged)
    shards = [read_shard(str(p)) for p in sorted(tmp_path.glob("*.kshard"))]
    assert sorted(len(s.units) for s in shards) == [1, 1]
    assert all(t.own for s in shards for t in s.timings)  # no shard ran the other's indexer
    holding = next(s for s in shards if "scip-go:app" in s.units)
    assert holding.late is not None and len(holding.late.uses) >= 4
    kinds = {
        e.kind.value for e in merged.edges if e.file == "app/main.go" and e.confidence.value == "EXACT_TYPECHECKED"
    }
    assert {"CALLS_DIRECT", "PASSES_AS_CALLBACK", "IMPLEMENTS", "EMBEDS", "TYPE_USES"} <= kinds, kinds


UNDATED: dict[str, str | bytes] = {
    # As gopkg.in/yaml.v3 does: no `go` line (the go command assumes go 1.16), and a requirement.
    "a/go.mod": "module example.com/a\n\nrequire gopkg.in/check.v1 v0.0.0-20161208181325-20d25e280405\n",
    "a/a.go": 'package a\n\nimport "strings"\n\n// Up shouts.\n'
    "func Up(s string) string { return strings.ToUpper(s) }\n",
    "a/go.sum": "gopkg.in/check.v1 v0.0.0-20161208181325-20d25e280405 h1:yhCVgyC4o1eVCa2tZl7eS0r+SDo693bJlVdllGtEeKM=\n"
    "gopkg.in/check.v1 v0.0.0-20161208181325-20d25e280405/go.mod h1:Co6ibVJAznAaIkqp8huTwlJQCZ016jof/cbN4VW5Yz0=\n",
    "a/a_test.go": 'package a\n\nimport (\n\t"testing"\n\n\t. "gopkg.in/check.v1"\n)\n\n'
    "func Test(t *testing.T) { TestingT(t) }\n",
    "b/go.mod": "module example.com/b\n\ngo 1.21\n",
    "b/b.go": 'package b\n\nimport "fmt"\n\n// B prints.\nfunc B() string { return fmt.Sprint(1) }\n'
    + "".join(f"func Pad{i}() {{}}\n" for i in range(40)),
    "c/go.mod": "module example.com/c\n\ngo 1.19\n\nrequire example.com/a v0.0.0\n\nreplace example.com/a => ../a\n",
    "c/c.go": 'package c\n\nimport (\n\t"fmt"\n\n\t"example.com/a"\n)\n\n'
    '// C uses a.\nfunc C() string { return fmt.Sprint(a.Up("x")) }\n',
}


def test_no_go_command_rewrites_a_go_mod_another_modules_index_then_reads(make_repo, tmp_path: Path):
    """Found on the monorepo benchmark with go.uber.org/zap beside gopkg.in/yaml.v3: `go mod
    download` (run before each module's type checker) wrote a `go 1.26.8` line, the toolchain's,
    into yaml.v3's go.mod, which has none; zap's go command, which loads yaml.v3 from the tree,
    then raised zap's own go line to match. scip-go names the standard library by the module's go
    version, so zap's 3,462 uses of it said go1.26.8 in one run and go1.19 in the shard where
    yaml.v3 did not run before it: the merge differed from one run, and one run from itself with
    the order its modules happened to run in. Every module's go.mod now stays as committed."""
    require("scip-go")
    repo = make_repo(UNDATED)
    one, merged = shards_and_one(repo, tmp_path, 2, "--languages", "go")
    same(one, merged)
    versions: dict[str, set[str]] = {}
    for x in one.external_references:
        if x.package == "github.com/golang/go/src":
            versions.setdefault(x.file.partition("/")[0], set()).add(x.version)
    # Each module's own go version; the go command's default for the one that states none.
    assert versions == {"a": {"go1.16"}, "b": {"go1.21"}, "c": {"go1.19"}}
    assert one.invisible_scopes == ()  # and every package loaded, check.v1's too
    up = next(s.key for s in one.symbols if s.qualified_name == "Up")
    assert [e.confidence.value for e in one.edges if e.file == "c/c.go" and e.target == up] == ["EXACT_TYPECHECKED"]
