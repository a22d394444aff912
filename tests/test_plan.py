"""`kivgraph plan` on a real git repository holding the project roots a monorepo mixes: Go modules
tied by require/replace, npm packages tied by dependencies and tsconfig references, a Cargo crate
with a path dependency, loose Python and a Dart directory no type checker runs on."""

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from kivgraph.cli import cli
from kivgraph.errors import InvalidArgumentError
from kivgraph.plan import Plan, Unit, plan
from tests.conftest import Repo

TREE: dict[str, str | bytes] = {
    "go.mod": "module example.com/app\n\ngo 1.21\n\nrequire example.com/lib v0.0.0\n\n"
    "replace example.com/lib => ./lib\n",
    "main.go": 'package main\n\nimport "example.com/lib"\n\nfunc main() { lib.Do() }\n',
    "lib/go.mod": "module example.com/lib\n\ngo 1.21\n",
    "lib/lib.go": "package lib\n\n// Do does.\nfunc Do() {}\n" + "// padding\n" * 200,
    "tools/go.mod": "module example.com/tools\n\ngo 1.21\n\nrequire (\n\texample.com/lib v0.0.0 // indirect\n)\n",
    "tools/gen.go": "package tools\n\nfunc Gen() {}\n",
    "web/shared/package.json": '{"name": "@acme/shared"}',
    "web/shared/tsconfig.json": '{\n  // comments are allowed here\n  "compilerOptions": {},\n}\n',
    "web/shared/src/index.ts": "export const shared = 1;\n",
    "web/app/package.json": '{"name": "@acme/app", "dependencies": {"@acme/shared": "*", "left-pad": "1"}}',
    "web/app/tsconfig.json": '{"references": [{"path": "../ui"}]}',
    "web/app/src/main.ts": "import { shared } from '@acme/shared';\nexport const app = shared;\n",
    "web/app/src/helper.js": "module.exports = 1;\n",
    "web/ui/package.json": '{"name": "@acme/ui"}',
    "web/ui/tsconfig.json": "{}",
    "web/ui/button.tsx": "export const Button = 1;\n",
    "crates/core/Cargo.toml": '[package]\nname = "core"\nversion = "0.1.0"\n',
    "crates/core/src/lib.rs": "pub fn core() {}\n",
    "crates/cli/Cargo.toml": '[package]\nname = "cli"\n\n[dependencies]\ncore = { path = "../core" }\nserde = "1"\n',
    "crates/cli/src/main.rs": "fn main() { core::core(); }\n",
    "scripts/build.py": "def build():\n    return 1\n",
    "mobile/lib/main.dart": "void main() {}\n",
    "README.md": "# a monorepo\n",
}


@pytest.fixture(scope="module")
def monorepo(tmp_path_factory: pytest.TempPathFactory) -> Repo:
    repo = Repo(tmp_path_factory.mktemp("plan") / "mono")
    repo.write(TREE)
    (repo.path / os.fsdecode(b"scripts/bad\xffname.py")).write_text("x = 1\n")  # a name that is not UTF-8
    repo.commit(message="a monorepo")
    return repo


def planned(repo: Repo, *args: str) -> dict[str, object]:
    result = CliRunner().invoke(cli, ["plan", str(repo.path), "--json", *args])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_every_project_root_is_a_unit_with_its_files_and_the_rest_is_syntax_only(monorepo: Repo):
    units = {u["id"]: u for u in planned(monorepo)["units"]}  # type: ignore[union-attr]
    assert set(units) == {
        "scip-go:.", "scip-go:lib", "scip-go:tools",
        "scip-typescript:web/shared", "scip-typescript:web/app", "scip-typescript:web/ui",
        "rust-analyzer:crates/core", "rust-analyzer:crates/cli",
        "scip-python:.", "syntax:mobile",
    }  # fmt: skip
    assert units["scip-go:."]["files"] == 1  # main.go; lib/ and tools/ are modules of their own
    assert units["scip-go:lib"]["name"] == "example.com/lib"
    assert units["scip-go:lib"]["bytes"] == len(TREE["lib/lib.go"])
    assert units["scip-typescript:web/app"]["files"] == 2  # the .js file goes with its tsconfig root
    assert units["rust-analyzer:crates/cli"]["name"] == "cli"
    assert units["syntax:mobile"]["analyzer"] == "syntax" and units["syntax:mobile"]["language"] == ""
    assert units["scip-python:."]["files"] == 1  # scripts/build.py; the name that is not UTF-8 is never indexed


def test_dependencies_come_from_the_manifests_and_order_puts_them_first(monorepo: Repo):
    answer = planned(monorepo)
    units = answer["units"]  # type: ignore[assignment]
    needs = {u["id"]: u["depends_on"] for u in units}  # type: ignore[union-attr]
    assert needs["scip-go:."] == ["scip-go:lib"]  # require and replace both name it
    assert needs["scip-go:tools"] == ["scip-go:lib"]  # a require block, comment and all
    assert needs["scip-typescript:web/app"] == ["scip-typescript:web/shared", "scip-typescript:web/ui"]
    assert needs["rust-analyzer:crates/cli"] == ["rust-analyzer:crates/core"]
    order = [u["id"] for u in units]  # type: ignore[union-attr]
    for unit, deps in needs.items():
        assert all(order.index(d) < order.index(unit) for d in deps), (unit, deps)
    assert answer["cyclic"] == []


def test_shards_balance_the_units_by_work_and_never_split_one(monorepo: Repo):
    answer = planned(monorepo, "--shards", "3")
    shards = answer["shards"]  # type: ignore[assignment]
    assert [s["shard"] for s in shards] == ["1/3", "2/3", "3/3"]  # type: ignore[index]
    every = [u for s in shards for u in s["units"]]  # type: ignore[index]
    assert sorted(every) == sorted(u["id"] for u in answer["units"])  # type: ignore[union-attr]
    work = {u["id"]: u["work"] for u in answer["units"]}  # type: ignore[union-attr]
    assert all(s["work"] == sum(work[u] for u in s["units"]) for s in shards)  # type: ignore[index]
    # A type checker's start counts: the tiny units spread over the shards, 2–4 each.
    assert all(2 <= len(s["units"]) <= 4 for s in shards)  # type: ignore[index,arg-type]
    # A Go module and the module it imports share a shard, which type-checks both anyway (tools
    # requires lib in its go.mod but imports nothing of it: it is free to go elsewhere).
    assert any({"scip-go:.", "scip-go:lib"} <= set(s["units"]) for s in shards)  # type: ignore[index]


def test_units_reaching_the_same_modules_share_a_shard():
    """Found in use: balancing by size alone put the five modules that use testify, go-cmp and
    x/sync into four shards, and each of them parsed and type-checked those again (the slowest
    shard 668 of 821 files)."""
    from kivgraph.plan import ANALYZER_START, Plan

    def module(name: str, size: int, *uses: str) -> Unit:
        return Unit(name, "scip-go", "go", name, (f"{name}/a.go",), size, tuple(f"scip-go:{u}" for u in uses),
                    work=ANALYZER_START + size)  # fmt: skip

    shared = module("testify", 900_000)
    plan = Plan((shared, module("a", 100_000, "testify"), module("b", 100_000, "testify"), module("c", 400_000),
                 module("d", 400_000)))  # fmt: skip
    shards = [{u.id for u in shard} for shard in plan.shards(2, lambda u: u.depends_on)]
    assert {"scip-go:testify", "scip-go:a", "scip-go:b"} in shards


def test_a_large_file_counts_as_data_past_its_first_64_kilobytes():
    """Found on the monorepo bench: uniseg's 2.1 MB of Unicode tables took what testify's 0.9 MB
    of code does; counted in full, uniseg took a shard of its own while another ran a second longer."""
    from kivgraph.plan import ANALYZER_START, DATA_FILE_BYTES

    tables = plan([("t/go.mod", 20), ("t/tables.go", 1_064_000), ("t/code.go", 4_000), ("c/go.mod", 20),
                   ("c/code.go", 200_000)], lambda p: b"module example.com/" + p.split("/")[0].encode())  # fmt: skip
    work = {u.id: u.work for u in tables.units}
    assert work["scip-go:t"] == ANALYZER_START + DATA_FILE_BYTES + (1_064_000 - DATA_FILE_BYTES) // 10 + 4_000
    assert work["scip-go:c"] == ANALYZER_START + DATA_FILE_BYTES + (200_000 - DATA_FILE_BYTES) // 10


def test_a_cycle_is_reported_and_its_units_still_planned():
    units = [Unit("a", "scip-go", "go", "a", ("a/a.go",), 1, ("scip-go:b",)),
             Unit("b", "scip-go", "go", "b", ("b/b.go",), 1, ("scip-go:a",)),
             Unit("c", "scip-go", "go", "c", ("c/c.go",), 1)]  # fmt: skip
    from kivgraph.plan import _ordered  # noqa: PLC2701 — the ordering alone, without manifests

    ordered = _ordered(units)
    assert [u.id for u in ordered.units] == ["scip-go:c", "scip-go:a", "scip-go:b"]
    assert ordered.cyclic == ("scip-go:a", "scip-go:b")


def test_bad_input_is_a_clear_error(monorepo: Repo, tmp_path: Path):
    with pytest.raises(InvalidArgumentError):
        Plan(()).shards(0, lambda u: u.depends_on)
    result = CliRunner().invoke(cli, ["plan", str(monorepo.path), "--shards", "0"])
    assert result.exit_code == 2 and "--shards" in result.output
    result = CliRunner().invoke(cli, ["plan", str(tmp_path)])
    assert result.exit_code != 0 and "Traceback" not in result.output
    broken = plan([("go.mod", 5), ("a.go", 3), ("x/tsconfig.json", 2), ("x/a.ts", 4)],
                  lambda p: b"\xff\xfe{not json" if p.endswith(".json") else b"module")  # fmt: skip
    assert {u.id for u in broken.units} == {"scip-go:.", "scip-typescript:x"}  # unreadable manifests: no deps


def test_a_go_module_is_balanced_by_the_modules_it_imports_not_all_its_go_mod_requires(make_repo):
    """Found measuring a monorepo with golang.org/x/text: bubbletea's go.mod requires x/text (an
    indirect module, as go.mod lists them since Go 1.17) though no file of it imports x/text, and
    the plan tied the two to one shard, which then type-checked all bubbletea reaches besides."""
    big = "package big\n\n" + "".join(f"// F{i} is many.\nfunc F{i}() int {{ return {i} }}\n" for i in range(4000))
    user_mod = "module example.com/user\n\ngo 1.21\n\nrequire example.com/big v0.0.0 // indirect\n"
    repo = make_repo({"big/go.mod": "module example.com/big\n\ngo 1.21\n", "big/big.go": big, "user/go.mod": user_mod,
                      "user/user.go": "package user\n\nfunc U() int { return 1 }\n"})  # fmt: skip
    shards = planned(repo, "--shards", "2")["shards"]  # type: ignore[index]
    assert [s["units"] for s in shards] == [["scip-go:big"], ["scip-go:user"]]  # type: ignore[index]


def test_a_go_files_imports_are_read_before_its_first_declaration_unless_a_comment_hides_it():
    """Every shard weighs every unit's reach from the imports of all its Go files; reading each
    file only up to its first declaration took that from 0.07 s to 0.014 s on the monorepo bench."""
    from kivgraph.units import go_imports

    plain = b'package a\n\nimport "example.com/one"\n\nfunc F() {}\n\nvar s = `\nimport "example.com/not"\n`\n'
    assert go_imports(plain) == ["example.com/one"]
    # A block comment before the imports may hold a line that looks like a declaration: read it all.
    documented = (b"/*\nPackage a shows:\n\nfunc main() {}\n*/\npackage a\n\n"
                  b'import (\n\t"example.com/one"\n\tx "example.com/two"\n)\n\nfunc F() {}\n')  # fmt: skip
    assert sorted(go_imports(documented)) == ["example.com/one", "example.com/two"]
    cgo = b'package a\n\n/*\n#include <stdio.h>\n*/\nimport "C"\nimport "example.com/one"\n\ntype T int\n'
    assert go_imports(cgo) == ["C", "example.com/one"]


def test_a_go_import_reaches_the_module_of_each_path_prefix_nested_modules_too(make_repo):
    """An import path reaches the tree's module whose path is the import or a prefix of it at a
    `/`, and a module nested in another (example.com/lib/sub inside example.com/lib) is reached
    besides the outer one; a path that merely starts alike (example.com/library) is not."""
    from kivgraph.plan import plan_snapshot
    from kivgraph.snapshot import snapshot_at
    from kivgraph.units import Dependencies

    repo = make_repo({
        "lib/go.mod": "module example.com/lib\n\ngo 1.21\n", "lib/lib.go": "package lib\n",
        "lib/sub/go.mod": "module example.com/lib/sub\n\ngo 1.21\n", "lib/sub/pkg/p.go": "package pkg\n",
        "library/go.mod": "module example.com/library\n\ngo 1.21\n", "library/l.go": "package library\n",
        "app/go.mod": "module example.com/app\n\ngo 1.21\n",
        "app/main.go": 'package main\n\nimport (\n\t"fmt"\n\t"example.com/lib/sub/pkg"\n)\n\nfunc main() {}\n',
        "tool/go.mod": "module example.com/tool\n\ngo 1.21\n",
        "tool/t.go": 'package tool\n\nimport "example.com/library"\n\nfunc T() {}\n',
    })  # fmt: skip
    snap = snapshot_at(str(repo.path), "HEAD")
    plan = plan_snapshot(snap)
    depends = Dependencies(plan, snap)
    units = {u.root: u for u in plan.units}
    assert depends.of(units["app"]) == {"scip-go:lib", "scip-go:lib/sub"}
    assert depends.of(units["tool"]) == {"scip-go:library"}


def test_a_large_plan_is_balanced_within_a_budget_and_every_unit_placed_once(monkeypatch):
    """Weighing every move and exchange anew took 84 s on a 256-unit plan; the loads are now
    counted per unit reached, and the moving stops at a budget, never at a worse balance."""
    import random

    import kivgraph.plan as planning
    from kivgraph.plan import ANALYZER_START, Plan

    chosen = random.Random(7)
    units = tuple(Unit(f"m{i}", "scip-go", "go", f"m{i}", (f"m{i}/a.go",), size, uses, work=ANALYZER_START + size)
                  for i in range(1000)
                  for size in [chosen.randint(10_000, 900_000)]
                  for uses in [tuple(f"scip-go:m{u}" for u in chosen.sample(range(i), min(i, chosen.randint(0, 4))))]
                  )  # fmt: skip
    plan = Plan(units)

    def heaviest(shards: list[list[Unit]]) -> int:
        loads = []
        for shard in shards:
            load = planning._ShardLoad(checked, reach, cost)  # noqa: SLF001 — the shards' own measure
            for unit in shard:
                load.add(unit.id)
            loads.append(load.load)
        return max(loads)

    reach = plan._reach(lambda u: u.depends_on)  # noqa: SLF001
    cost = {u.id: (u.work, u.parsed_work) for u in units}
    checked = {u.id: frozenset({u.id}) for u in units}
    balanced = plan.shards(4, lambda u: u.depends_on)
    assert sorted(u.id for shard in balanced for u in shard) == sorted(u.id for u in units)
    monkeypatch.setattr(planning, "_lighten", lambda shards, swaps: None)
    placed = plan.shards(4, lambda u: u.depends_on)
    assert heaviest(balanced) <= heaviest(placed)  # never worse than placing alone


def test_a_typescript_unit_depends_on_what_it_imports_through_tsconfig_paths_not_all_they_map(make_repo):
    # ts-rest: every library's tsconfig extends tsconfig.base.json, whose paths map each package of
    # the tree; @ts-rest/express imports @ts-rest/core through them, with no package.json naming it.
    repo = make_repo(
        {
            "tsconfig.base.json": '{"compilerOptions": {"baseUrl": ".", "paths": {\n'
            '  "@acme/core": ["libs/core/src/index.ts"],\n  "@acme/ui/*": ["libs/ui/src/*"],\n'
            '  "@acme/express": ["libs/express/src/index.ts"]\n}}}\n',
            "libs/core/tsconfig.json": '{"extends": "../../tsconfig.base.json"}',
            "libs/core/src/index.ts": "export const core = 1;\n",
            "libs/ui/tsconfig.json": '{"extends": "../../tsconfig.base.json"}',
            "libs/ui/src/button.ts": "export const button = 1;\n",
            "libs/express/tsconfig.json": '{"extends": "../../tsconfig.base.json"}',
            "libs/express/src/index.ts": "import { core } from '@acme/core';\nexport * from './local';\n",
            "libs/express/src/local.ts": "export const local = 1;\n",
            "apps/web/tsconfig.json": '{"extends": "../../tsconfig.base.json"}',
            "apps/web/src/main.ts": "const { button } = require('@acme/ui/button');\n"
            "export const lazy = () => import('@acme/express');\n",
        }
    )
    needs = {u["id"]: u["depends_on"] for u in planned(repo)["units"]}  # type: ignore[union-attr]
    assert needs["scip-typescript:libs/express"] == ["scip-typescript:libs/core"]
    assert needs["scip-typescript:apps/web"] == ["scip-typescript:libs/express", "scip-typescript:libs/ui"]
    assert needs["scip-typescript:libs/core"] == [] and needs["scip-typescript:libs/ui"] == []


def test_python_project_roots_depend_on_the_projects_whose_modules_they_import():
    """Each pyproject.toml / setup.py / setup.cfg directory with Python files is a unit; the top of
    the tree is one for the files outside every other. A project depends on the projects holding the
    modules its files import, found as scip-python finds them (the top, then each project's `src`
    or root): through a namespace package several projects share (`acme`), only the one holding the
    module named — every one only when the namespace itself is all that is imported."""
    files = {
        "api/pyproject.toml": "[project]\nname = 'acme-api'\n",
        "api/src/acme/api/__init__.py": "def call():\n    return 1\n",
        "sdk/setup.py": "",
        "sdk/src/acme/sdk/__init__.py": "from acme.api import call\nfrom acme import api as again\n",
        "sdk/tests/test_sdk.py": "from acme.sdk import (\n    thing,\n)\n",
        "tool/setup.cfg": "",
        "tool/tool.py": "import acme\nfrom . import local\nimport os, json\n",
        "docs/pyproject.toml": "[tool.black]\n",  # no Python files: no unit
        "scripts/run.py": "import acme.sdk\n",
        ".venv/lib/site-packages/x/pyproject.toml": "",
        ".venv/lib/site-packages/x/x.py": "",
    }
    planned = plan([(p, len(d)) for p, d in files.items()], lambda p: files[p].encode() if p in files else None)
    units = {u.id: u for u in planned.units}
    assert set(units) == {"scip-python:.", "scip-python:api", "scip-python:sdk", "scip-python:tool"}
    assert units["scip-python:."].files == (".venv/lib/site-packages/x/x.py", "scripts/run.py")
    assert units["scip-python:sdk"].depends_on == ("scip-python:api",)
    assert units["scip-python:tool"].depends_on == ("scip-python:api", "scip-python:sdk")
    assert units["scip-python:."].depends_on == ("scip-python:sdk",)
    assert [u.id for u in planned.units][:2] == ["scip-python:api", "scip-python:sdk"]
