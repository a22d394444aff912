"""The `kivgraph` command through click's runner, on real repositories."""

import json
import os

import pytest
from click.testing import CliRunner

from kivgraph.cli import cli
from kivgraph.store.notes import NOTES_REF

FILES = {"svc/__init__.py": "", "svc/api.py": "def handler():\n    return helper()\n\n\ndef helper():\n    return 1\n"}


def run(*args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(cli, list(args), env=env)


def test_index_stores_a_note_on_head_and_show_reads_it(make_repo):
    repo = make_repo(FILES)
    result = run("index", str(repo.path))
    assert result.exit_code == 0, result.output
    assert "Indexed" in result.stdout and "refs/notes/kivgraph" in result.stdout
    assert repo.git("notes", "--ref=kivgraph", "list").endswith(repo.git("rev-parse", "HEAD"))
    shown = run("show", "--repo", str(repo.path), "--json")
    summary = json.loads(shown.stdout)
    assert summary["commit"] == repo.git("rev-parse", "HEAD")
    assert summary["counts"]["symbols"] == 4  # two modules, two functions
    assert summary["edge_kinds"] == {"CALLS_DIRECT": 1}
    assert summary["languages"] == {"python": {"files": 2, "symbols": 4}}


def test_show_prints_readable_counts_without_colour_when_not_a_terminal(make_repo):
    repo = make_repo(FILES)
    run("index", str(repo.path))
    result = run("show", "HEAD", "--repo", str(repo.path))
    assert result.exit_code == 0
    assert "\x1b[" not in result.stdout
    for heading in ("languages", "symbol kinds", "edge kinds", "confidence"):
        assert heading in result.stdout


def test_index_out_and_show_generation_use_a_file_instead_of_notes(make_repo, tmp_path):
    repo = make_repo(FILES)
    out = tmp_path / "g.kgen"
    assert run("index", str(repo.path), "--out", str(out)).exit_code == 0
    assert repo.git("for-each-ref", NOTES_REF) == ""
    summary = json.loads(run("show", "--generation", str(out), "--json").stdout)
    assert summary["location"] == str(out)


def test_index_json_prints_the_summary_with_elapsed_time(make_repo):
    repo = make_repo(FILES)
    summary = json.loads(run("index", str(repo.path), "--json").stdout)
    assert summary["counts"]["files"] == 2
    assert summary["elapsed_seconds"] >= 0


def test_worktree_without_out_is_refused_with_the_reason(make_repo):
    result = run("index", str(make_repo(FILES).path), "--worktree")
    assert result.exit_code == 2
    assert "matches no commit" in result.stderr and "--out FILE" in result.stderr


def test_errors_are_one_clean_line_with_exit_code_one(tmp_path, make_repo):
    not_repo = run("index", str(tmp_path))
    assert not_repo.exit_code == 1
    assert not_repo.stderr.startswith("Error: ") and "Traceback" not in not_repo.stderr
    repo = make_repo(FILES)
    bad_rev = run("index", str(repo.path), "--commit", "no-such-branch")
    assert bad_rev.exit_code == 1 and "no-such-branch" in bad_rev.stderr


USAGE_MISTAKES = {
    "unknown tool": (["query", "nope", "--repo", "{repo}"], 'Error: unknown tool "nope"; choose from '),
    "--arg without =": (["query", "find_symbol", "--arg", "name", "--repo", "{repo}"],
                        "Error: --arg 'name' is not NAME=VALUE."),
    "--json not JSON": (["query", "find_symbol", "--json", "{", "--repo", "{repo}"],
                        "Error: --json is not valid JSON: "),
    "--json not an object": (["query", "find_symbol", "--json", "[1]", "--repo", "{repo}"],
                             "Error: --json must be a JSON object of named arguments."),
    "index --languages": (["index", "{repo}", "--languages", "cobol"],
                          "Error: unknown language 'cobol'; choose from go, typescript, javascript, rust, python, "
                          "dart."),
    "doctor --languages": (["doctor", "{repo}", "--languages", "py,cobol"], "Error: unknown language 'cobol'; "),
    "index --worktree --commit": (["index", "{repo}", "--worktree", "--commit", "HEAD~1"],
                                  "Error: --worktree indexes the working tree; it cannot be combined with --commit."),
    "show REV --generation": (["show", "HEAD", "--generation", "{repo}/g.kgen"],
                              "Error: pass either a REVISION or --generation FILE, not both."),
    "diff-impact --worktree --head": (["diff-impact", "{repo}", "--worktree", "--head", "main"],
                                      "Error: --worktree compares the working tree; it cannot be combined with "
                                      "--head."),
    "diff-impact on a first commit": (["diff-impact", "{repo}"],
                                      "Error: the head commit has no parent and no default branch to compare with; "
                                      "pass --base."),
}  # fmt: skip


@pytest.mark.parametrize("case", list(USAGE_MISTAKES))
def test_a_usage_mistake_exits_2_with_one_error_line(make_repo, case: str):
    repo = make_repo(FILES)
    args, expected = USAGE_MISTAKES[case]
    result = run(*(arg.replace("{repo}", str(repo.path)) for arg in args))
    assert (result.exit_code, result.stdout) == (2, ""), result.output
    assert result.stderr.startswith(expected) and result.stderr.count("\n") == 1, result.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["diff-impact", "{repo}", "--depth", "9"],
        ["diff-impact", "{repo}", "--format", "xml"],
        ["index", "{repo}", "--jobs", "0"],
        ["notes", "push", "--repo", "{repo}", "--attempts", "0"],
        ["query", "find_symbol", "--workspace", "{repo}/missing.toml"],
    ],
)
def test_an_option_value_click_rejects_exits_2_naming_the_option(make_repo, args: list[str]):
    repo = make_repo(FILES)
    result = run(*(arg.replace("{repo}", str(repo.path)) for arg in args))
    assert result.exit_code == 2
    assert f"Invalid value for '{args[-2]}'" in result.stderr.splitlines()[-1]


def test_a_tool_argument_the_tool_rejects_exits_2_with_its_code(make_repo):
    repo = make_repo(FILES)
    assert run("index", str(repo.path), "--no-analyzers").exit_code == 0
    unknown = run("query", "find_symbol", "--arg", "nme=helper", "--repo", str(repo.path))
    assert unknown.exit_code == 2
    assert unknown.stderr.startswith('INVALID_ARGUMENT: unknown argument "nme"; find_symbol takes: ')
    missing = run("query", "get_symbol", "--arg", "qualified_name=nothing.here", "--repo", str(repo.path))
    assert missing.exit_code == 1 and missing.stderr.startswith("SYMBOL_NOT_FOUND: ")  # a refusal, not a mistake
    found = run("query", "find_symbol", "--arg", "name=helper", "--repo", str(repo.path))
    assert found.exit_code == 0 and '"helper"' in found.stdout


def test_a_path_that_is_not_a_repository_is_named_once(tmp_path):
    plain = tmp_path / "plain"
    plain.mkdir()
    result = run("query", "find_symbol", "--arg", "name=x", "--repo", str(plain))
    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: {plain} is not inside a git repository; run kivgraph in a git checkout, or pass the path of one.\n"
    )
    gone = run("query", "find_symbol", "--arg", "name=x", "--repo", str(tmp_path / "gone"))
    assert gone.stderr == f"Error: {tmp_path / 'gone'} does not exist; pass the path of a git checkout.\n"


def test_a_query_whose_workspace_has_nothing_readable_says_the_first_repositorys_error_once(tmp_path, make_repo):
    plain = tmp_path / "plain"
    plain.mkdir()
    make_repo(FILES, name="unindexed")
    workspace = tmp_path / "kivgraph.toml"
    workspace.write_text('[[repository]]\npath = "plain"\n\n[[repository]]\npath = "unindexed"\n', encoding="utf-8")
    result = run("query", "graph_status", "--workspace", str(workspace))
    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: {plain} is not inside a git repository; run kivgraph in a git checkout, or pass the path of one.\n"
    )


@pytest.mark.parametrize(
    "args",
    [
        ["query", "find_symbol", "--arg", "name=x", "--repo", "."],
        ["query", "find_symbol", "--arg", "name=x"],
        ["show"],
        ["diff-impact"],
        ["index"],
    ],
)
def test_outside_a_repository_the_current_directory_is_named_once(tmp_path, monkeypatch, args: list[str]):
    monkeypatch.chdir(tmp_path)
    result = run(*args)
    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: the current directory ({os.getcwd()}) is not inside a git repository; run kivgraph in a git "
        "checkout, or pass the path of one.\n"
    )


def test_a_repository_without_notes_says_so_once_for_every_command(make_repo):
    repo = make_repo(FILES)
    head = repo.git("rev-parse", "HEAD")
    repo.commit({"svc/more.py": "def more():\n    return 2\n"})
    second = repo.git("rev-parse", "HEAD")
    queried = run("query", "find_symbol", "--arg", "name=x", "--repo", str(repo.path))
    assert queried.exit_code == 1
    assert queried.stderr == (
        f"Error: no kivgraph generation is stored for {os.path.realpath(repo.path)} (HEAD {second[:12]}); "
        "neither HEAD nor any ancestor is indexed; run `kivgraph index` there.\n"
    )
    shown = run("show", "--repo", str(repo.path))
    assert shown.stderr == (
        f"Error: no kivgraph generation is stored for commit {second[:12]} in refs/notes/kivgraph; run `kivgraph "
        "index` to create one.\n"
    )
    impact = run("diff-impact", str(repo.path), "--base", head)
    assert impact.exit_code == 1
    assert impact.stderr.count("no kivgraph generation is stored") == 1 and impact.stderr.count("\n") == 1


def test_show_without_a_note_names_the_nearest_indexed_ancestor(make_repo):
    repo = make_repo(FILES)
    indexed = repo.git("rev-parse", "HEAD")
    run("index", str(repo.path))
    repo.commit({"svc/extra.py": "X = 1\n"})
    result = run("show", "--repo", str(repo.path))
    assert result.exit_code == 1
    assert f"nearest indexed ancestor is {indexed[:12]}, 1 commits back" in result.stderr


def test_show_reports_a_corrupt_note_with_its_commit(make_repo):
    repo = make_repo(FILES)
    head = repo.git("rev-parse", "HEAD")
    blob = repo.git("hash-object", "-w", "svc/api.py")
    repo.git("notes", "--ref=kivgraph", "add", "-f", "-C", blob, head)
    result = run("show", "--repo", str(repo.path))
    assert result.exit_code == 1
    assert f"commit {head[:12]} in refs/notes/kivgraph is corrupt" in result.stderr


def test_reindexing_a_commit_replaces_its_note_and_keeps_others(make_repo):
    repo = make_repo(FILES)
    first = repo.git("rev-parse", "HEAD")
    run("index", str(repo.path))
    second = repo.commit({"svc/more.py": "def more():\n    pass\n"})
    run("index", str(repo.path))
    run("index", str(repo.path), "--commit", first)
    listed = repo.git("notes", "--ref=kivgraph", "list")
    assert {line.split()[1] for line in listed.splitlines()} == {first, second}


def test_a_garbage_notes_ref_is_refused_and_kept(make_repo):
    repo = make_repo(FILES)
    blob = repo.git("hash-object", "-w", "svc/api.py")
    repo.git("update-ref", NOTES_REF, blob)
    result = run("index", str(repo.path))
    assert result.exit_code == 1 and "not a notes commit" in result.stderr
    assert repo.git("rev-parse", NOTES_REF) == blob


def test_colour_appears_only_on_a_terminal_and_never_with_no_color(monkeypatch):
    from kivgraph.cli import use_color

    class Terminal:
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    assert use_color(Terminal())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not use_color(Terminal())


def test_a_bug_is_one_line_with_exit_code_70_not_a_traceback(make_repo, monkeypatch):
    import kivgraph.indexing

    def broken(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(kivgraph.indexing, "index_snapshot", broken)
    result = run("index", str(make_repo(FILES).path))
    assert result.exit_code == 70
    assert "internal error (RuntimeError: boom)" in result.stderr and "Traceback" not in result.stderr


def test_notes_push_and_fetch_share_generations_through_a_remote(make_repo, tmp_path):
    producer = make_repo({"a.py": "def f():\n    return 1\n"}, name="producer")
    remote = tmp_path / "remote.git"
    producer.git("init", "-q", "--bare", str(remote))
    producer.git("remote", "add", "origin", str(remote))
    producer.git("push", "-q", "origin", "main")
    runner = CliRunner()
    assert runner.invoke(cli, ["index", str(producer.path), "--no-analyzers"]).exit_code == 0
    pushed = runner.invoke(cli, ["notes", "push", "--repo", str(producer.path)])
    assert pushed.exit_code == 0 and "pushed to origin" in pushed.output
    consumer = make_repo(name="consumer")
    consumer.git("remote", "add", "origin", str(remote))
    consumer.git("fetch", "-q", "origin", "main")
    fetched = runner.invoke(cli, ["notes", "fetch", "origin", "--repo", str(consumer.path)])
    assert fetched.exit_code == 0 and "1 notes on the remote" in fetched.output
    head = producer.git("rev-parse", "HEAD")
    shown = [r.git("notes", "--ref=kivgraph", "show", head) for r in (consumer, producer)]
    assert shown[0] == shown[1]
    missing = runner.invoke(cli, ["notes", "fetch", "nowhere", "--repo", str(consumer.path)])
    assert missing.exit_code == 1 and "nowhere" in missing.output and "Traceback" not in missing.output
