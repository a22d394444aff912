"""Indexing real repositories built in tmp_path: the tree at a commit, bad input, stable keys."""

import gc

import pytest

from kivgraph import indexing
from kivgraph.errors import EmptyRepositoryError, InvalidArgumentError, NotARepositoryError, UnknownRevisionError
from kivgraph.indexing import index_repository
from kivgraph.model import FileStatus, Language, SymbolKind
from kivgraph.store import codec

APP = {
    "app/__init__.py": "",
    "app/core.py": (
        "def helper(x):\n    return x + 1\n\n\nclass Engine:\n    def run(self):\n        return helper(2)\n"
    ),
    "app/cli.py": "from app.core import Engine\n\n\ndef main():\n    Engine().run()\n",
}


def by_name(generation, qualified_name):
    [found] = [s for s in generation.symbols if s.qualified_name == qualified_name]
    return found


def test_indexing_reads_the_commit_not_the_working_tree(make_repo):
    repo = make_repo(APP)
    (repo.path / "app" / "core.py").write_text("def replaced():\n    pass\n", encoding="utf-8")
    committed = index_repository(str(repo.path))
    assert {s.qualified_name for s in committed.symbols} >= {"helper", "Engine", "Engine.run", "main"}
    assert "replaced" not in {s.qualified_name for s in committed.symbols}
    assert committed.header.commit == repo.git("rev-parse", "HEAD")
    assert committed.header.tree == repo.git("rev-parse", "HEAD^{tree}")


def test_worktree_indexing_sees_uncommitted_and_untracked_files(make_repo):
    repo = make_repo(APP)
    repo.write({"app/core.py": "def replaced():\n    pass\n", "app/new.py": "def fresh():\n    pass\n"})
    generation = index_repository(str(repo.path), worktree=True)
    names = {s.qualified_name for s in generation.symbols}
    assert {"replaced", "fresh"} <= names
    assert "helper" not in names
    assert generation.header.worktree


def test_an_older_commit_is_indexed_as_it_was(make_repo):
    repo = make_repo(APP)
    first = repo.git("rev-parse", "HEAD")
    repo.commit({"app/core.py": "def renamed():\n    pass\n"})
    generation = index_repository(str(repo.path), revision=first)
    assert "helper" in {s.qualified_name for s in generation.symbols}
    assert generation.header.commit == first


def test_stable_keys_survive_unrelated_code_moving(make_repo):
    repo = make_repo(APP)
    before = index_repository(str(repo.path))
    shifted = "import os\n\n\ndef added_above():\n    return os.sep\n\n\n" + APP["app/core.py"]
    repo.commit({"app/core.py": shifted, "app/cli.py": "\n\n" + APP["app/cli.py"]})
    after = index_repository(str(repo.path))
    for name in ("helper", "Engine", "Engine.run", "main"):
        assert by_name(before, name).key == by_name(after, name).key
        assert by_name(before, name).start_line != by_name(after, name).start_line


def test_methods_carry_their_class_as_container(make_repo):
    generation = index_repository(str(make_repo(APP).path))
    engine, run = by_name(generation, "Engine"), by_name(generation, "Engine.run")
    assert run.container == engine.key
    assert run.kind is SymbolKind.METHOD


def test_every_file_gets_a_module_symbol_with_a_dotted_name(make_repo):
    generation = index_repository(str(make_repo(APP).path))
    modules = {s.qualified_name for s in generation.symbols if s.kind is SymbolKind.MODULE}
    assert modules == {"app.__init__", "app.core", "app.cli"}


def test_binary_huge_invalid_utf8_and_unparsable_files_are_recorded_not_fatal(make_repo, monkeypatch):
    monkeypatch.setattr(indexing, "MAX_FILE_BYTES", 4096)
    repo = make_repo(
        {
            "ok.py": "def fine():\n    pass\n",
            "blob.py": b"\x00\x01\x02binary\x00",
            "huge.py": "x = 1\n" * 2000,
            "latin.py": "def caf\xe9():\n    pass\n\ndef ok_too():\n    pass\n".encode("latin-1"),
            "broken.py": "def good():\n    pass\n\ndef bad(:\n    pass\n\nclass AfterError:\n    pass\n",
        }
    )
    generation = index_repository(str(repo.path))
    status = {f.path: f.status for f in generation.files}
    assert status == {
        "ok.py": FileStatus.INDEXED,
        "blob.py": FileStatus.SKIPPED_BINARY,
        "huge.py": FileStatus.SKIPPED_TOO_LARGE,
        "latin.py": FileStatus.INVALID_UTF8,
        "broken.py": FileStatus.PARSE_ERRORS,
    }
    names = {s.qualified_name for s in generation.symbols}
    assert {"fine", "ok_too", "good"} <= names
    assert any(u.reason == "PARSE_ERROR" and u.file == "broken.py" for u in generation.unresolved)


def test_symlinks_are_recorded_and_never_followed(make_repo, tmp_path):
    outside = tmp_path / "secret.py"
    outside.write_text("def secret():\n    pass\n", encoding="utf-8")
    repo = make_repo({"ok.py": "def fine():\n    pass\n"})
    (repo.path / "link.py").symlink_to(outside)
    repo.commit(message="add a link")
    for worktree in (False, True):
        generation = index_repository(str(repo.path), worktree=worktree)
        assert {f.path: f.status for f in generation.files}["link.py"] is FileStatus.SKIPPED_SYMLINK
        assert "secret" not in {s.qualified_name for s in generation.symbols}


def test_a_file_name_that_is_not_utf8_is_an_invisible_scope_not_a_crash(make_repo):
    repo = make_repo({"ok.py": "def fine():\n    pass\n"})
    (repo.path / b"bad\xff\xfe.py".decode("utf-8", "surrogateescape")).write_text("def hidden():\n    pass\n")
    repo.commit(message="a name git stores as bytes")
    for worktree in (False, True):
        generation = index_repository(str(repo.path), worktree=worktree)
        assert [f.path for f in generation.files] == ["ok.py"]
        [scope] = generation.invisible_scopes
        assert (scope.reason, scope.language, scope.path) == ("PATH_NOT_UTF8", Language.PYTHON, "bad\\xff\\xfe.py")
        assert codec.decode(codec.encode(generation)).invisible_scopes == (scope,)  # storable as it is


def test_files_of_unknown_languages_are_ignored_and_languages_can_be_chosen(make_repo):
    repo = make_repo({"a.py": "def f():\n    pass\n", "README.md": "# hi\n", "b.go": "package b\n\nfunc G() {}\n"})
    everything = index_repository(str(repo.path))
    assert {f.path for f in everything.files} == {"a.py", "b.go"}
    only_python = index_repository(str(repo.path), languages=frozenset({Language.PYTHON}))
    assert {f.path for f in only_python.files} == {"a.py"}
    assert only_python.header.languages == (Language.PYTHON,)


def test_not_a_repository_is_a_clear_error(tmp_path):
    with pytest.raises(NotARepositoryError, match="is not inside a git repository"):
        index_repository(str(tmp_path))


def test_an_unknown_revision_is_a_clear_error(make_repo):
    repo = make_repo(APP)
    with pytest.raises(UnknownRevisionError, match="'nope' does not name a commit"):
        index_repository(str(repo.path), revision="nope")


def test_an_empty_repository_is_a_clear_error(make_repo):
    repo = make_repo()
    with pytest.raises(EmptyRepositoryError, match="has no commits yet"):
        index_repository(str(repo.path))


def test_repository_name_comes_from_origin_when_there_is_one(make_repo):
    repo = make_repo(APP)
    assert index_repository(str(repo.path)).header.repository == repo.path.name
    repo.git("remote", "add", "origin", "git@example.invalid:team/service-api.git")
    generation = index_repository(str(repo.path))
    assert generation.header.repository == "service-api"
    assert generation.header.remote_url == "git@example.invalid:team/service-api.git"


def test_parsing_in_worker_processes_yields_the_same_generation(make_repo, monkeypatch):
    files = {
        f"pkg/mod{i}.py": f"from pkg.mod{j} import f{j}\n\n\ndef f{i}():\n    return f{j}()\n"
        for i, j in ((i, (i + 1) % 12) for i in range(12))
    }
    files["pkg/__init__.py"] = ""
    files["bad.py"] = b"\x00binary"
    repo = make_repo(files)
    monkeypatch.setattr(indexing, "PARALLEL_MIN_BYTES", 0)
    pools: list[int] = []

    class CountingPool(indexing.ProcessPoolExecutor):
        def __init__(self, max_workers: int, **kwargs: object) -> None:
            pools.append(max_workers)
            super().__init__(max_workers, **kwargs)  # type: ignore[arg-type]  # passes mp_context through

    monkeypatch.setattr(indexing, "ProcessPoolExecutor", CountingPool)
    sequential = index_repository(str(repo.path), jobs=1)
    assert pools == []
    parallel = index_repository(str(repo.path), jobs=2)
    assert pools == [2]
    assert parallel.files == sequential.files
    assert parallel.symbols == sequential.symbols
    assert parallel.edges == sequential.edges
    assert parallel.unresolved == sequential.unresolved
    assert len(parallel.edges) >= 12


def test_malformed_manifests_never_stop_an_index(make_repo):
    repo = make_repo(
        {
            "py/pyproject.toml": "tool = 1\n[project\nversion = 3\n",
            "py/pkg/__init__.py": "def f():\n    pass\n",
            "js/package.json": "{ not json",
            "js/tsconfig.json": '{ // comment\n  "compilerOptions": { "paths": 7 } ',
            "js/src/a.ts": "import { b } from 'b';\nexport function a() { return b(); }\n",
            "rs/Cargo.toml": "[package\nname = ",
            "rs/src/lib.rs": "pub fn r() {}\n",
            "go/go.mod": "module\n",
            "go/x.go": "package x\n\nfunc G() {}\n",
            "dart/pubspec.yaml": ": : :\n",
            "dart/lib/d.dart": "void d() {}\n",
        }
    )
    generation = index_repository(str(repo.path))
    names = {s.qualified_name for s in generation.symbols}
    assert {"f", "a", "r", "G", "d"} <= names


def test_indexing_runs_with_the_cycle_collector_paused_and_restores_it(make_repo):
    """The collector rescanned the growing heap a dozen times, a fifth of a 20-module run; it is
    paused while indexing builds (the progress callback sees it so) and on again after, even when
    indexing fails."""
    repo = make_repo(APP)
    first = repo.git("rev-parse", "HEAD")
    seen: list[bool] = []
    index_repository(str(repo.path), progress=lambda *_: seen.append(gc.isenabled()))
    assert seen and not any(seen)
    assert gc.isenabled()
    repo.commit({"kivgraph.toml": '[roles]\ntest = "tests/"\n'})  # read once the files are parsed
    with pytest.raises(InvalidArgumentError, match="kivgraph.toml"):
        index_repository(str(repo.path))
    assert gc.isenabled()
    gc.disable()  # a caller that paused it already keeps it paused
    try:
        index_repository(str(repo.path), revision=first)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_snapshot_inflates_a_blob_once_and_keeps_no_more_than_its_bound(make_repo, monkeypatch):
    from kivgraph import snapshot

    repo = make_repo({"a.go": "a" * 100, "b.go": "b" * 100, "c.go": "c" * 100})
    inflated: list[str] = []
    reading = snapshot.read_blob
    monkeypatch.setattr(snapshot, "read_blob", lambda r, oid: inflated.append(oid) or reading(r, oid))
    monkeypatch.setattr(snapshot, "KEPT_BLOB_BYTES", 250)
    files = {f.path: f for f in snapshot.snapshot_at(str(repo.path)).files}
    a, b, c = files["a.go"], files["b.go"], files["c.go"]
    assert [a.read(), b.read(), a.read(), b.read()] == [b"a" * 100, b"b" * 100, b"a" * 100, b"b" * 100]
    assert inflated == [a.digest, b.digest]  # read again, not inflated again
    assert c.read() == b"c" * 100  # 300 bytes would pass the bound: the oldest, a's, goes
    assert (b.read(), a.read()) == (b"b" * 100, b"a" * 100)
    assert inflated == [a.digest, b.digest, c.digest, a.digest]
