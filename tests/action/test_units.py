"""The Action's parts on their own: the runner's file syntaxes, the comment body, pagination
links, the token's confinement to the API and the error lines."""

import io
import subprocess
import sys
from pathlib import Path

import pytest

from kivgraph.action.rest import ApiError, GitHub, next_link
from kivgraph.action.runner import Event, Runner, escape_data
from kivgraph.action.steps import MARKER, explain, find_comment, main, pr_number, read_report
from kivgraph.errors import InvalidArgumentError, KivgraphError
from tests.action.actions import parse_outputs


def runner(tmp_path: Path, **environ: str) -> tuple[Runner, io.StringIO]:
    out = io.StringIO()
    return Runner({"GITHUB_OUTPUT": str(tmp_path / "out"), **environ}, out, io.StringIO()), out


def test_outputs_use_the_heredoc_syntax_for_multi_line_values(tmp_path: Path):
    run, _ = runner(tmp_path)
    run.set_output("verdict", "IMPACT")
    run.set_output("notes", "one\ntwo\n")
    text = (tmp_path / "out").read_text(encoding="utf-8")
    assert text.startswith("verdict=IMPACT\nnotes<<ghadelimiter_")
    assert parse_outputs(text) == {"verdict": "IMPACT", "notes": "one\ntwo\n"}


def test_workflow_command_messages_are_escaped_as_the_toolkit_does(tmp_path: Path):
    assert escape_data("50%\nnext\r") == "50%25%0Anext%0D"
    run, out = runner(tmp_path, GITHUB_ACTIONS="true")
    run.error("two\nlines")
    assert out.getvalue() == "::error::two%0Alines\n"


def test_inputs_are_checked_and_empty_means_the_default(tmp_path: Path):
    run, _ = runner(tmp_path, INPUT_DEPTH="", INPUT_COMMENT="False", INPUT_FAIL_ON="x", INPUT_CONSUMERS="a/b, c/d\ne/f")
    assert run.input_int("depth", 3, 1, 5) == 3 and run.input_bool("comment", True) is False
    assert run.input_list("consumers") == ("a/b", "c/d", "e/f")
    with pytest.raises(InvalidArgumentError, match="the input fail-on must be a whole number at least 0, not 'x'"):
        run.input_int("fail-on", 0, 0)
    for odd in ["٣", "1_0", "+1"]:  # int() takes every one of them
        run, _ = runner(tmp_path, INPUT_DEPTH=odd)
        with pytest.raises(InvalidArgumentError, match="the input depth must be a whole number"):
            run.input_int("depth", 3, 1, 5)


def test_a_fork_is_a_head_repository_other_than_the_base_or_one_since_deleted():
    def event(head: object) -> Event:
        return Event("pull_request", {"pull_request": {"number": 3, "head": {"repo": head},
                                                       "base": {"repo": {"full_name": "o/r"}}}})  # fmt: skip

    assert not event({"full_name": "o/r"}).from_fork
    assert event({"full_name": "fork/r"}).from_fork and event(None).from_fork
    assert Event("push", {"pull_request": {"number": 3}}).pr_number is None


def test_without_a_report_the_comment_step_says_to_run_the_analyze_step_first(tmp_path: Path):
    with pytest.raises(KivgraphError, match="there is no report at .*; run the analyze step first"):
        read_report(tmp_path / "report.json")


def test_only_a_comment_that_starts_with_the_marker_and_is_by_the_tokens_account_is_ours():
    comments = [
        {"id": 1, "body": f"quoting {MARKER}"},
        {"id": 2, "body": f"\n{MARKER}\nreport"},
        {"id": 3, "body": MARKER},
    ]
    assert find_comment(comments, lambda _: True) == (comments[1], [])
    assert find_comment(comments, lambda c: c["id"] == 3) == (comments[2], [comments[1]])
    assert find_comment([{"id": "1", "body": MARKER}], lambda _: True) == (None, [])


def test_a_pr_number_file_from_an_artifact_must_hold_a_number(tmp_path: Path):
    run, _ = runner(tmp_path)
    (tmp_path / "pr-number").write_text("12\n", encoding="utf-8")
    assert pr_number(run, Event("workflow_run"), tmp_path) == 12
    for text in ["12; rm -rf /", "²", "１２"]:  # str.isdigit() takes the last two
        (tmp_path / "pr-number").write_text(text, encoding="utf-8")
        with pytest.raises(InvalidArgumentError, match="must hold a pull request number"):
            pr_number(run, Event("workflow_run"), tmp_path)


def test_the_next_page_comes_from_the_link_header():
    header = ('<https://api.github.com/repositories/1/issues/7/comments?per_page=100&page=2>; rel="next", '
              '<https://api.github.com/repositories/1/issues/7/comments?per_page=100&page=4>; rel="last"')  # fmt: skip
    assert next_link(header) == "https://api.github.com/repositories/1/issues/7/comments?per_page=100&page=2"
    assert next_link('<https://api.github.com/x?page=1>; rel="prev"') is None and next_link(None) is None


def test_the_token_is_never_sent_outside_the_api_root():
    api = GitHub("http://127.0.0.1:1", "secret")
    with pytest.raises(ApiError, match="refusing to send the token outside http://127.0.0.1:1") as caught:
        api.request("GET", "https://elsewhere.example/repos/o/r/issues/1/comments?page=2")
    assert "secret" not in str(caught.value)


def test_forbidden_reads_and_rate_limits_are_told_apart():
    listing = ApiError("GET", "http://api/repos/o/r/issues/3/comments?per_page=100", 404, "Not Found")
    assert explain(listing, "o/r#3", False).startswith("the token cannot read the comments of o/r#3 (404: Not Found)")
    limited = ApiError("POST", "http://api/repos/o/r/issues/3/comments", 403, "API rate limit exceeded", True)
    assert "rate limit stopped the comment on o/r#3" in explain(limited, "o/r#3", True)
    broken = ApiError("PATCH", "http://api/repos/o/r/issues/comments/9", 502, "Bad Gateway")
    assert (
        explain(broken, "o/r#3", False)
        == "the GitHub API answered 502 to PATCH /repos/o/r/issues/comments/9: Bad Gateway."
    )


def test_outside_a_pull_request_there_is_nothing_to_comment_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]):  # fmt: skip
    event = tmp_path / "event.json"
    event.write_text('{"ref": "refs/heads/main", "repository": {"full_name": "o/r"}}', encoding="utf-8")
    for name, value in {"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "push", "GITHUB_EVENT_PATH": str(event),
                        "GITHUB_REPOSITORY": "o/r", "RUNNER_TEMP": str(tmp_path)}.items():  # fmt: skip
        monkeypatch.setenv(name, value)
    assert main(["comment"]) == 0
    assert "::notice::no pull request to comment on (event push)" in capsys.readouterr().out


def test_an_unknown_step_is_a_usage_error():
    done = subprocess.run([sys.executable, "-m", "kivgraph.action", "deploy"], capture_output=True, text=True)
    assert done.returncode == 2 and "invalid choice: 'deploy'" in done.stderr
