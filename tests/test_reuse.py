"""Reuse across commits on real history: each commit is indexed on its parent's note, re-indexing
only the units its change reaches, and the stored generation equals a full index of the commit
(every table; only created_at differs). The history walks a monorepo of three Go modules — a
library two others use through `replace` — through a one-file change, a body change in the
library, a rename of an exported symbol (dependents re-indexed, their uses now unresolved), the
callers catching up, a new module, a manifest change and a README edit."""

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from kivgraph.model import Confidence
from kivgraph.store import load_from_file, load_from_notes
from kivgraph.store.git import open_repository
from tests.conftest import Repo
from tests.scip.analyzers import require
from tests.scip.test_run import PYTHON_ROOTS
from tests.test_shard import TREE, run, same

LIB_DONE = LIB_RENAMED = (
    "package lib\n\n// Done does.\nfunc Done() int { return 1 }\n\n"
    "// Twice calls Done twice.\nfunc Twice() int { return Done() + Done() }\n"
)


def indexed(repo: Repo, work: Path, *options: str) -> dict[str, object]:
    """Index HEAD incrementally into the notes and in full into a file; they must be equal."""
    head = repo.git("rev-parse", "HEAD")
    full = work / f"full-{head[:12]}.kgen"
    run("index", str(repo.path), "--languages", "go", "--full", "--out", str(full))
    out = json.loads(run("index", str(repo.path), "--languages", "go", "--json", *options))
    same(load_from_notes(open_repository(str(repo.path)), head), load_from_file(str(full)))
    return out


def outcomes(out: dict[str, object]) -> dict[str, str]:
    reused = out["reused"]
    assert isinstance(reused, dict)
    return {u["unit"]: ("reused" if u["reused"] else u["why"]) for u in reused["units"]}  # type: ignore[index]


def committing(repo: Repo, work: Path) -> Callable[[dict[str, str | bytes]], dict[str, str]]:
    """A step of history: commit `files`, index the commit on its parent's note and in full (every
    language), check they are equal, and say what became of each unit."""

    def step(files: dict[str, str | bytes]) -> dict[str, str]:
        repo.commit(files)
        head = repo.git("rev-parse", "HEAD")
        full = work / f"{head[:12]}.kgen"
        run("index", str(repo.path), "--full", "--out", str(full))
        out = json.loads(run("index", str(repo.path), "--json"))
        same(load_from_notes(open_repository(str(repo.path)), head), load_from_file(str(full)))
        return outcomes(out)

    return step


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> tuple[Repo, Path]:
    require("scip-go")
    work = tmp_path_factory.mktemp("reuse")
    repo = Repo(work / "mono")
    repo.commit({**TREE, "README.md": "# mono\n"}, message="three modules")
    run("index", str(repo.path), "--languages", "go")
    return repo, work


def test_a_history_of_changes_reindexes_only_what_each_reaches(history: tuple[Repo, Path]):
    repo, work = history

    repo.commit({"tools/gen.go": 'package tools\n\nimport "example.com/lib"\n\n'
                 "// Gen uses the library twice.\nfunc Gen() int { return lib.Do() * 2 }\n"})  # fmt: skip
    assert outcomes(indexed(repo, work)) == {"scip-go:lib": "reused", "scip-go:.": "reused",
                                             "scip-go:tools": "tools/gen.go changed"}  # fmt: skip

    repo.commit({"lib/lib.go": TREE["lib/lib.go"].replace("return 1", "return 2")})  # type: ignore[union-attr]
    assert outcomes(indexed(repo, work)) == {"scip-go:lib": "lib/lib.go changed", "scip-go:.": "reused",
                                             "scip-go:tools": "reused"}  # fmt: skip

    repo.commit({"lib/lib.go": LIB_RENAMED})  # the callers still say lib.Do: their uses no longer resolve
    out = indexed(repo, work)
    assert outcomes(out) == {"scip-go:lib": "lib/lib.go changed",
                             "scip-go:.": "scip-go:lib changed its public surface",
                             "scip-go:tools": "scip-go:lib changed its public surface"}  # fmt: skip
    assert out["reused"]["rounds"] == 1  # type: ignore[index]  # the rename was read ahead: one round

    repo.commit({"tools/gen.go": 'package tools\n\nimport "example.com/lib"\n\n'
                 "// Gen uses the library twice.\nfunc Gen() int { return lib.Done() * 2 }\n"})  # fmt: skip
    assert outcomes(indexed(repo, work))["scip-go:tools"] == "tools/gen.go changed"

    repo.commit({"README.md": "# mono\n\nThree modules.\n"})
    assert set(outcomes(indexed(repo, work)).values()) == {"reused"}

    repo.commit({"extra/go.mod": "module example.com/extra\n\ngo 1.21\n", "extra/x.go": "package extra\n",
                 "tools/more.go": "package tools\n\n// More is more.\nfunc More() int { return Gen() }\n"})  # fmt: skip
    found = outcomes(indexed(repo, work))
    assert found["scip-go:extra"] != "reused" and found["scip-go:lib"] == "reused"

    (repo.path / "tools" / "more.go").unlink()
    repo.commit({"tools/go.mod": TREE["tools/go.mod"] + "\n// no sources left\n"})  # type: ignore[operator]
    assert outcomes(indexed(repo, work))["scip-go:lib"] == "reused"


def test_full_and_unusable_bases_index_every_unit_and_say_why(history: tuple[Repo, Path]):
    repo, work = history
    repo.commit({"main.go": TREE["main.go"] + "\n// touched\n"})  # type: ignore[operator]
    full = json.loads(run("index", str(repo.path), "--languages", "go", "--full", "--json"))
    assert "reused" not in full
    # Another --languages than the ancestor's: its rows cannot stand in, and the run says so.
    repo.commit({"main.go": TREE["main.go"] + "\n// touched again\n"})  # type: ignore[operator]
    from click.testing import CliRunner

    from kivgraph.cli import cli

    result = CliRunner().invoke(cli, ["index", str(repo.path), "--languages", "go,python", "--json"])
    assert result.exit_code == 0, result.output
    assert "indexing every unit" in result.stderr and "other --languages" in result.stderr
    assert "reused" not in json.loads(result.stdout)


POLYGLOT: dict[str, str | bytes] = {
    "web/tsconfig.json": '{"compilerOptions": {"strict": true, "allowJs": true}, "include": ["src"]}\n',
    "web/src/util.ts": "export function shout(s: string): string {\n  return s.toUpperCase();\n}\n",
    "web/src/main.ts": 'import { shout } from "./util";\n\nexport const hello = (): string => shout("hi");\n',
    "tools/pkg/__init__.py": "",
    "tools/pkg/core.py": "def base():\n    return 1\n",
    "tools/run.py": "from pkg.core import base\n\n\ndef main():\n    return base()\n",
    "scripts/build.js": "function build() {\n  return 1;\n}\nmodule.exports = { build };\n",
}


def test_scripts_python_and_syntax_only_units_reuse_by_their_own_rules(make_repo, tmp_path: Path):
    for analyzer in ("scip-typescript", "scip-python"):
        require(analyzer)
    repo = make_repo(POLYGLOT)
    run("index", str(repo.path))

    step = committing(repo, tmp_path)

    body = "export function shout(s: string): string {\n  return s.toUpperCase() + '!';\n}\n"
    assert step({"web/src/util.ts": body}) == {"scip-typescript:web": "web/src/util.ts changed",
                                               "scip-python:.": "reused", "syntax:scripts": "reused"}  # fmt: skip
    assert step({"tools/pkg/core.py": "def base():\n    return 2\n"})["scip-typescript:web"] == "reused"
    # A script gains a function: the TypeScript project imports none of the scripts, so it is kept…
    grown = POLYGLOT["scripts/build.js"] + "function clean() {}\n"  # type: ignore[operator]
    found = step({"scripts/build.js": grown})
    assert found == {"syntax:scripts": "scripts/build.js changed", "scip-python:.": "reused",
                     "scip-typescript:web": "reused"}  # fmt: skip
    # …until one of its files imports a script by path: then the script's new function reaches it.
    step({"web/src/main.ts": POLYGLOT["web/src/main.ts"] + 'import { build } from "../../scripts/build.js";\n'
          "export const built = (): number => build();\n"})  # type: ignore[operator]  # fmt: skip
    found = step({"scripts/build.js": grown + "function lint() {}\n"})
    assert found == {"syntax:scripts": "scripts/build.js changed", "scip-python:.": "reused",
                     "scip-typescript:web": "syntax:scripts changed its public surface"}  # fmt: skip


def test_python_project_roots_reuse_by_the_modules_they_import(make_repo, tmp_path: Path):
    """Each Python project root is a unit: a change inside a project re-indexes it alone, a file
    pyright never reads (a changelog entry) nothing; a rename in a library re-indexes the projects
    importing it, and the script that only imports one of those keeps its rows."""
    require("scip-python")
    repo = make_repo(PYTHON_ROOTS)
    run("index", str(repo.path))

    step = committing(repo, tmp_path)

    main = PYTHON_ROOTS["appb/appb/main.py"].replace("'c'", "'d'")  # type: ignore[union-attr]
    assert step({"appb/appb/main.py": main}) == {"scip-python:liba": "reused", "scip-python:.": "reused",
                                                 "scip-python:appb": "appb/appb/main.py changed"}  # fmt: skip
    body = PYTHON_ROOTS["liba/src/liba/core.py"].replace("'hi '", "'hello '")  # type: ignore[union-attr]
    found = step({"liba/src/liba/core.py": body})
    assert found == {"scip-python:liba": "liba/src/liba/core.py changed", "scip-python:appb": "reused",
                     "scip-python:.": "reused"}  # fmt: skip
    assert set(step({"changes/next.added": "Greeter grew\n"}).values()) == {"reused"}
    found = step({"liba/src/liba/core.py": body.replace("greet", "welcome")})
    assert found == {"scip-python:liba": "liba/src/liba/core.py changed",
                     "scip-python:appb": "scip-python:liba changed its public surface",
                     "scip-python:.": "reused"}  # fmt: skip


def test_a_corrupt_ancestor_note_is_passed_over(make_repo):
    repo = make_repo({"a.py": "def f():\n    return 1\n"})
    first = repo.git("rev-parse", "HEAD")
    run("index", str(repo.path), "--no-analyzers")
    repo.git("notes", "--ref", "refs/notes/kivgraph", "add", "-f", "-m", "garbage", first)
    repo.commit({"a.py": "def f():\n    return 2\n"})
    from click.testing import CliRunner

    from kivgraph.cli import cli

    result = CliRunner().invoke(cli, ["index", str(repo.path), "--no-analyzers", "--json"])
    assert result.exit_code == 0, result.output
    assert f"passing over {first[:12]}" in result.stderr and "reused" not in json.loads(result.stdout)


def test_a_name_declared_anew_reaches_the_units_that_spell_it(make_repo, tmp_path: Path):
    """A use no declaration could be is not recorded; once some unit declares the name, it is: the
    units that spell it are re-indexed though they depend on nothing that changed."""
    reader = ('package a\n\nimport "encoding/xml"\n\nfunc F(t xml.Token) int {\n\tswitch x := t.(type) {\n'
              "\tcase xml.StartElement:\n\t\treturn len(x.Attr)\n\t}\n\treturn 0\n}\n")  # fmt: skip
    repo = make_repo({"a/go.mod": "module example.com/a\n\ngo 1.21\n", "a/a.go": reader,
                      "b/go.mod": "module example.com/b\n\ngo 1.21\n", "b/b.go": "package b\n"})  # fmt: skip
    run("index", str(repo.path), "--no-analyzers")
    repo.commit({"b/b.go": "package b\n\ntype T struct{}\n\n// Attr is new.\nfunc (T) Attr() int { return 1 }\n"})
    head = repo.git("rev-parse", "HEAD")
    run("index", str(repo.path), "--no-analyzers", "--full", "--out", str(tmp_path / "full.kgen"))
    out = json.loads(run("index", str(repo.path), "--no-analyzers", "--json"))
    stored = load_from_notes(open_repository(str(repo.path)), head)
    same(stored, load_from_file(str(tmp_path / "full.kgen")))
    assert any(u.requested_symbol == "Attr" and u.file == "a/a.go" for u in stored.unresolved)
    assert outcomes(out)["scip-go:a"] == "a name it spells is declared or gone: Attr"


def test_two_crates_of_one_name_keep_the_package_one_run_keeps(make_repo, tmp_path: Path):
    """Two crates named alike share a package id; one run keeps the record of the last file (in
    path order) of that id. Re-indexing the first crate alone, and sharding the two apart, must
    keep the same record, not the re-indexed part's (found on a real repository's two fixtures)."""
    crate = '[package]\nname = "support"\nversion = "{}"\nedition = "2021"\n'
    repo = make_repo({"a/Cargo.toml": crate.format("1.0.0"), "a/src/lib.rs": "pub fn one() -> u8 { 1 }\n",
                      "b/Cargo.toml": crate.format("2.0.0"), "b/src/lib.rs": "pub fn two() -> u8 { 2 }\n"})  # fmt: skip
    run("index", str(repo.path), "--no-analyzers")
    repo.commit({"a/src/lib.rs": "pub fn one() -> u8 { 3 }\n"})
    head = repo.git("rev-parse", "HEAD")
    run("index", str(repo.path), "--no-analyzers", "--full", "--out", str(tmp_path / "full.kgen"))
    out = json.loads(run("index", str(repo.path), "--no-analyzers", "--json"))
    assert outcomes(out) == {"rust-analyzer:a": "a/src/lib.rs changed", "rust-analyzer:b": "reused"}
    full = load_from_file(str(tmp_path / "full.kgen"))
    assert [(p.id, p.root) for p in full.packages] == [("rust:support", "b")]
    same(load_from_notes(open_repository(str(repo.path)), head), full)
    shards = [str(tmp_path / f"{k}.shard") for k in (1, 2)]
    for k, shard in enumerate(shards, 1):
        run("index", str(repo.path), "--no-analyzers", "--shard", f"{k}/2", "--out", shard)
    run("merge", "--repo", str(repo.path), "--out", str(tmp_path / "merged.kgen"), *shards[::-1])
    same(load_from_file(str(tmp_path / "merged.kgen")), full)


def test_a_go_module_reaches_the_modules_it_imports_or_replaces_not_all_its_go_mod_requires(make_repo,
                                                                                           tmp_path: Path):  # fmt: skip
    """Since Go 1.17 a go.mod lists every indirect module too; a Go file can use only what its
    imports reach. A module that requires the library by version without importing it (pub, from
    its vendor directory) is reused when the library's surface changes. One that replaces it by a
    path (app) is not: the go command loads the tree's library for any package of its build that
    imports it, a dependency's from the module cache too (found on scip-go, whose tests reach
    testify only so: its shard held testify's go.mod and not its sources, and go list failed)."""
    require("scip-go")
    needs_lib = "require example.com/lib v0.0.0\n\nreplace example.com/lib => ../lib\n"
    lib = "package lib\n\n// Do does.\nfunc Do() int { return 1 }\n"
    repo = make_repo({"lib/go.mod": "module example.com/lib\n\ngo 1.21\n", "lib/lib.go": lib,
                      "app/go.mod": f"module example.com/app\n\ngo 1.21\n\n{needs_lib}", "app/app.go":
                      "package app\n\n// App needs no library.\nfunc App() int { return 1 }\n",
                      "pub/go.mod": "module example.com/pub\n\ngo 1.21\n\nrequire example.com/lib v0.0.0 // indirect\n",
                      "pub/vendor/modules.txt": "# example.com/lib v0.0.0\n## explicit\n",
                      "pub/pub.go": "package pub\n\n// Pub needs no library.\nfunc Pub() int { return 1 }\n",
                      "use/go.mod": f"module example.com/use\n\ngo 1.21\n\n{needs_lib}", "use/use.go":
                      'package use\n\nimport "example.com/lib"\n\nfunc Use() int { return lib.Do() }\n',
                      "README.md": "# four\n"})  # fmt: skip

    def step(files: dict[str, str | bytes], scratch: bool = False) -> dict[str, str]:
        repo.commit(files)
        head = repo.git("rev-parse", "HEAD")
        if scratch:  # an uncommitted edit: the commit is indexed from a copy of its tree
            (repo.path / "README.md").write_text("# edited, not committed\n")
        full = tmp_path / f"{head[:12]}.kgen"
        run("index", str(repo.path), "--languages", "go", "--full", "--out", str(full))
        out = json.loads(run("index", str(repo.path), "--languages", "go", "--json"))
        stored = load_from_notes(open_repository(str(repo.path)), head)
        same(stored, load_from_file(str(full)))
        assert stored.invisible_scopes == ()
        return outcomes(out)

    run("index", str(repo.path), "--languages", "go")
    assert step({"lib/lib.go": lib.replace("func Do() int { return 1 }", "func Do(n int) int { return n }")}) == {
        "scip-go:lib": "lib/lib.go changed", "scip-go:app": "scip-go:lib changed its public surface",
        "scip-go:pub": "reused", "scip-go:use": "scip-go:lib changed its public surface"}  # fmt: skip
    found = step({"app/app.go": "package app\n\n// App needs no library.\nfunc App() int { return 3 }\n"}, True)
    assert found == {"scip-go:lib": "reused", "scip-go:app": "app/app.go changed", "scip-go:pub": "reused",
                     "scip-go:use": "reused"}  # fmt: skip


def test_a_go_module_that_only_adds_declarations_reaches_only_the_modules_that_spell_them(make_repo, tmp_path: Path):
    """A Go package's declaration is named, qualified, wherever another module uses it: a module
    whose change only adds top-level declarations re-indexes the dependents that spell an added name
    (one whose call of it did not resolve before), not the others — a struct's new named field
    alike, though a literal without keys no longer compiles — nor those that spell only an
    unexported one (`mode`, declared elsewhere already: no other package can name it). An embedded
    field or a method added to an interface that was there reaches every dependent (a type of
    theirs may start or stop implementing it), so does a new file (an import of the package
    resolves to its files; a new test file does not), and so does an addition that leaves the
    library with a package that no longer loads (round two: the blind spot shows only once the
    library's type checker ran). Each commit equals its full index."""
    require("scip-go")
    needs_lib = "require example.com/lib v0.0.0\n\nreplace example.com/lib => ../lib\n"
    lib = (
        "package lib\n\n// Doer does.\ntype Doer interface{ Do() int }\n\n"
        "// Do does.\nfunc Do() int { return 1 }\n\n// Opts are options.\ntype Opts struct {\n\tA int\n}\n\n"
        "// Inner is embedded.\ntype Inner struct{}\n\n// Undo undoes.\nfunc (Inner) Undo() {}\n"
    )
    repo = make_repo({"lib/go.mod": "module example.com/lib\n\ngo 1.21\n", "lib/lib.go": lib,
                      "use/go.mod": f"module example.com/use\n\ngo 1.21\n\n{needs_lib}",
                      "use/use.go": 'package use\n\nimport "example.com/lib"\n\ntype mine struct{}\n\n'
                                    "func (mine) Do() int { return 2 }\n\nvar _ lib.Doer = mine{}\n\n"
                                    "func Use() int {\n\tmode := lib.Do()\n\treturn mode + lib.Later()\n}\n\n"
                                    "type wrap struct{ lib.Opts }\n\n// Same compares unkeyed options.\n"
                                    "func Same() bool { return lib.Opts{1} == wrap{}.Opts }\n",
                      "other/go.mod": f"module example.com/other\n\ngo 1.21\n\n{needs_lib}",
                      "other/other.go": 'package other\n\nimport "example.com/lib"\n\n'
                                        "func Other() int { return lib.Do() + mode }\n\nvar mode = 1\n"})  # fmt: skip

    def step(files: dict[str, str | bytes]) -> tuple[dict[str, str], int]:
        repo.commit(files)
        head = repo.git("rev-parse", "HEAD")
        full = tmp_path / f"{head[:12]}.kgen"
        run("index", str(repo.path), "--languages", "go", "--full", "--out", str(full))
        out = json.loads(run("index", str(repo.path), "--languages", "go", "--json"))
        same(load_from_notes(open_repository(str(repo.path)), head), load_from_file(str(full)))
        return outcomes(out), out["reused"]["rounds"]  # type: ignore[index]

    run("index", str(repo.path), "--languages", "go")
    lib += "\n// New is new.\nfunc New() int { return 2 }\n\n// Fresh is a new type.\ntype Fresh struct{ mode int }\n\n"
    lib += "// Go goes.\nfunc (f Fresh) Go() int { return f.mode }\n"
    assert step({"lib/lib.go": lib}) == ({"scip-go:lib": "lib/lib.go changed", "scip-go:use": "reused",
                                          "scip-go:other": "reused"}, 1)  # fmt: skip
    lib += "\n// Later comes later.\nfunc Later() int { return 3 }\n"
    assert step({"lib/lib.go": lib}) == ({
        "scip-go:lib": "lib/lib.go changed", "scip-go:other": "reused",
        "scip-go:use": "scip-go:lib added a declaration of a name it spells: Later"}, 1)  # fmt: skip
    lib = lib.replace("\tA int\n", "\tA int\n\tHook func()\n")  # a named field: the literal and == no longer compile
    assert step({"lib/lib.go": lib}) == ({"scip-go:lib": "lib/lib.go changed", "scip-go:use": "reused",
                                          "scip-go:other": "reused"}, 1)  # fmt: skip
    lib = lib.replace("\tHook func()\n", "\tHook func()\n\tInner\n")  # embedded: Opts gains Undo
    assert step({"lib/lib.go": lib}) == ({"scip-go:lib": "lib/lib.go changed",
                                          "scip-go:use": "scip-go:lib changed its public surface",
                                          "scip-go:other": "scip-go:lib changed its public surface"}, 1)  # fmt: skip
    lib = lib.replace("type Doer interface{ Do() int }", "type Doer interface {\n\tDo() int\n\tUndo()\n}")
    assert step({"lib/lib.go": lib}) == ({"scip-go:lib": "lib/lib.go changed",
                                          "scip-go:use": "scip-go:lib changed its public surface",
                                          "scip-go:other": "scip-go:lib changed its public surface"}, 1)  # fmt: skip
    lib += "\n// Bad does not type-check: the library still loads, as before.\nfunc Bad() int { return nowhere }\n"
    assert step({"lib/lib.go": lib}) == ({"scip-go:lib": "lib/lib.go changed", "scip-go:use": "reused",
                                          "scip-go:other": "reused"}, 1)  # fmt: skip
    tested = 'package lib\n\nimport "testing"\n\n// TestDo is a test of its own.\nfunc TestDo(t *testing.T) { Do() }\n'
    assert step({"lib/a_test.go": tested}) == ({"scip-go:lib": "lib/a_test.go changed", "scip-go:use": "reused",
                                               "scip-go:other": "reused"}, 1)  # fmt: skip
    extra = "package lib\n\n// Extra is in a file of its own.\nfunc Extra() int { return 4 }\n"
    surface = "scip-go:lib changed its public surface"
    assert step({"lib/extra.go": extra}) == ({"scip-go:lib": "lib/extra.go changed", "scip-go:use": surface,
                                              "scip-go:other": surface}, 1)  # fmt: skip
    lib = lib.replace("package lib\n", 'package lib\n\nimport "example.com/missing/pkg"\n')
    lib += "\n// Gone needs a module nobody requires.\nfunc Gone() int { return pkg.N }\n"
    assert step({"lib/lib.go": lib}) == ({"scip-go:lib": "lib/lib.go changed", "scip-go:use": surface,
                                          "scip-go:other": surface}, 2)  # fmt: skip


def test_what_a_module_could_not_load_of_a_sibling_is_charged_to_that_module(make_repo, tmp_path: Path):
    """Found on charmbracelet/x's history: an example module builds its library sibling through
    `replace`, by its own go.sum; what did not load there (a go.sum entry the example lacked) was
    charged to the sibling's directory, so re-indexing the sibling alone dropped it — the example's
    run, which found it, was reused, and the sibling's own run loaded fine. What a run could not
    load is now charged to the module that ran: here both runs fail on one import, each is kept."""
    require("scip-go")
    lib = 'package lib\n\nimport "example.invalid/missing/thing"\n\n// Do does.\nfunc Do() int { return thing.N }\n'
    repo = make_repo({"lib/go.mod": "module example.com/lib\n\ngo 1.21\n", "lib/lib.go": lib,
                      "app/go.mod": "module example.com/app\n\ngo 1.21\n\nrequire example.com/lib v0.0.0\n\n"
                      "replace example.com/lib => ../lib\n",
                      "app/app.go": 'package app\n\nimport "example.com/lib"\n\nfunc App() int { return lib.Do() }\n',
                      "README.md": "# two\n"})  # fmt: skip
    run("index", str(repo.path), "--languages", "go")
    repo.commit({"lib/lib.go": lib.replace("// Do does.", "// Do does, still.")})
    out = indexed(repo, tmp_path)
    assert outcomes(out) == {"scip-go:lib": "lib/lib.go changed", "scip-go:app": "reused"}
    stored = load_from_notes(open_repository(str(repo.path)), repo.git("rev-parse", "HEAD"))
    assert {s.path for s in stored.invisible_scopes if s.reason == "PACKAGE_NOT_LOADED"} == {"lib", "app"}


def test_a_go_module_is_reindexed_for_what_go_reads_not_for_its_ci_workflows(make_repo, tmp_path: Path):
    """Found on opentelemetry-go's history: a commit that touched only .github/workflows re-ran the
    type checker of the root module, whose root holds the CI's configuration too (14 s of 24). A
    Go module now reaches a file of no language only when the go command reads it: a source of a
    package directory, or one an embedding package may name."""
    require("scip-go")
    repo = make_repo({
        "go.mod": "module example.com/web\n\ngo 1.21\n",
        "web.go": "package web\n\n// Hello greets.\nfunc Hello() string { return \"hi\" }\n",
        "site/site.go": 'package site\n\nimport "embed"\n\n//go:embed static\nvar Files embed.FS\n',
        "site/static/index.html": "<p>hi</p>\n",
        "lib/lib.go": "package lib\n\n// Do does.\nfunc Do() int { return 1 }\n",
        "lib/table.h": "#define N 1\n",
        "lib/notes.txt": "beside the code, read by nothing\n",
        ".github/workflows/ci.yml": "on: push\n",
        "docs/guide.txt": "read me\n",
    })  # fmt: skip
    run("index", str(repo.path), "--languages", "go")
    repo.commit({".github/workflows/ci.yml": "on: [push, pull_request]\n", "docs/guide.txt": "read me twice\n",
                 "lib/notes.txt": "still read by nothing\n"})  # fmt: skip
    assert outcomes(indexed(repo, tmp_path)) == {"scip-go:.": "reused"}
    repo.commit({"site/static/index.html": "<p>hello</p>\n"})  # embedded
    assert outcomes(indexed(repo, tmp_path)) == {"scip-go:.": "site/static/index.html changed"}
    repo.commit({"lib/table.h": "#define N 2\n"})  # a source of a package directory, as a .c or .s file is
    assert outcomes(indexed(repo, tmp_path)) == {"scip-go:.": "lib/table.h changed"}


TS_MONOREPO: dict[str, str | bytes] = {
    "tsconfig.base.json": '{"compilerOptions": {"strict": true, "baseUrl": ".", "paths": {\n'
    '  "@acme/c1": ["libs/c1/src/index.ts"], "@acme/c2": ["libs/c2/src/index.ts"]\n}}}\n',
    "libs/c2/tsconfig.json": '{"extends": "../../tsconfig.base.json"}',
    "libs/c2/src/index.ts": "export function alpha(): number {\n  return 1;\n}\n",
    "libs/c1/tsconfig.json": '{"extends": "../../tsconfig.base.json"}',
    "libs/c1/src/index.ts": "export * from '@acme/c2';\nexport const one = 1;\n",
    "apps/user/tsconfig.json": '{"extends": "../../tsconfig.base.json"}',
    "apps/user/src/main.ts": "import { beta, one } from '@acme/c1';\n\nexport const run = () => beta() + one;\n",
    "apps/other/tsconfig.json": '{"extends": "../../tsconfig.base.json"}',
    "apps/other/src/main.ts": "export function beta(): number {\n  return 2;\n}\n",
}


def test_a_typescript_unit_is_kept_unless_what_it_imports_changed_its_surface_even_through_re_exports(
    make_repo, tmp_path: Path
):
    """ts-rest: exporting two types from @ts-rest/fastify re-indexed all 34 units of the tree (any
    TypeScript unit counted as reaching any other), slower than indexing it in full. A unit now
    reaches what its files import (through tsconfig paths here), and through what that re-exports:
    apps/user's `beta` comes through c1's `export *` from c2, which declares it only in the second
    commit (a `beta` declared elsewhere all along, so no unit is re-indexed for spelling the name)."""
    require("scip-typescript")
    repo = make_repo(TS_MONOREPO)
    run("index", str(repo.path))
    repo.commit({"libs/c2/src/index.ts": TS_MONOREPO["libs/c2/src/index.ts"]  # type: ignore[operator]
                 + "export function beta(): number {\n  return 3;\n}\n"})  # fmt: skip
    head = repo.git("rev-parse", "HEAD")
    run("index", str(repo.path), "--full", "--out", str(tmp_path / "full.kgen"))
    out = json.loads(run("index", str(repo.path), "--json"))
    stored = load_from_notes(open_repository(str(repo.path)), head)
    same(stored, load_from_file(str(tmp_path / "full.kgen")))
    names = {s.key: f"{s.file}:{s.qualified_name}" for s in stored.symbols}
    assert any(names.get(e.target) == "libs/c2/src/index.ts:beta" and e.file == "apps/user/src/main.ts"
               and e.confidence is Confidence.EXACT_TYPECHECKED for e in stored.edges)  # fmt: skip
    assert outcomes(out) == {
        "scip-typescript:libs/c2": "libs/c2/src/index.ts changed",
        "scip-typescript:libs/c1": "scip-typescript:libs/c2 changed its public surface",
        "scip-typescript:apps/user": "scip-typescript:libs/c2 changed its public surface",
        "scip-typescript:apps/other": "reused",
    }


INFERRED: dict[str, str | bytes] = {
    "liba/pyproject.toml": '[project]\nname = "liba"\n',
    "liba/liba/__init__.py": "class Greeter:\n    def run(self) -> str:\n        return 'g'\n\n\n"
    "class Other:\n    def run(self) -> str:\n        return 'o'\n\n\ndef make():\n    return Greeter()\n",
    "appb/pyproject.toml": '[project]\nname = "appb"\n',
    "appb/appb/__init__.py": "from liba import make\n\n\ndef main() -> str:\n    return make().run()\n",
    "tsconfig.base.json": '{"compilerOptions": {"strict": true, "baseUrl": ".", "paths": {\n'
    '  "@acme/lib": ["lib/src/index.ts"]\n}}}\n',
    "lib/tsconfig.json": '{"extends": "../tsconfig.base.json"}',
    "lib/src/index.ts": "export class Greeter {\n  run(): string {\n    return 'g';\n  }\n}\n\n"
    "export class Other {\n  run(): string {\n    return 'o';\n  }\n}\n\n"
    "export function make() {\n  return new Greeter();\n}\n",
    "app/tsconfig.json": '{"extends": "../tsconfig.base.json"}',
    "app/src/main.ts": "import { make } from '@acme/lib';\n\nexport const main = (): string => make().run();\n",
}


def test_a_body_a_return_type_is_inferred_from_changes_what_its_users_resolve_to(make_repo, tmp_path: Path):
    """Found with Python project roots as units: `make()` returns another class now, its signature
    unchanged, and `make().run()` in another project reaches that class's `run`; the user was kept
    with its edge to the old one. A function with no return type written changes its project's
    surface when its body does (Python and TypeScript alike); one with a return type does not."""
    for analyzer in ("scip-python", "scip-typescript"):
        require(analyzer)
    repo = make_repo(INFERRED)
    run("index", str(repo.path))

    step = committing(repo, tmp_path)

    python = INFERRED["liba/liba/__init__.py"].replace("return Greeter()", "return Other()")  # type: ignore[union-attr]
    typescript = INFERRED["lib/src/index.ts"].replace("new Greeter()", "new Other()")  # type: ignore[union-attr]
    found = step({"liba/liba/__init__.py": python, "lib/src/index.ts": typescript})
    assert found["scip-python:appb"] == "scip-python:liba changed its public surface"
    assert found["scip-typescript:app"] == "scip-typescript:lib changed its public surface"
    annotated = python.replace(
        "    def run(self) -> str:\n        return 'o'", "    def run(self) -> str:\n        return 'O'"
    )
    assert step({"liba/liba/__init__.py": annotated})["scip-python:appb"] == "reused"
