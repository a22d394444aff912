"""Running action.yml (or index/action.yml) as a GitHub runner runs a composite action: each step's
`if:` evaluated, its `env:` expanded from `${{ inputs.* }}` / `${{ steps.*.outputs.* }}`, its
script run with bash in the workspace with fresh $GITHUB_OUTPUT and $GITHUB_STEP_SUMMARY files,
and the action's outputs mapped from the steps'. `uses:` steps (setup-python, actions/cache,
setup-node…) are not run, only recorded with whether their `if:` wanted them; they and the pip
install are stood in for by a `kivgraph-venv/bin/python` in $RUNNER_TEMP that runs this interpreter."""

import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.action.yamlsubset import load

ROOT = Path(__file__).parents[2]
INSTALL_STEP = "Install kivgraph"
VENV_PYTHON = "kivgraph-venv/bin/python"
PR_ACTION, INDEX_ACTION = "action.yml", "index/action.yml"


def action(path: str = PR_ACTION) -> dict[str, Any]:
    return load((ROOT / path).read_text(encoding="utf-8"))


@dataclass
class StepRun:
    id: str
    name: str
    ran: bool
    returncode: int = 0
    stdout: str = ""
    stderr: str = ""
    outputs: dict[str, str] = field(default_factory=dict)
    summary: str = ""
    wanted: bool = False
    """For a `uses:` step, which is not run here: whether its `if:` would have run it."""


@dataclass
class ActionRun:
    steps: list[StepRun]
    outputs: dict[str, str]

    @property
    def returncode(self) -> int:
        return next((s.returncode for s in self.steps if s.returncode), 0)

    @property
    def log(self) -> str:
        return "".join(s.stdout + s.stderr for s in self.steps)

    @property
    def summary(self) -> str:
        return "".join(s.summary for s in self.steps)

    def step(self, step_id: str) -> StepRun:
        [found] = [s for s in self.steps if s.id == step_id]
        return found


def parse_outputs(text: str) -> dict[str, str]:
    """The $GITHUB_OUTPUT file syntax: `name=value` lines and `name<<DELIMITER` heredocs."""
    outputs: dict[str, str] = {}
    lines = iter(text.split("\n"))
    for line in lines:
        if not line:
            continue
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            value: list[str] = []
            for item in lines:
                if item == delimiter:
                    break
                value.append(item)
            else:
                raise AssertionError(f"output {name} has no closing delimiter {delimiter}")
            outputs[name] = "\n".join(value)
        else:
            name, _, value_text = line.partition("=")
            outputs[name] = value_text
    return outputs


class Context:
    """What `${{ … }}` can name in a composite action: inputs, steps' outputs, github.token."""

    def __init__(self, inputs: dict[str, str], token: str, path: str = PR_ACTION) -> None:
        declared: dict[str, Any] = action(path)["inputs"]
        unknown = set(inputs) - set(declared)
        assert not unknown, f"{path} declares no input {unknown}"
        self.token = token
        self.steps: dict[str, dict[str, str]] = {}
        self.inputs: dict[str, str] = {}
        for name, spec in declared.items():
            default = spec.get("default", "")
            self.inputs[name] = inputs[name] if name in inputs else self.expand(str(default))

    def expand(self, text: str) -> str:
        return re.sub(r"\$\{\{(.*?)\}\}", lambda m: _text(self.evaluate(m.group(1))), text)

    def evaluate(self, expression: str) -> str | bool:
        tokens = re.findall(r"'(?:[^']|'')*'|\|\||&&|==|!=|[A-Za-z_][\w.-]*", expression)
        assert "".join(tokens) == re.sub(r"\s+", "", expression), f"unsupported expression: {expression}"
        value, rest = self._or(tokens)
        assert not rest, f"unsupported expression: {expression}"
        return value

    def _or(self, tokens: list[str]) -> tuple[str | bool, list[str]]:
        value, tokens = self._and(tokens)
        while tokens and tokens[0] == "||":
            right, tokens = self._and(tokens[1:])
            value = value if _truthy(value) else right
        return value, tokens

    def _and(self, tokens: list[str]) -> tuple[str | bool, list[str]]:
        value, tokens = self._compare(tokens)
        while tokens and tokens[0] == "&&":
            right, tokens = self._compare(tokens[1:])
            value = right if _truthy(value) else value
        return value, tokens

    def _compare(self, tokens: list[str]) -> tuple[str | bool, list[str]]:
        left, tokens = self._atom(tokens)
        if tokens and tokens[0] in ("==", "!="):
            operator = tokens[0]
            right, tokens = self._atom(tokens[1:])
            equal = _text(left).lower() == _text(right).lower()  # GitHub compares strings case-insensitively
            return equal if operator == "==" else not equal, tokens
        return left, tokens

    def _atom(self, tokens: list[str]) -> tuple[str | bool, list[str]]:
        token, rest = tokens[0], tokens[1:]
        if token.startswith("'"):
            return token[1:-1].replace("''", "'"), rest
        parts = token.split(".")
        if parts[0] == "inputs" and len(parts) == 2:
            assert parts[1] in self.inputs, f"action.yml uses an undeclared input {parts[1]}"
            return self.inputs[parts[1]], rest
        if parts[0] == "steps" and len(parts) == 4 and parts[2] == "outputs":
            return self.steps.get(parts[1], {}).get(parts[3], ""), rest
        if token == "github.token":
            return self.token, rest
        raise AssertionError(f"unsupported expression term: {token}")


def _truthy(value: str | bool) -> bool:
    return bool(value)


def _text(value: str | bool) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else value


def run_action(inputs: dict[str, str], env: dict[str, str], token: str, path: str = PR_ACTION) -> ActionRun:
    """Every step of the action in order, as the runner would; a failing step ends the run."""
    spec = action(path)
    context = Context(inputs, token, path)
    temp = Path(env["RUNNER_TEMP"])
    python = temp / VENV_PYTHON
    python.parent.mkdir(parents=True, exist_ok=True)
    python.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n', encoding="utf-8")
    python.chmod(0o755)
    files = Path(tempfile.mkdtemp(prefix="steps-", dir=temp))  # a job's own step files, apart from other jobs'
    runs: list[StepRun] = []
    failed = False
    action_path = (ROOT / path).parent
    for index, step in enumerate(spec["runs"]["steps"]):
        step_id, name = step.get("id", f"__{index}"), step.get("name", "")
        condition = step.get("if")
        wanted = not failed and (condition is None or _truthy(context.evaluate(condition)))
        if not wanted or "uses" in step or name == INSTALL_STEP:
            runs.append(StepRun(step_id, name, ran=False, wanted=wanted))
            continue
        runs.append(_run_step(step, step_id, name, context, env, files / f"step-{index}", action_path))
        context.steps[step_id] = runs[-1].outputs
        failed = runs[-1].returncode != 0
    outputs = {name: context.expand(output["value"]) for name, output in spec["outputs"].items()}
    return ActionRun(runs, outputs)


def _run_step(step: dict[str, Any], step_id: str, name: str, context: Context, env: dict[str, str],
              files: Path, action_path: Path) -> StepRun:  # fmt: skip
    assert step.get("shell") == "bash", f"step {name} must say `shell: bash`"
    files.mkdir(parents=True)
    output, summary, script = files / "output", files / "summary", files / "script.sh"
    output.touch()
    summary.touch()
    script.write_text(step["run"], encoding="utf-8")
    step_env = {**env, "GITHUB_OUTPUT": str(output), "GITHUB_STEP_SUMMARY": str(summary),
                "GITHUB_ACTION_PATH": str(action_path)}  # fmt: skip
    for key, value in (step.get("env") or {}).items():
        step_env[key] = context.expand(str(value))
    done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
                          cwd=env["GITHUB_WORKSPACE"], env=step_env, capture_output=True, text=True,
                          timeout=300)  # fmt: skip
    return StepRun(step_id, name, True, done.returncode, done.stdout, done.stderr,
                   parse_outputs(output.read_text(encoding="utf-8")), summary.read_text(encoding="utf-8"))  # fmt: skip


def github_environment(workspace: Path, temp: Path, api_url: str, event_name: str, event_path: Path,
                       repository: str, sha: str) -> dict[str, str]:  # fmt: skip
    """The variables a GitHub-hosted runner sets for every step (those the Action reads, and the
    usual others), and nothing from this machine but PATH."""
    home = temp.parent / "home"
    home.mkdir(exist_ok=True)
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "GIT_CONFIG_NOSYSTEM": "1",
        "CI": "true",
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": event_name,
        "GITHUB_EVENT_PATH": str(event_path),
        "GITHUB_REPOSITORY": repository,
        "GITHUB_REPOSITORY_OWNER": repository.split("/")[0],
        "GITHUB_API_URL": api_url,
        "GITHUB_SERVER_URL": "https://github.com",
        "GITHUB_GRAPHQL_URL": f"{api_url}/graphql",
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_SHA": sha,
        "GITHUB_REF": "refs/pull/7/merge" if event_name.startswith("pull_request") else "refs/heads/main",
        "GITHUB_RUN_ID": "4242",
        "GITHUB_RUN_NUMBER": "3",
        "GITHUB_JOB": "impact",
        "GITHUB_ACTOR": "contributor",
        "GITHUB_WORKFLOW": "kivgraph PR impact",
        "RUNNER_TEMP": str(temp),
        "RUNNER_OS": "Linux",
    }
