"""The GitHub Actions runner as the Action sees it: inputs (`INPUT_*`), the event payload file,
step outputs (`$GITHUB_OUTPUT`), the step summary and workflow commands (`::error::`).

No network and no analysis here; nothing is printed but through `Runner.say`, which GitHub never
executes, and the workflow commands the Runner writes itself.
"""

import json
import re
import secrets
import unicodedata
from collections.abc import Generator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TextIO, cast

from kivgraph.errors import InvalidArgumentError, KivgraphError

EXIT_FAILED = 1
"""A step that could not do its job (the reason as one `::error::` line)."""
REMOTE = "origin"
"""The remote actions/checkout configures, which notes are fetched from and pushed to."""
PULL_REQUEST_EVENTS = ("pull_request", "pull_request_target")
REPOSITORY_NAME = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
TRUE, FALSE = ("true", "True", "TRUE"), ("false", "False", "FALSE")
"""The spellings GitHub's own toolkit accepts for a boolean input (core.getBooleanInput)."""
WHOLE_NUMBER = re.compile(r"[0-9]+")
"""ASCII digits only: int() also takes "٣", "1_000" and blanks around the digits."""


def input_variable(name: str) -> str:
    """The environment variable action.yml passes an input in: `fail-on` → `INPUT_FAIL_ON`."""
    return "INPUT_" + re.sub(r"[^A-Z0-9]", "_", name.upper())


def dig(payload: Any, *keys: str) -> Any:
    """payload[k1][k2]… or None where a level is missing or is not an object."""
    for key in keys:
        if not isinstance(payload, dict):
            return None
        payload = cast(dict[str, Any], payload).get(key)
    return payload


@dataclass(frozen=True, slots=True)
class Event:
    """The payload GitHub wrote to `$GITHUB_EVENT_PATH` for the event that started the workflow."""

    name: str
    payload: dict[str, Any] = field(default_factory=dict[str, Any])

    @property
    def is_pull_request(self) -> bool:
        return self.name in PULL_REQUEST_EVENTS and isinstance(dig(self.payload, "pull_request"), dict)

    def _text(self, *keys: str) -> str:
        value = dig(self.payload, *keys)
        return value if isinstance(value, str) else ""

    @property
    def pr_number(self) -> int | None:
        number = dig(self.payload, "pull_request", "number") if self.is_pull_request else None
        return number if isinstance(number, int) and number > 0 else None

    @property
    def base_sha(self) -> str:
        return self._text("pull_request", "base", "sha") if self.is_pull_request else ""

    @property
    def head_sha(self) -> str:
        if self.is_pull_request:
            return self._text("pull_request", "head", "sha")
        return self._text("workflow_run", "head_sha") if self.name == "workflow_run" else ""

    @property
    def from_fork(self) -> bool:
        """A pull request whose head lives in another repository (or in a fork since deleted)."""
        if not self.is_pull_request:
            return False
        head = self._text("pull_request", "head", "repo", "full_name")
        return not head or head != self._text("pull_request", "base", "repo", "full_name")


class Runner:
    """The process environment of one Action step, read once; writes go to its files and streams."""

    def __init__(self, environ: Mapping[str, str], out: TextIO, err: TextIO) -> None:
        self.environ = dict(environ)
        self.out = out
        self.err = err
        self.on_github = self.environ.get("GITHUB_ACTIONS") == "true"

    # -- inputs ----------------------------------------------------------------------------------

    def input(self, name: str, default: str = "") -> str:
        """An input as action.yml passed it; empty counts as not given."""
        return self.environ.get(input_variable(name), "").strip() or default

    def input_bool(self, name: str, default: bool) -> bool:
        value = self.input(name)
        if not value:
            return default
        if value in TRUE or value in FALSE:
            return value in TRUE
        raise InvalidArgumentError(f"the input {name} must be true or false, not {value!r}.")

    def input_int(self, name: str, default: int, lowest: int, highest: int | None = None) -> int:
        value = self.input(name)
        if not value:
            return default
        number = int(value) if WHOLE_NUMBER.fullmatch(value) and len(value) <= 18 else None
        if number is None or number < lowest or (highest is not None and number > highest):
            bounds = f"between {lowest} and {highest}" if highest is not None else f"at least {lowest}"
            raise InvalidArgumentError(f"the input {name} must be a whole number {bounds}, not {value!r}.")
        return number

    def input_list(self, name: str) -> tuple[str, ...]:
        """A list input: one item a line, or comma-separated."""
        return tuple(item.strip() for item in re.split(r"[\n,]", self.input(name)) if item.strip())

    # -- the workflow's context ------------------------------------------------------------------

    def event(self) -> Event:
        name = self.environ.get("GITHUB_EVENT_NAME", "")
        path = self.environ.get("GITHUB_EVENT_PATH", "")
        if not path:
            return Event(name)
        try:
            with open(path, encoding="utf-8") as handle:
                payload = json.load(handle)
        except (OSError, ValueError) as err:
            raise KivgraphError(f"cannot read the event payload {path} ({err}); is GITHUB_EVENT_PATH right?") from err
        return Event(name, cast(dict[str, Any], payload) if isinstance(payload, dict) else {})

    @property
    def repository(self) -> str:
        name = self.environ.get("GITHUB_REPOSITORY", "")
        if not REPOSITORY_NAME.match(name):
            raise InvalidArgumentError(f"GITHUB_REPOSITORY must be owner/name, not {name!r}.")
        return name

    @property
    def api_url(self) -> str:
        return self.environ.get("GITHUB_API_URL", "").rstrip("/") or "https://api.github.com"

    @property
    def server_url(self) -> str:
        return self.environ.get("GITHUB_SERVER_URL", "").rstrip("/") or "https://github.com"

    @property
    def temp(self) -> str:
        return self.environ.get("RUNNER_TEMP", "")

    # -- what a step hands back ------------------------------------------------------------------

    def set_output(self, name: str, value: str) -> None:
        """One step output, in the file syntax of `$GITHUB_OUTPUT` (a heredoc when multi-line)."""
        path = self.environ.get("GITHUB_OUTPUT", "")
        if not path:
            return
        if "\n" in value or "\r" in value:
            delimiter = f"ghadelimiter_{secrets.token_hex(16)}"
            line = f"{name}<<{delimiter}\n{value}\n{delimiter}\n"
        else:
            line = f"{name}={value}\n"
        _append(path, line, "the step outputs ($GITHUB_OUTPUT)")

    def append_summary(self, markdown: str) -> bool:
        """Append to `$GITHUB_STEP_SUMMARY`; False when there is none (not on a runner)."""
        path = self.environ.get("GITHUB_STEP_SUMMARY", "")
        if not path:
            return False
        _append(path, markdown if markdown.endswith("\n") else markdown + "\n", "the step summary")
        return True

    # -- the log ----------------------------------------------------------------------------------

    def say(self, text: str) -> None:
        """Write text to the log, where GitHub executes none of it. On a runner, text in which a
        workflow command could hide (see `may_hold_command`: a file name, a message from git or the
        API) is fenced by `::stop-commands::<random token>` … `::<token>::`, so it shows as written
        and no line of it is read as a command."""
        text = _printable(text, self.out)
        if self.on_github and may_hold_command(text):
            token = secrets.token_hex(16)
            while token in text:  # 128 random bits the text cannot know; checking costs nothing
                token = secrets.token_hex(16)
            body = text.removesuffix("\n")
            text = f"::stop-commands::{token}\n{body}\n::{token}::"
        _write(self.out, text)

    def _command(self, name: str, message: str) -> None:
        """The one way a workflow command is written: a fixed name, the message escaped onto its line."""
        _write(self.out, f"::{name}::{escape_data(_printable(message, self.out))}")

    def annotate(self, level: str, message: str) -> None:
        """`::error::…` (or warning, notice) on a runner, which GitHub shows on the run's page;
        `error: …` on stderr elsewhere."""
        if self.on_github:
            self._command(level, message)
        else:
            _write(self.err, f"{level}: {_printable(message, self.err)}")

    @contextmanager
    def group(self, title: str) -> Generator[None]:
        """A foldable group of log lines on a runner (`::group::`), a plain heading elsewhere."""
        if self.on_github:
            self._command("group", title)
        else:
            self.say(f"-- {title}")
        try:
            yield
        finally:
            if self.on_github:
                self._command("endgroup", "")

    def error(self, message: str) -> None:
        self.annotate("error", message)

    def warning(self, message: str) -> None:
        self.annotate("warning", message)

    def notice(self, message: str) -> None:
        self.annotate("notice", message)


def may_hold_command(text: str) -> bool:
    """Whether GitHub's runner could read a workflow command anywhere in text, erring towards yes.
    The runner reads `::name params::data` on a line whose start, past blanks, is `::`, and the
    older `##[name params]data` anywhere in a line, comparing strings in a way that may skip
    invisible characters. So: `::` or `##[` anywhere, once invisible characters (control,
    format and combining ones, line breaks included) are dropped and look-alikes (`：`) folded."""
    if "::" in text or "##[" in text:
        return True
    folded = unicodedata.normalize("NFKC", text)
    visible = "".join(ch for ch in folded if unicodedata.category(ch)[0] not in "CM")
    return "::" in visible or "##[" in visible


def escape_data(text: str) -> str:
    """A workflow command's message, escaped as GitHub's toolkit does."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _printable(text: str, stream: TextIO) -> str:
    """text as the stream can encode it: a lone surrogate (a file name that is not UTF-8) or a
    character the stream's encoding lacks becomes a backslash escape instead of an exception."""
    encoding = getattr(stream, "encoding", None) or "utf-8"
    try:
        return text.encode(encoding, "backslashreplace").decode(encoding)
    except LookupError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _write(stream: TextIO, text: str) -> None:
    stream.write(text if text.endswith("\n") else text + "\n")
    stream.flush()


def _append(path: str, text: str, what: str) -> None:
    try:
        with open(path, "a", encoding="utf-8", errors="backslashreplace") as handle:  # a non-UTF-8 file name
            handle.write(text)
    except OSError as err:
        raise KivgraphError(f"cannot write {what} to {path}: {err.strerror}.") from err
