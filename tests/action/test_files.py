"""action.yml, the workflows in ci/ and docs/action.md checked against each other: valid YAML (the
strict subset reader, and PyYAML too where it is installed), every input wired and documented,
every `uses:` pinned, each workflow's permissions the least it needs."""

import re
from pathlib import Path
from typing import Any

import click
import pytest

from kivgraph.action.runner import input_variable
from kivgraph.cli import cli
from tests.action.actions import ROOT, action
from tests.action.yamlsubset import YamlSubsetError, load

CI = ROOT / "ci"
DOC = (ROOT / "docs" / "action.md").read_text(encoding="utf-8")
WORKFLOWS = sorted(CI.glob("*.yml"))
PINNED = re.compile(r"^[\w.-]+/[\w.-]+(/[\w./-]+)?@v\d+$")


def workflow(name: str) -> dict[Any, Any]:
    return load((CI / name).read_text(encoding="utf-8"))


def triggers(flow: dict[Any, Any]) -> dict[str, Any]:
    return flow.get("on", flow.get(True))  # YAML 1.1 reads the key `on` as true


def steps(flow: dict[Any, Any]) -> list[dict[str, Any]]:
    return [step for job in flow["jobs"].values() for step in job["steps"]]


@pytest.mark.parametrize("path", [ROOT / "action.yml", *WORKFLOWS], ids=lambda p: p.name)
def test_the_yaml_reads_the_same_with_pyyaml_where_it_is_installed(path: Path):
    text = path.read_text(encoding="utf-8")
    ours = load(text)
    assert isinstance(ours, dict) and ours
    yaml = pytest.importorskip("yaml")
    assert ours == yaml.safe_load(text)


def test_the_subset_reader_refuses_what_it_does_not_understand():
    for text in ["a: &anchor 1", "a: {b: 1}", "a:\n\tb: 1", "a: b: c", "a: 'open"]:
        with pytest.raises(YamlSubsetError):
            load(text)
    assert load("a:\n- 1\n- 'x: y'\nb: |-\n  one\n  two\n") == {"a": [1, "x: y"], "b": "one\ntwo"}


def test_every_input_is_passed_under_its_own_name_and_every_step_runs_python_m_kivgraph_action():
    spec = action()
    inputs = spec["inputs"]
    used: set[str] = set()
    for step in spec["runs"]["steps"]:
        for key, value in (step.get("env") or {}).items():
            names = re.findall(r"inputs\.([\w-]+)", str(value))
            assert names, f"{key} is not an input"
            assert key == input_variable(names[0]), f"{key} carries the input {names[0]}"
            used.update(names)
        run = step.get("run", "")
        assert "${{" not in run, f"step {step.get('name')} pastes an expression into its script"
        if "-m kivgraph.action" in run:
            assert re.search(r"-m kivgraph\.action (analyze|comment|gate)'?$", run.strip()), run
    expressions = " ".join(str(step.get("if", "")) + str(step.get("with", "")) for step in spec["runs"]["steps"])
    used.update(re.findall(r"inputs\.([\w-]+)", expressions))
    assert set(inputs) == used, f"inputs never used: {set(inputs) - used}"
    assert spec["runs"]["using"] == "composite"


def test_every_input_and_output_is_documented():
    spec = action()
    for name in spec["inputs"]:
        assert f"| `{name}` |" in DOC, f"docs/action.md does not document the input {name}"
    for name, output in spec["outputs"].items():
        assert f"| `{name}` |" in DOC, f"docs/action.md does not document the output {name}"
        assert re.fullmatch(r"\$\{\{ steps\.(analyze|comment)\.outputs\.[\w-]+ \}\}", output["value"])
    for path in WORKFLOWS:
        assert f"`ci/{path.name}`" in DOC, f"docs/action.md does not explain ci/{path.name}"


@pytest.mark.parametrize("path", [ROOT / "action.yml", *WORKFLOWS], ids=lambda p: p.name)
def test_every_uses_is_pinned_to_a_major_version(path: Path):
    flow = load(path.read_text(encoding="utf-8"))
    found = flow["runs"]["steps"] if path.name == "action.yml" else steps(flow)
    for step in found:
        if "uses" in step:
            assert step["uses"] == "./" or PINNED.match(step["uses"]), f"{path.name}: {step['uses']} is not pinned"


def test_each_workflow_asks_for_the_least_permissions_it_needs():
    assert workflow("index.yml")["permissions"] == {"contents": "write"}
    assert workflow("pr-impact.yml")["permissions"] == {"contents": "read", "pull-requests": "write"}
    assert workflow("pr-impact-fork.yml")["permissions"] == {"contents": "read"}
    assert workflow("pr-comment.yml")["permissions"] == {"actions": "read", "pull-requests": "write"}


def test_the_fork_split_hands_the_report_from_one_workflow_to_the_other():
    fork, comment = workflow("pr-impact-fork.yml"), workflow("pr-comment.yml")
    assert triggers(comment)["workflow_run"]["workflows"] == [fork["name"]]
    assert "pull_request_target" not in triggers(fork) and "pull_request" in triggers(fork)
    [analyze] = [s for s in steps(fork) if s.get("uses") == "./"]
    [upload] = [s for s in steps(fork) if s.get("uses", "").startswith("actions/upload-artifact@")]
    [download] = [s for s in steps(comment) if s.get("uses", "").startswith("actions/download-artifact@")]
    [post] = [s for s in steps(comment) if s.get("uses") == "./"]
    assert analyze["with"]["comment"] == "false"
    assert upload["with"]["name"] == download["with"]["name"]
    assert analyze["with"]["report-dir"] == upload["with"]["path"]
    assert download["with"]["path"] == post["with"]["report-dir"]
    assert download["with"]["run-id"] == "${{ github.event.workflow_run.id }}"
    assert post["with"]["mode"] == "comment-only"
    [job] = comment["jobs"].values()
    assert "github.event.workflow_run.head_repository.full_name != github.repository" in job["if"]
    # The job with the write token never checks out the pull request's code.
    for step in steps(comment):
        assert "head" not in str(step.get("with", {}).get("ref", "")), step


def test_the_same_repository_and_fork_workflows_split_pull_requests_between_them():
    same, fork = workflow("pr-impact.yml"), workflow("pr-impact-fork.yml")
    condition = "github.event.pull_request.head.repo.full_name {} github.repository"
    assert [job["if"] for job in same["jobs"].values()] == [condition.format("==")]
    assert [job["if"] for job in fork["jobs"].values()] == [condition.format("!=")]
    for flow in (same, fork):
        [checkout] = [s for s in steps(flow) if s.get("uses", "").startswith("actions/checkout@")]
        assert checkout["with"]["fetch-depth"] == 0


def test_the_index_workflow_indexes_the_default_branch_and_pushes_the_note_with_cli_commands():
    flow = workflow("index.yml")
    assert triggers(flow)["push"]["branches"] == ["main"]
    commands = [s["run"].split() for s in steps(flow) if s.get("run", "").startswith("kivgraph ")]
    assert commands == [
        ["kivgraph", "doctor", "."],
        ["kivgraph", "index", "."],
        ["kivgraph", "notes", "push", "origin"],
    ]
    for words in commands:  # each is a command the CLI has
        group: Any = cli
        for word in words[1:]:
            if not isinstance(group, click.Group):
                break
            assert word in group.commands, f"index.yml runs `{' '.join(words)}`, which the CLI does not have"
            group = group.commands[word]
