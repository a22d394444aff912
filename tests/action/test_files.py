"""action.yml, the workflows in ci/ and docs/action.md checked against each other: valid YAML (the
strict subset reader, and PyYAML too where it is installed), every input wired and documented,
every `uses:` pinned, each workflow's permissions the least it needs."""

import re
from pathlib import Path
from typing import Any

import pytest

from kivgraph.action.index import DEFAULT_BACKFILL, DEFAULT_KEEP
from kivgraph.action.runner import input_variable
from kivgraph.action.steps import STEPS
from tests.action.actions import INDEX_ACTION, PR_ACTION, ROOT, action
from tests.action.yamlsubset import YamlSubsetError, load

CI = ROOT / "ci"
DOC = (ROOT / "docs" / "action.md").read_text(encoding="utf-8")
INDEX_DOC = DOC.partition("\n## The index action")[2].partition("\n## ")[0]
PR_DOC = DOC.replace(INDEX_DOC, "")
WORKFLOWS = sorted(CI.glob("*.yml"))
ACTIONS = [ROOT / PR_ACTION, ROOT / INDEX_ACTION]
PINNED = re.compile(r"^[\w.-]+/[\w.-]+(/[\w./-]+)?@v\d+$")
LOCAL = ("./", "./index", "./base-checkout")
"""The actions as kivgraph's own workflows use them, from the checkout (the base's, for a fork's pull request)."""


def workflow(name: str) -> dict[Any, Any]:
    return load((CI / name).read_text(encoding="utf-8"))


def triggers(flow: dict[Any, Any]) -> dict[str, Any]:
    return flow.get("on", flow.get(True))  # YAML 1.1 reads the key `on` as true


def steps(flow: dict[Any, Any]) -> list[dict[str, Any]]:
    return [step for job in flow["jobs"].values() for step in job["steps"]]


@pytest.mark.parametrize("path", [*ACTIONS, *WORKFLOWS], ids=lambda p: str(p.relative_to(ROOT)))
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


@pytest.mark.parametrize("path", [PR_ACTION, INDEX_ACTION])
def test_every_input_is_passed_under_its_own_name_and_every_step_runs_python_m_kivgraph_action(path: str):
    spec = action(path)
    inputs = spec["inputs"]
    used: set[str] = set()
    for step in spec["runs"]["steps"]:
        for key, value in (step.get("env") or {}).items():
            names = re.findall(r"inputs\.([\w-]+)", str(value))
            if not names:  # only another step's output, under a name of ours
                assert re.fullmatch(r"\$\{\{ steps\.[\w-]+\.outputs\.[\w-]+ \}\}", str(value)), key
                assert key.startswith("KIVGRAPH_"), key
                continue
            assert key == input_variable(names[0]), f"{key} carries the input {names[0]}"
            used.update(names)
        run = step.get("run", "")
        assert "${{" not in run, f"step {step.get('name')} pastes an expression into its script"
        if "-m kivgraph.action" in run:
            found = re.search(r"-m kivgraph\.action (\w+)'?$", run.strip())
            assert found and found.group(1) in STEPS, run
    expressions = " ".join(str(step.get("if", "")) + str(step.get("with", "")) for step in spec["runs"]["steps"])
    used.update(re.findall(r"inputs\.([\w-]+)", expressions))
    assert set(inputs) == used, f"inputs never used: {set(inputs) - used}"
    assert spec["runs"]["using"] == "composite"


@pytest.mark.parametrize(("path", "doc", "producers"), [
    (PR_ACTION, PR_DOC, "analyze|comment"),
    (INDEX_ACTION, INDEX_DOC, "index|languages"),
])  # fmt: skip
def test_every_input_and_output_is_documented(path: str, doc: str, producers: str):
    assert doc.strip(), "docs/action.md has no section for this action"
    spec = action(path)
    for name in spec["inputs"]:
        assert f"| `{name}` |" in doc, f"docs/action.md does not document the input {name} of {path}"
    for name, output in spec["outputs"].items():
        assert f"| `{name}` |" in doc, f"docs/action.md does not document the output {name} of {path}"
        assert re.fullmatch(rf"\$\{{\{{ steps\.({producers})\.outputs\.[\w-]+ \}}\}}", output["value"])
    for workflow_path in WORKFLOWS:
        assert f"`ci/{workflow_path.name}`" in DOC, f"docs/action.md does not explain ci/{workflow_path.name}"


def test_the_index_actions_documented_defaults_are_the_steps_own():
    inputs = action(INDEX_ACTION)["inputs"]
    assert inputs["backfill"]["default"] == str(DEFAULT_BACKFILL)
    assert inputs["keep-notes"]["default"] == str(DEFAULT_KEEP)
    assert f"| `keep-notes` | `{DEFAULT_KEEP}` |" in INDEX_DOC and f"| `backfill` | `{DEFAULT_BACKFILL}` |" in INDEX_DOC


@pytest.mark.parametrize("path", [*ACTIONS, *WORKFLOWS], ids=lambda p: str(p.relative_to(ROOT)))
def test_every_uses_is_pinned_to_a_major_version(path: Path):
    flow = load(path.read_text(encoding="utf-8"))
    found = flow["runs"]["steps"] if path.name == "action.yml" else steps(flow)
    for step in found:
        if "uses" in step:
            assert step["uses"] in LOCAL or PINNED.match(step["uses"]), f"{path.name}: {step['uses']} is not pinned"


@pytest.mark.parametrize("path", [PR_ACTION, INDEX_ACTION])
def test_python_is_set_up_for_kivgraphs_venv_only_leaving_the_jobs_python_alone(path: str):
    found = action(path)["runs"]["steps"]
    [setup] = [s for s in found if str(s.get("uses", "")).startswith("actions/setup-python@")]
    assert setup["with"]["update-environment"] is False  # no PATH, pythonLocation or pip change for the job
    [install] = [s for s in found if s.get("name") == "Install kivgraph"]
    assert install["env"]["KIVGRAPH_PYTHON"] == f"${{{{ steps.{setup['id']}.outputs.python-path }}}}"
    assert '"${KIVGRAPH_PYTHON:-python3}" -m venv "$RUNNER_TEMP/kivgraph-venv"' in install["run"]
    for step in found:  # every later step runs the venv's python by its path, never `python` from PATH
        if "kivgraph.action" in step.get("run", ""):
            assert step["run"].startswith('"$RUNNER_TEMP/kivgraph-venv/bin/python" -m kivgraph.action'), step["name"]


def test_the_index_action_sets_up_a_toolchain_only_for_the_languages_that_need_it():
    found = action(INDEX_ACTION)["runs"]["steps"]
    conditions = {str(s["uses"]).partition("@")[0]: s.get("if") for s in found if "uses" in s}
    assert conditions["actions/setup-node"] == "steps.languages.outputs.node == 'true'"
    assert conditions["actions/setup-go"] == "steps.languages.outputs.go == 'true'"
    assert conditions["actions-rust-lang/setup-rust-toolchain"] == "steps.languages.outputs.rust == 'true'"
    assert conditions["actions/cache"] == "steps.languages.outputs.cache-key != ''"
    [cache] = [s for s in found if str(s.get("uses", "")).startswith("actions/cache@")]
    assert cache["with"] == {"key": "${{ steps.languages.outputs.cache-key }}",
                             "path": "${{ steps.languages.outputs.cache-path }}"}  # fmt: skip
    order = [str(s.get("id") or s["uses"].partition("@")[0]) for s in found if "id" in s or "uses" in s]
    assert (
        order.index("languages")
        < order.index("actions/cache")
        < order.index("actions/setup-node")
        < order.index("index")
    )


def test_each_workflow_asks_for_the_least_permissions_it_needs():
    assert workflow("index.yml")["permissions"] == {"contents": "write"}
    assert workflow("pr-impact.yml")["permissions"] == {"contents": "read", "pull-requests": "write"}
    assert workflow("pr-impact-fork.yml")["permissions"] == {"contents": "read"}
    assert workflow("pr-comment.yml")["permissions"] == {"actions": "read", "pull-requests": "write"}


def test_the_fork_split_hands_the_report_from_one_workflow_to_the_other():
    fork, comment = workflow("pr-impact-fork.yml"), workflow("pr-comment.yml")
    assert triggers(comment)["workflow_run"]["workflows"] == [fork["name"]]
    assert "pull_request_target" not in triggers(fork) and "pull_request" in triggers(fork)
    [analyze] = [s for s in steps(fork) if s.get("uses") == "./base-checkout"]
    [upload] = [s for s in steps(fork) if s.get("uses", "").startswith("actions/upload-artifact@")]
    [download] = [s for s in steps(comment) if s.get("uses", "").startswith("actions/download-artifact@")]
    [post] = [s for s in steps(comment) if s.get("uses") == "./"]
    assert analyze["with"]["comment"] == "false"
    # The pull request's own action code never runs: the action comes from a checkout of the base commit.
    checkouts = {s["with"]["path"]: s["with"] for s in steps(fork) if s.get("uses", "").startswith("actions/checkout@")}
    assert checkouts["base-checkout"]["ref"] == "${{ github.event.pull_request.base.sha }}"
    assert "ref" not in checkouts[analyze["with"]["path"]] and analyze["with"]["path"] != "base-checkout"
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
    for flow in (same, fork):  # the default depth 1: the action fetches what it needs (docs/action.md)
        for checkout in [s for s in steps(flow) if s.get("uses", "").startswith("actions/checkout@")]:
            assert "fetch-depth" not in (checkout.get("with") or {})


def test_the_index_workflow_runs_the_index_action_on_pushes_to_the_default_branch():
    flow = workflow("index.yml")
    assert triggers(flow)["push"]["branches"] == ["main"]
    assert flow["concurrency"]["cancel-in-progress"] is False  # a run that pushes notes is never cut short
    checkout, index = steps(flow)
    assert checkout["uses"].startswith("actions/checkout@") and "fetch-depth" not in (checkout.get("with") or {})
    assert index["uses"] == "./index"
    declared = action(INDEX_ACTION)["inputs"]
    assert set(index["with"]) <= set(declared), set(index["with"]) - set(declared)
