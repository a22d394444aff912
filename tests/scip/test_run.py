"""Running the real indexers during `index`: exact edges per language, and honest failures."""

import base64
import errno
import hashlib
import json
import stat
import subprocess
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from kivgraph.cli import cli
from kivgraph.indexing import index_repository
from kivgraph.model import Confidence, EdgeKind, Language
from kivgraph.scip import run
from kivgraph.scip.projects import projects
from tests.scip.analyzers import require
from tests.scip.test_ingest import ANIMALS, named_edges

EXACT = Confidence.EXACT_TYPECHECKED
GO_MODULE = {
    "go.mod": "module example.com/demo\n\ngo 1.22\n",
    "greet/greet.go": (
        "package greet\n\n// Greeter says hello.\ntype Greeter interface {\n\tGreet() string\n}\n\n"
        "// English greets in English.\ntype English struct{}\n\n"
        'func (English) Greet() string { return "hello" }\n\n'
        "// Twice greets twice.\nfunc Twice(g Greeter) string { return g.Greet() + g.Greet() }\n"
    ),
    "cmd/app/main.go": (
        'package main\n\nimport "example.com/demo/greet"\n\nfunc main() {\n\tprintln(greet.Twice(greet.English{}))\n}\n'
    ),
}


def test_typescript_in_a_subdirectory_is_indexed_where_its_tsconfig_is(make_repo):
    require("scip-typescript")
    repo = make_repo({f"web/{path}": text for path, text in ANIMALS.items()} | {"README.md": "x\n"})
    generation = index_repository(str(repo.path), run_analyzers=True)
    assert ("speak", EdgeKind.CALLS_DIRECT, "Animal.sound", EXACT) in named_edges(generation)
    assert generation.invisible_scopes == ()


def test_go_calls_through_an_interface_are_exact_with_scip_go(make_repo):
    require("scip-go")
    generation = index_repository(str(make_repo(GO_MODULE).path), run_analyzers=True)
    edges = named_edges(generation)
    assert ("Twice", EdgeKind.CALLS_DIRECT, "Greeter.Greet", EXACT) in edges
    assert ("main", EdgeKind.CALLS_DIRECT, "Twice", EXACT) in edges
    assert ("English.Greet", EdgeKind.IMPLEMENTS, "Greeter.Greet", EXACT) in edges
    assert ("scip-go", "0.2.9") in generation.header.analyzers


def test_python_calls_are_exact_with_scip_python(make_repo):
    require("scip-python")
    repo = make_repo(
        {
            "pkg/__init__.py": "",
            "pkg/engine.py": "class Engine:\n    def start(self):\n        return 1\n",
            "pkg/main.py": "from pkg.engine import Engine\n\n\ndef run(e: Engine):\n    return e.start()\n",
        }
    )
    generation = index_repository(str(repo.path), run_analyzers=True)
    assert ("run", EdgeKind.CALLS_DIRECT, "Engine.start", EXACT) in named_edges(generation)


def executable(path: Path, body: str) -> str:
    path.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)


def test_a_crashing_analyzer_is_an_invisible_scope_and_its_files_keep_candidates(make_repo, tmp_path, monkeypatch):
    crash = executable(
        tmp_path / "scip-go", 'case "$1" in --version) echo 0.2.9;; *) echo "panic: boom" >&2; exit 2;; esac'
    )
    monkeypatch.setenv("KIVGRAPH_SCIP_GO", crash)
    generation = index_repository(str(make_repo(GO_MODULE).path), run_analyzers=True)
    [scope] = generation.invisible_scopes
    assert (scope.reason, scope.language, scope.path) == ("ANALYZER_CRASHED", Language.GO, "")
    assert "exited with 2: panic: boom" in scope.detail
    assert ("main", EdgeKind.CALLS_DIRECT, "Twice", Confidence.CANDIDATE) in named_edges(generation)


def test_an_analyzer_past_its_timeout_is_an_invisible_scope(make_repo, tmp_path, monkeypatch):
    slow = executable(tmp_path / "scip-go", 'case "$1" in --version) echo 0.2.9;; *) sleep 10;; esac')
    monkeypatch.setenv("KIVGRAPH_SCIP_GO", slow)
    monkeypatch.setattr(run, "ANALYZER_TIMEOUT_SECONDS", 0.5)
    generation = index_repository(str(make_repo(GO_MODULE).path), run_analyzers=True)
    assert [s.reason for s in generation.invisible_scopes] == ["ANALYZER_TIMEOUT"]


def test_a_missing_analyzer_is_an_invisible_scope_naming_how_to_install_it(make_repo, tmp_path, monkeypatch):
    monkeypatch.setenv("KIVGRAPH_SCIP_GO", str(tmp_path / "absent"))
    generation = index_repository(str(make_repo(GO_MODULE).path), run_analyzers=True)
    [scope] = generation.invisible_scopes
    assert scope.reason == "ANALYZER_UNAVAILABLE" and "KIVGRAPH_SCIP_GO points at" in scope.detail


@pytest.mark.parametrize(
    ("paths", "expected"),
    [
        (
            ["a/tsconfig.json", "a/b/tsconfig.json", "c/tsconfig.json", "x.ts"],
            [("scip-typescript", "a"), ("scip-typescript", "c")],
        ),
        (["go.mod", "tools/go.mod", "x.go"], [("scip-go", ""), ("scip-go", "tools")]),
        (["Cargo.toml", "crates/a/Cargo.toml", "src/lib.rs"], [("rust-analyzer", "")]),
    ],
)
def test_each_indexer_runs_once_per_project_root(paths: list[str], expected: list[tuple[str, str]]):
    found = projects(paths, frozenset({Language.TYPESCRIPT, Language.GO, Language.RUST}))
    assert [(p.spec.name, p.root) for p in found] == expected


def test_rust_workspace_calls_and_trait_impls_are_exact_with_rust_analyzer(make_repo):
    require("rust-analyzer")
    from tests.conftest import FIXTURES

    files = {
        p.relative_to(FIXTURES / "rust" / "workspace").as_posix(): p.read_text(encoding="utf-8")
        for p in (FIXTURES / "rust" / "workspace").rglob("*")
        if p.is_file()
    }
    repo = make_repo(files)
    generation = index_repository(str(repo.path), run_analyzers=True)
    assert generation.invisible_scopes == ()
    # It ran in the clean working tree, and its build-script output went elsewhere: no target/.
    assert repo.git("status", "--porcelain", "--ignored") == ""
    exact = [e for e in generation.edges if e.confidence is EXACT]
    assert len(exact) > 20
    assert {e.provenance.value for e in exact} == {"RUST_ANALYZER_SCIP"}
    # rust-analyzer states no relationships; the trait named in `impl Priced for Item` is a checked
    # reference, attributed to Item, so the impl edge is exact and the syntax candidate gives way.
    implements = {(e.confidence, e.file) for e in generation.edges if e.kind is EdgeKind.IMPLEMENTS}
    # Type-level impls are exact; each impl method implements the trait method of its name.
    certain = Confidence.STRUCTURAL_CERTAIN
    assert implements == {
        (EXACT, "core_lib/src/model.rs"),
        (certain, "core_lib/src/model.rs"),
        (EXACT, "core_lib/src/storage/cache.rs"),
        (certain, "core_lib/src/storage/cache.rs"),
    }


def test_typescript_without_a_tsconfig_is_an_invisible_scope_and_keeps_candidates(make_repo):
    repo = make_repo({"src/a.ts": "export function a() { return b(); }\nexport function b() { return 1; }\n"})
    generation = index_repository(str(repo.path), run_analyzers=True)
    assert [(s.reason, s.language) for s in generation.invisible_scopes] == [
        ("PROJECT_NOT_CONFIGURED", Language.TYPESCRIPT)
    ]
    assert ("a", EdgeKind.CALLS_DIRECT, "b", Confidence.CANDIDATE) in named_edges(generation)


def test_a_go_module_whose_dependencies_cannot_be_fetched_says_so(make_repo, monkeypatch):
    require("scip-go")
    monkeypatch.setenv("GOPROXY", "off")
    module = dict(GO_MODULE)
    module["go.mod"] = "module example.com/demo\n\ngo 1.22\n\nrequire example.invalid/nothing v1.0.0\n"
    generation = index_repository(str(make_repo(module).path), run_analyzers=True)
    reasons = [s.reason for s in generation.invisible_scopes]
    assert "MODULE_DEPENDENCIES_MISSING" in reasons
    [missing] = [s for s in generation.invisible_scopes if s.reason == "MODULE_DEPENDENCIES_MISSING"]
    assert "example.invalid/nothing" in missing.detail


def module_proxy(root: Path, modules: dict[str, dict[str, str]]) -> tuple[str, str]:
    """A GOPROXY of the file system serving `modules` (`path@version` → its files) and no other,
    and the go.sum lines of those modules."""
    sums: list[str] = []
    for spec, files in modules.items():
        path, version = spec.split("@")
        versions = root / path / "@v"
        versions.mkdir(parents=True, exist_ok=True)
        (versions / "list").write_text(f"{version}\n", encoding="utf-8")
        (versions / f"{version}.info").write_text(json.dumps({"Version": version, "Time": "2024-01-01T00:00:00Z"}))
        (versions / f"{version}.mod").write_text(files["go.mod"], encoding="utf-8")
        with zipfile.ZipFile(versions / f"{version}.zip", "w") as archive:
            for name, text in files.items():
                archive.writestr(f"{spec}/{name}", text)
        content = {f"{spec}/{name}": text for name, text in files.items()}
        sums += [f"{path} {version} {h1(content)}", f"{path} {version}/go.mod {h1({'go.mod': files['go.mod']})}"]
    return root.as_uri(), "".join(f"{line}\n" for line in sums)


def h1(files: dict[str, str]) -> str:
    """The go command's `h1:` hash of files by name (golang.org/x/mod/sumdb/dirhash Hash1)."""
    summary = "".join(f"{hashlib.sha256(files[n].encode()).hexdigest()}  {n}\n" for n in sorted(files))
    return "h1:" + base64.b64encode(hashlib.sha256(summary.encode()).digest()).decode()


def test_one_requirement_the_proxy_refuses_leaves_the_others_fetched(make_repo, tmp_path, monkeypatch):
    """Found indexing opentelemetry-go on a cold module cache: the proxy refused one test-only
    requirement of its opentracing bridge, which stopped `go mod download` before it fetched any;
    scip-go then named every use of grpc — required by the bridge, and fetched only later by other
    modules — the standard library, and the one run differed from the shards that had grpc by
    then. Every requirement that can be fetched now is, whatever ran before."""
    require("scip-go")
    proxy, sums = module_proxy(tmp_path / "proxy", {"example.com/dep@v1.0.0": {
        "go.mod": "module example.com/dep\n\ngo 1.21\n",
        "dep.go": "package dep\n\n// Hello greets.\nfunc Hello() string { return \"hello\" }\n",
    }})  # fmt: skip
    cache = tmp_path / "modcache"  # cold
    for name, value in {"GOPROXY": proxy, "GOSUMDB": "off", "GOMODCACHE": str(cache)}.items():
        monkeypatch.setenv(name, value)
    repo = make_repo({
        "go.mod": "module example.com/app\n\ngo 1.21\n\nrequire (\n\texample.com/dep v1.0.0\n"
                  "\texample.com/gone v1.0.0\n)\n",
        "go.sum": sums,  # as committed: complete for what the module builds
        "app.go": 'package app\n\nimport "example.com/dep"\n\n// App greets.\n'
                  "func App() string { return dep.Hello() }\n",
    })  # fmt: skip
    try:
        generation = index_repository(str(repo.path), run_analyzers=True)
    finally:
        subprocess.run(["chmod", "-R", "u+w", str(cache)], check=False)  # the module cache is read-only
    [missing] = [s for s in generation.invisible_scopes if s.reason == "MODULE_DEPENDENCIES_MISSING"]
    assert "example.com/gone" in missing.detail  # still said
    used = {(x.package, x.symbol) for x in generation.external_references if x.file == "app.go"}
    assert ("example.com/dep", "example.com/dep.Hello") in used, used
    assert not any(package == "github.com/golang/go/src" for package, _ in used), used


def test_what_an_indexer_could_not_see_names_the_tree_not_the_scratch_copy(make_repo, tmp_path):
    """Found in use: go named the scratch copy's go.mod it could not read, a temporary directory,
    so two indexes of one commit differed (and a shard merged with another never equalled one run)."""
    require("scip-go")
    module = {**GO_MODULE, "go.mod": "module example.com/demo\n\ngo 1.22\n\nrequire example.com/gone v0.0.0\n\n"
              "replace example.com/gone => ./gone\n"}  # fmt: skip
    repo = make_repo(module)
    repo.write({"untracked.txt": "the working tree is not clean: indexers run on a scratch copy\n"})
    first, second = (index_repository(str(repo.path), run_analyzers=True).invisible_scopes for _ in range(2))
    [missing] = [s for s in first if s.reason == "MODULE_DEPENDENCIES_MISSING"]
    assert "gone" in missing.detail and "kivgraph-scip-" not in missing.detail and str(tmp_path) not in missing.detail
    assert first == second


def test_a_blind_spot_the_type_checker_could_not_clear_either_stays(make_repo):
    require("scip-python")
    repo = make_repo(
        {
            "pets.py": (
                "class Dog:\n    def speak(self):\n        return 'woof'\n\n\n"
                "class Robot:\n    def speak(self):\n        return 'beep'\n\n\n"
                "def untyped(x):\n    return x.speak()\n\n\n"
                "def typed(d: Dog):\n    return d.speak()\n"
            ),
        }
    )
    generation = index_repository(str(repo.path), run_analyzers=True)
    blind = {(u.reason, u.line, u.requested_symbol) for u in generation.unresolved}
    assert ("RECEIVER_TYPE_UNKNOWN", 12, "speak") in blind  # pyright cannot type `x` either
    assert not any(line == 16 for _, line, _ in blind)  # `d: Dog` resolved it exactly
    assert ("typed", EdgeKind.CALLS_DIRECT, "Dog.speak", Confidence.EXACT_TYPECHECKED) in named_edges(generation)


PYTHON_CALLS = {
    "lib.py": "def helper():\n    return 1\n",
    "app.py": "from lib import helper\n\n\ndef run():\n    return helper()\n",
}


def recording(tmp_path: Path, real: str) -> tuple[str, Path]:
    """A wrapper around a real analyzer that notes the directory of the tree it read: scip-python
    runs in a view of links to the tree (kivgraph/scip/run.py `python_view`), app.py one of them."""
    log = tmp_path / "cwd.log"
    return executable(tmp_path / "scip-python", f'dirname "$(readlink -f app.py)" >> "{log}"\nexec "{real}" "$@"'), log


def test_a_clean_working_tree_at_the_commit_is_analyzed_in_place_and_left_untouched(make_repo, tmp_path, monkeypatch):
    wrapper, log = recording(tmp_path, require("scip-python"))
    monkeypatch.setenv("KIVGRAPH_SCIP_PYTHON", wrapper)
    repo = make_repo(PYTHON_CALLS)
    generation = index_repository(str(repo.path), run_analyzers=True)
    assert ("run", EdgeKind.CALLS_DIRECT, "helper", EXACT) in named_edges(generation)
    assert Path(log.read_text().split()[-1]).resolve() == repo.path.resolve()
    assert repo.git("status", "--porcelain", "--ignored") == ""  # no config, no index left behind


def test_a_working_trees_virtualenv_is_never_walked_and_its_configuration_still_holds(make_repo, tmp_path, monkeypatch):
    """Found in CI: the clone holds its own `.venv` (untracked), and kivgraph's pyrightconfig.json
    names it (`venvPath`) and excludes only generated files, so pyright's own exclusions are off:
    scip-python, run in place, walked the whole virtualenv for minutes. What it is shown of the
    tree holds the tree's Python files alone, and the configuration's places are the tree's."""
    log = tmp_path / "seen.log"
    wrapper = executable(tmp_path / "scip-python", f'ls -A >> "{log}"\ncat pyrightconfig.json >> "{log}"\n'
                                                   f'exec "{require("scip-python")}" "$@"')  # fmt: skip
    monkeypatch.setenv("KIVGRAPH_SCIP_PYTHON", wrapper)
    config = '{"venvPath": ".", "venv": ".venv", "exclude": ["generated"]}\n'
    repo = make_repo({**PYTHON_CALLS, ".gitignore": ".venv/\n", "pyrightconfig.json": config})
    (repo.path / ".venv" / "lib").mkdir(parents=True)
    (repo.path / ".venv" / "lib" / "huge.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    generation = index_repository(str(repo.path), run_analyzers=True)
    assert ("run", EdgeKind.CALLS_DIRECT, "helper", EXACT) in named_edges(generation)
    seen = log.read_text(encoding="utf-8")
    assert "app.py" in seen.split() and ".venv" not in seen.split()
    assert f'"venvPath": {json.dumps(str(repo.path))}' in seen  # ".": the tree's top, not the view's


def test_a_dirty_working_tree_is_not_what_gets_analyzed(make_repo, tmp_path, monkeypatch):
    wrapper, log = recording(tmp_path, require("scip-python"))
    monkeypatch.setenv("KIVGRAPH_SCIP_PYTHON", wrapper)
    repo = make_repo(PYTHON_CALLS)
    (repo.path / "app.py").write_text("def run():\n    return 2\n", encoding="utf-8")
    generation = index_repository(str(repo.path), run_analyzers=True)
    assert ("run", EdgeKind.CALLS_DIRECT, "helper", EXACT) in named_edges(generation)  # the commit's code
    assert Path(log.read_text().split()[-1]).resolve() != repo.path.resolve()
    assert repo.git("status", "--porcelain").split() == ["M", "app.py"]


def test_go_is_analysed_on_a_copy_so_go_sum_is_never_written(make_repo):
    require("scip-go")
    repo = make_repo(
        {
            "go.mod": "module example.com/m\n\ngo 1.22\n\nrequire golang.org/x/mod v0.22.0\n",
            "m.go": 'package m\n\nimport "golang.org/x/mod/semver"\n\n'
            "func Valid(v string) bool { return semver.IsValid(v) }\n",
        }
    )
    index_repository(str(repo.path), run_analyzers=True)
    assert repo.git("status", "--porcelain", "--ignored") == ""  # no go.sum appeared


@pytest.mark.parametrize(
    ("paths", "copied"),
    [
        (["go.mod", "go.sum", "a/a.go", "a/asm_amd64.s", "a/README.md", "a/.golangci.yml", "a/testdata/fuzz/seed",
          "docs/guide.md", "vendor/modules.txt", "b/b.go", "b/static/site/index.html", "b/go.work", "c/x.syso"],
         ["go.mod", "go.sum", "a/a.go", "a/asm_amd64.s", "vendor/modules.txt", "b/b.go", "b/static/site/index.html",
          "b/go.work"]),
        (["go.mod", "a/a.go", "docs/guide.md", "web/tsconfig.json", "web/a.ts"],
         ["go.mod", "a/a.go", "docs/guide.md", "web/tsconfig.json", "web/a.ts"]),
    ],
    ids=["go-only: what the go command reads", "any other indexer: everything"],
)  # fmt: skip
def test_a_copy_of_the_tree_holds_what_its_indexers_read(paths: list[str], copied: list[str]):
    contents = {p: b"package b\n\n//go:embed static\nvar site embed.FS\n" if p == "b/b.go" else b"x\n" for p in paths}
    files = [(p, lambda p=p: contents[p]) for p in paths]
    languages = frozenset({Language.GO, Language.TYPESCRIPT})
    written = run.copied_files(files, projects(paths, languages))
    assert [path for path, _ in written] == copied
    assert all(data == contents[path] for path, data in written)


def test_a_tree_that_cannot_be_copied_is_an_error_and_leaves_no_scratch_behind(tmp_path, monkeypatch):
    monkeypatch.setattr(run.tempfile, "tempdir", str(tmp_path))

    def unreadable() -> bytes:
        raise OSError("disk gone")

    files = [("go.mod", lambda: b"module example.com/m\n"), ("a/a.go", unreadable)]
    with pytest.raises(OSError, match="disk gone"):
        run.Analysis(files, frozenset({Language.GO}), None)
    assert list(tmp_path.iterdir()) == []


def memory_and_scratch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """Two empty directories standing for the file system in memory and the scratch directory on
    disk, with no temporary directory chosen in the environment."""
    memory, scratch = tmp_path / "memory", tmp_path / "scratch"
    memory.mkdir()
    scratch.mkdir()
    monkeypatch.setattr(run, "MEMORY_FILE_SYSTEM", str(memory))
    monkeypatch.setattr(run.tempfile, "tempdir", str(scratch))
    for name in ("TMPDIR", "TEMP", "TMP"):
        monkeypatch.delenv(name, raising=False)
    return memory, scratch


def test_the_copy_is_written_in_memory_when_there_is_room_and_nothing_is_left_behind(tmp_path, monkeypatch):
    """Found on the monorepo bench: creating a file on the machine's disk took ~0.6 ms, and the
    copy of 20 Go modules (2,400 files) held every indexer back by 1.4 s; in memory, ~0.05 s."""
    require("scip-go")
    memory, scratch = memory_and_scratch(tmp_path, monkeypatch)
    files = [(path, text.encode()) for path, text in GO_MODULE.items()]
    readers = [(path, lambda data=data: data) for path, data in files]

    analysis = run.Analysis(readers, frozenset({Language.GO}), None)
    assert analysis.in_memory is not None and analysis.in_memory.parent == memory
    assert (analysis.in_memory / "tree" / "greet" / "greet.go").read_text() == GO_MODULE["greet/greet.go"]
    [go] = analysis.finish()[0]
    assert go.index is not None and go.invisible == ()
    assert list(memory.iterdir()) == [] and list(scratch.iterdir()) == []

    # A temporary directory the user chose, or too little room in memory: the scratch directory.
    monkeypatch.setenv("TMPDIR", str(scratch))
    assert run.memory_directory(1) is None
    monkeypatch.delenv("TMPDIR")
    assert run.memory_directory(1 << 60) is None
    assert run.memory_directory(run.MEMORY_COPY_BYTES + 1) is None
    monkeypatch.setattr(run, "MEMORY_FILE_SYSTEM", str(tmp_path / "absent"))
    assert run.memory_directory(1) is None


def test_a_copy_that_fills_the_memory_is_written_to_disk_instead(tmp_path, monkeypatch):
    """Room is checked before the copy, but another process may fill the memory meanwhile."""
    require("scip-go")
    memory, scratch = memory_and_scratch(tmp_path, monkeypatch)
    writing = run.materialize

    def full_memory(files, worktree, root, go_modules=()):
        def until_full():
            for n, item in enumerate(files):
                if n == 2 and root.is_relative_to(memory):
                    raise OSError(errno.ENOSPC, "No space left on device")
                yield item

        return writing(until_full(), worktree, root, go_modules)

    monkeypatch.setattr(run, "materialize", full_memory)
    readers = [(path, lambda text=text: text.encode()) for path, text in GO_MODULE.items()]
    analysis = run.Analysis(readers, frozenset({Language.GO}), None)
    assert analysis.in_memory is None and list(memory.iterdir()) == []
    [go] = analysis.finish()[0]
    assert go.index is not None and go.invisible == ()
    assert list(scratch.iterdir()) == []


def test_a_copied_go_mod_points_its_local_replacements_at_the_original_siblings(tmp_path):
    go_mod = tmp_path / "copy" / "go.mod"
    go_mod.parent.mkdir()
    go_mod.write_text(
        "module example.com/app\n\nreplace example.com/lib => ../lib\n\nreplace (\n"
        "\texample.com/util v1.0.0 => ./third_party/util\n\texample.com/net => example.com/fork v1.2.0\n"
        '\texample.com/spaced => "../lib dir" // quoted, as go.mod must\n)\n',
        encoding="utf-8",
    )
    run.anchor_replacements(go_mod, Path("/src/app"))
    text = go_mod.read_text(encoding="utf-8")
    assert "example.com/lib => /src/lib\n" in text
    assert "example.com/util v1.0.0 => /src/app/third_party/util\n" in text
    assert "example.com/net => example.com/fork v1.2.0\n" in text  # a module replacement is left alone
    assert 'example.com/spaced => "/src/lib dir" // quoted, as go.mod must\n' in text


def test_a_go_work_for_a_copy_quotes_a_directory_it_has_to(tmp_path):
    """Found with a module in `other dir`: the go.work written for the copy spelled
    `replace example.com/other => /…/other dir` bare, and the go command read `dir` as a version."""
    from kivgraph.languages.go.toolchain import read_workspace, workspace_text

    edited = json.dumps({"Go": "1.22", "Use": [{"DiskPath": "./app"}, {"DiskPath": "./lib dir"}],
                         "Replace": [{"Old": {"Path": "example.com/other"}, "New": {"Path": "./other dir"}},
                                     {"Old": {"Path": "example.com/net"},
                                      "New": {"Path": "example.com/fork", "Version": "v1.2.0"}}]})  # fmt: skip
    text = workspace_text(read_workspace(edited, tmp_path, lambda directory: directory))
    assert f'use "{tmp_path}/lib dir"\n' in text
    assert f'replace example.com/other => "{tmp_path}/other dir"\n' in text
    assert "replace example.com/net => example.com/fork v1.2.0\n" in text


def test_require_analyzers_refuses_to_store_an_index_whose_checker_crashed(make_repo, tmp_path, monkeypatch):
    crash = executable(tmp_path / "scip-go", 'echo "panic: boom" >&2; exit 2')
    monkeypatch.setenv("KIVGRAPH_SCIP_GO", crash)
    repo = make_repo(GO_MODULE)
    for args, env in ((["--require-analyzers"], {}), ([], {"KIVGRAPH_REQUIRE_ANALYZERS": "1"})):
        result = CliRunner().invoke(cli, ["index", str(repo.path), *args], env=env)
        assert result.exit_code == 1, result.output
        assert "a required type checker did not run, so nothing was stored: go at .: ANALYZER_CRASHED" in result.output
        assert repo.git("notes", "--ref=kivgraph", "list") == ""
    # Without the requirement the same index is stored, its Go files left to the syntax layer.
    stored = CliRunner().invoke(cli, ["index", str(repo.path)], env={"KIVGRAPH_REQUIRE_ANALYZERS": "0"})
    assert stored.exit_code == 0, stored.output
    # An explicit --no-analyzers wins over the environment; with --require-analyzers it is a usage mistake.
    required = {"KIVGRAPH_REQUIRE_ANALYZERS": "1"}
    plain = CliRunner().invoke(cli, ["index", str(repo.path), "--no-analyzers"], env=required)
    assert plain.exit_code == 0, plain.output
    both = CliRunner().invoke(cli, ["index", str(repo.path), "--no-analyzers", "--require-analyzers"])
    assert both.exit_code == 2 and "--require-analyzers needs the analyzers" in both.output


def test_go_commands_run_with_trimpath_beside_the_flags_of_the_users_go_env(make_repo, tmp_path, monkeypatch):
    require("scip-go")  # and with it the go command
    seen = tmp_path / "goflags.txt"
    recorder = executable(
        tmp_path / "scip-go", f'case "$1" in --version) echo 0.2.9;; *) printf %s "$GOFLAGS" > "{seen}"; exit 2;; esac'
    )
    go_env = tmp_path / "go.env"
    go_env.write_text("GOFLAGS=-tags=kivgraph_test\n", encoding="utf-8")
    monkeypatch.setenv("GOENV", str(go_env))
    monkeypatch.setenv("GOFLAGS", "-mod=vendor")  # the variable itself is never passed on
    monkeypatch.setenv("KIVGRAPH_SCIP_GO", recorder)
    generation = index_repository(str(make_repo(GO_MODULE).path), run_analyzers=True)
    assert seen.read_text(encoding="utf-8") == "-tags=kivgraph_test -trimpath"
    # go mod download and go list ran with them too, and found nothing wrong.
    assert [s.reason for s in generation.invisible_scopes] == ["ANALYZER_CRASHED"]


def test_a_use_the_type_checker_could_not_follow_keeps_the_syntax_layers_edge(make_repo):
    """Found in use: pyright could not follow `from libb import helper` (libb's directory is no
    project root, so nothing puts it on the path), and the syntax layer's edges (it finds the
    package by its `__init__.py`) were dropped with the rest of the file's fallback: "no callers",
    complete. They stay, as candidates; where the type checker resolved the use, its edge alone."""
    require("scip-python")
    repo = make_repo(
        {
            "a/pyproject.toml": '[project]\nname = "appa"\nversion = "1.0"\n',
            "a/appa/__init__.py": "from libb import helper\nfrom .local import twice\n\n\n"
            "def run() -> int:\n    return twice(helper(1))\n",
            "a/appa/local.py": "def twice(x: int) -> int:\n    return 2 * x\n",
            "b/libb/__init__.py": "def helper(x: int) -> int:\n    return x + 1\n",
        }
    )
    edges = named_edges(index_repository(str(repo.path), run_analyzers=True))
    assert ("run", EdgeKind.CALLS_DIRECT, "helper", Confidence.CANDIDATE) in edges
    assert ("run", EdgeKind.CALLS_DIRECT, "twice", EXACT) in edges
    assert not any(target == "twice" and confidence is Confidence.CANDIDATE for _, _, target, confidence in edges)
    assert CliRunner().invoke(cli, ["index", str(repo.path)]).exit_code == 0
    asked = CliRunner().invoke(cli, ["query", "find_references", "--repo", str(repo.path), "--json",
                                     '{"name": "helper", "view": "full"}'])  # fmt: skip
    assert asked.exit_code == 0, asked.output
    callers = {(r["qualified_name"], r["confidence"]) for r in json.loads(asked.stdout)["results"]["references"]}
    assert ("run", "CANDIDATE") in callers


PYTHON_ROOTS: dict[str, str | bytes] = {
    "liba/pyproject.toml": '[project]\nname = "liba"\nversion = "1.0"\n',
    "liba/src/liba/__init__.py": "from liba.core import greet\n",
    "liba/src/liba/core.py": "def greet(name: str) -> str:\n    return 'hi ' + name\n\n\n"
    "class Greeter:\n    def run(self) -> str:\n        return greet('x')\n",
    "appb/pyproject.toml": '[project]\nname = "appb"\nversion = "1.0"\ndependencies = ["liba"]\n',
    "appb/appb/__init__.py": "",
    "appb/appb/main.py": "from liba.core import Greeter, greet\nimport liba\n\n\n"
    "def main() -> str:\n    return greet('b') + Greeter().run() + liba.greet('c')\n",
    "tools/run.py": "from appb.main import main\n\nprint(main())\n",
}
"""Two Python projects (liba in the src layout, appb flat, using liba) and a script outside both."""


def test_python_project_roots_each_run_and_their_uses_of_each_other_are_exact(make_repo):
    """Found on opentelemetry-python (29 project roots, src layouts): one scip-python run over the
    tree resolved no import of one project from another — 0 exact edges between them, 11,327
    references to the tree's own `opentelemetry` left external. Each project root is now a unit of
    its own, its type checker finding imports in every project of the tree, and the uses between
    them are exact: no unresolved import, no reference to the tree's own modules left external."""
    require("scip-python")
    repo = make_repo(PYTHON_ROOTS)
    out = json.loads(CliRunner().invoke(cli, ["plan", str(repo.path), "--json"]).stdout)
    depends = {u["id"]: u["depends_on"] for u in out["units"]}
    assert depends == {"scip-python:liba": [], "scip-python:appb": ["scip-python:liba"],
                       "scip-python:.": ["scip-python:appb"]}  # fmt: skip
    generation = index_repository(str(repo.path), run_analyzers=True)
    edges = named_edges(generation)
    for caller, callee in (("main", "greet"), ("main", "Greeter"), ("main", "Greeter.run"), ("Greeter.run", "greet")):
        assert (caller, EdgeKind.CALLS_DIRECT, callee, EXACT) in edges, (caller, callee)
    assert ("tools.run", EdgeKind.CALLS_DIRECT, "main", EXACT) in edges
    assert not generation.unresolved
    assert not [x for x in generation.external_references if x.package == "repository"]


def test_a_workspace_package_typescript_could_not_resolve_keeps_the_syntax_layers_edge(make_repo):
    """The same in an npm workspace checked before `npm install`: scip-typescript cannot resolve
    `libb`, the syntax layer follows the workspace's package.json to it."""
    require("scip-typescript")
    tsconfig = '{"compilerOptions": {"strict": true, "module": "commonjs"}, "include": ["src"]}\n'
    repo = make_repo(
        {
            "package.json": '{"name": "root", "private": true, "workspaces": ["packages/*"]}\n',
            "packages/a/package.json": '{"name": "appa", "version": "1.0.0", "main": "src/index.ts"}\n',
            "packages/a/tsconfig.json": tsconfig,
            "packages/a/src/index.ts": 'import { helper } from "libb";\n\nexport function run(): number {\n'
            "  return helper(1);\n}\n",
            "packages/b/package.json": '{"name": "libb", "version": "2.0.0", "main": "src/index.ts"}\n',
            "packages/b/tsconfig.json": tsconfig,
            "packages/b/src/index.ts": "export function helper(x: number): number {\n  return x + 1;\n}\n",
        }
    )
    edges = named_edges(index_repository(str(repo.path), run_analyzers=True))
    assert ("run", EdgeKind.CALLS_DIRECT, "helper", Confidence.CANDIDATE) in edges


def test_a_sibling_package_typescript_resolved_is_an_exact_edge_into_the_tree_not_an_external_use(make_repo):
    """ts-rest: @ts-rest/express imports @ts-rest/core through tsconfig.base.json's paths, and
    scip-typescript names core's symbols by core's package.json (`npm @ts-rest/core 3.52.1
    src/...`): every use of core from the other packages was an external reference to a package
    named like one of the tree's, and a change to core reached none of them. A file with no
    package.json above it is named by its absolute path; it is the tree's file too."""
    require("scip-typescript")
    base = '{"compilerOptions": {"strict": true, "baseUrl": ".", "paths": {"@acme/core": ["libs/core/src/index.ts"],'
    repo = make_repo(
        {
            "tsconfig.base.json": base + ' "@acme/util": ["libs/util/src/index.ts"]}}}\n',
            "libs/core/package.json": '{"name": "@acme/core", "version": "3.1.0"}\n',
            "libs/core/tsconfig.json": '{"extends": "../../tsconfig.base.json"}\n',
            "libs/core/src/index.ts": "export function route(path: string): string {\n  return path;\n}\n",
            "libs/util/tsconfig.json": '{"extends": "../../tsconfig.base.json"}\n',
            "libs/util/src/index.ts": 'export const slash = "/";\n',
            "libs/express/package.json": '{"name": "@acme/express", "version": "3.1.0"}\n',
            "libs/express/tsconfig.json": '{"extends": "../../tsconfig.base.json"}\n',
            "libs/express/src/index.ts": "import { route } from '@acme/core';\nimport { slash } from '@acme/util';\n\n"
            "export function serve(): string {\n  return route(slash);\n}\n",
        }
    )
    generation = index_repository(str(repo.path), run_analyzers=True)
    edges = named_edges(generation)
    assert ("serve", EdgeKind.CALLS_DIRECT, "route", EXACT) in edges
    assert ("serve", EdgeKind.REFERENCES, "slash", EXACT) in edges
    assert not [r for r in generation.external_references if r.symbol.endswith(("route", "slash"))]


def test_a_use_of_a_member_we_do_not_model_references_the_declaration_that_holds_it(make_repo):
    """ts-rest: `contract.router(...)` names `ContractInstance.typeLiteral5.router`, a property of a
    type literal: ~3,000 such uses were external references to the repository's own packages, and
    changing ContractInstance reached none of them. scip-typescript's `typeLiteralN` declares
    nothing (`Contract.typeLiteral0.router` is the property `Contract.router`), and a member the
    syntax layer does not declare (`leaf`, in a property's own type literal) is a reference to the
    declaration that holds it — never an edge of a function to itself for its own parameters. An
    inferred object's property, which nothing declares, is ours all the same: not external."""
    require("scip-typescript")
    contract = "{ router: (path: string) => string; deep: { leaf: () => number } }"
    repo = make_repo(
        {
            "tsconfig.base.json": '{"compilerOptions": {"strict": true, "baseUrl": ".", '
            '"paths": {"@acme/core": ["libs/core/src/index.ts"]}}}\n',
            "libs/core/package.json": '{"name": "@acme/core", "version": "1.0.0"}\n',
            "libs/core/tsconfig.json": '{"extends": "../../tsconfig.base.json"}\n',
            "libs/core/src/index.ts": f"export type Contract = {contract};\n\n"
            "export function make(prefix: string): Contract {\n"
            "  return { router: (path) => prefix + path, deep: { leaf: () => 1 } };\n}\n\n"
            "export function local(c: Contract): string {\n  return c.router('/');\n}\n",
            "libs/express/package.json": '{"name": "@acme/express", "version": "1.0.0"}\n',
            "libs/express/tsconfig.json": '{"extends": "../../tsconfig.base.json"}\n',
            "libs/express/src/index.ts": "import { make } from '@acme/core';\n\nexport function serve(): string {\n"
            "  return make('/api').router('/users') + make('').deep.leaf();\n}\n",
            # an inferred object's properties (scip-typescript's `list0`, `query0`: uses with no
            # definition in the index): ours, and nothing declares them
            "libs/express/src/routes.ts": "export function router<T>(routes: T): T {\n  return routes;\n}\n"
            "export const routes = router({ list: { query: { take: 1 } } });\n"
            "export const take = routes.list.query.take;\n",
        }
    )
    generation = index_repository(str(repo.path), run_analyzers=True)
    edges = named_edges(generation)
    assert ("serve", EdgeKind.CALLS_DIRECT, "Contract.router", EXACT) in edges  # another package's
    assert ("local", EdgeKind.CALLS_DIRECT, "Contract.router", EXACT) in edges  # its own package's
    assert ("serve", EdgeKind.REFERENCES, "Contract.deep", EXACT) in edges  # through `leaf`
    assert not [r for r in generation.external_references if r.package.startswith("@acme/")]
    assert not [(s, t) for s, _, t, _ in edges if s == t]


def test_the_requirements_fetched_one_by_one_are_what_the_go_command_would_fetch():
    from kivgraph.languages.go.toolchain import read_requirements

    edited = json.dumps({
        "Module": {"Path": "example.com/app"},
        "Require": [{"Path": "a.org/kept", "Version": "v1.0.0"}, {"Path": "b.org/local", "Version": "v0.0.0"},
                    {"Path": "c.org/forked", "Version": "v1.2.0"}, {"Path": "d.org/pinned", "Version": "v2.0.0"},
                    {"Path": "e.org/other", "Version": "v3.0.0", "Indirect": True}],
        "Replace": [{"Old": {"Path": "b.org/local"}, "New": {"Path": "../local"}},
                    {"Old": {"Path": "c.org/forked"}, "New": {"Path": "f.org/fork", "Version": "v1.2.1"}},
                    {"Old": {"Path": "d.org/pinned", "Version": "v1.0.0"}, "New": {"Path": "../old"}}],
    })  # fmt: skip
    # A directory has nothing to fetch; a replacement of another version of the path does not apply.
    assert read_requirements(edited) == ["a.org/kept@v1.0.0", "f.org/fork@v1.2.1", "d.org/pinned@v2.0.0",
                                         "e.org/other@v3.0.0"]  # fmt: skip
    assert read_requirements("") == []
