"""Symbol bodies for `get_source`: safe reads from working trees, freshness, re-anchoring, the text answer.

Reads only regular files under a repository root and never through a symlink; re-anchoring moves a
served window, it never creates graph facts. No graph loading and no git here beyond hashing bytes.
"""

import os
import re
import stat
from collections.abc import Sequence
from dataclasses import dataclass

import pygit2

SOURCE_BUDGET_BYTES = 262_144

# Lines that open with these are comments in every indexed language (Python's `#` included), so a
# name mentioned there is never taken for its declaration. A Rust `#[attr] fn f` one-liner is lost.
COMMENT_PREFIXES = ("//", "/*", "*", "#")

_NOFOLLOW: int = getattr(os, "O_NOFOLLOW", 0)
# O_NONBLOCK: a FIFO swapped in after the lstat must not hang the server in open().
_NONBLOCK: int = getattr(os, "O_NONBLOCK", 0)


@dataclass(frozen=True, slots=True)
class SourceRequest:
    """One symbol to serve, with what the generation recorded about it."""

    repository: str
    root: str  # absolute path of the repository's working tree on this machine ("" = unknown)
    path: str  # repository-relative, "/"-separated, as indexed
    qualified_name: str
    name: str  # unqualified name: what re-anchoring searches for
    kind: str
    start_line: int  # 1-based, inclusive, as indexed (0 = no range recorded)
    end_line: int
    digest: str  # git blob id of the file as indexed ("" = unknown)
    stable_key: str = ""


@dataclass(frozen=True, slots=True)
class SourceBody:
    """What was served for one request: lines, or the reason nothing was."""

    request: SourceRequest
    text: str | None  # the lines served, without a final newline (None when refused)
    start_line: int  # lines actually served, after re-anchoring and context
    end_line: int
    shift: int | None  # None: the file matched its digest; else the signed shift after re-anchoring
    reason: str  # why it was refused ("" when served)


@dataclass(frozen=True, slots=True)
class _SourceFile:
    lines: tuple[str, ...]
    digest: str


def read_bodies(
    requests: Sequence[SourceRequest], context_lines: int = 0, budget: int = SOURCE_BUDGET_BYTES
) -> tuple[list[SourceBody], int]:
    """Bodies in request order, and how many requests were trimmed at the byte budget.

    The first served body that would take the total past `budget` stops assembly: it and every
    request after it are left out and counted as trimmed. Refusals cost nothing.
    """
    files: dict[tuple[str, str], _SourceFile | str] = {}
    bodies: list[SourceBody] = []
    used = 0
    for index, request in enumerate(requests):
        key = (request.root, request.path)
        if key not in files:
            files[key] = _read_source(request.repository, request.root, request.path)
        body = _body(request, files[key], context_lines)
        if body.text is not None:
            size = len(body.text.encode("utf-8"))
            if used + size > budget:
                return bodies, len(requests) - index
            used += size
        bodies.append(body)
    return bodies, 0


def render_bodies(
    snapshot_id: int | str | None,
    bodies: Sequence[SourceBody],
    context_lines: int,
    trimmed: int,
    detailed: bool = False,
) -> str:
    """The text answer (contract §4.3): a header line, then each body or refusal in order."""
    header = f"snapshot {'none' if snapshot_id is None else snapshot_id}  {len(bodies)} bodies  context {context_lines}"
    if trimmed:
        header += f"  trimmed {trimmed} at the {SOURCE_BUDGET_BYTES} byte ceiling"
    out = [header]
    after_code = False
    for body in bodies:
        request = body.request
        if after_code:
            out.append("")
        if body.text is None:
            out.append(f"! {request.repository} {request.path} {request.qualified_name} — {body.reason}")
            after_code = False
            continue
        line = f"@ {request.repository} {request.path}:{body.start_line}-{body.end_line} {request.kind} "
        line += request.qualified_name
        if body.shift is not None:
            line += f" [file changed, re-anchored {body.shift:+d}]"
        if detailed and request.stable_key:
            line += f" {request.stable_key}"
        out.append(line)
        out.append(body.text)
        after_code = True
    return "\n".join(out) + "\n"


def _body(request: SourceRequest, source: _SourceFile | str, context_lines: int) -> SourceBody:
    def refused(reason: str) -> SourceBody:
        return SourceBody(request, None, request.start_line, request.end_line, None, reason)

    if isinstance(source, str):
        return refused(source)
    if request.start_line <= 0:
        return refused(f"no line range is recorded for {request.qualified_name}")
    lines = source.lines
    # An inverted range is taken as its start line alone.
    span = max(request.end_line - request.start_line, 0)
    shift: int | None = None
    start = request.start_line
    if not request.digest or source.digest != request.digest:
        anchored = _reanchor(lines, request.name, request.start_line)
        if isinstance(anchored, str):
            return refused(anchored)
        start = anchored
        shift = start - request.start_line
    end = start + span
    if end > len(lines):
        if shift is None:
            return refused(f"lines {start}-{end} of {request.qualified_name} lie past the end of the file")
        return refused(f"{request.name} no longer spans {span + 1} lines")
    first = max(1, start - context_lines)
    last = min(len(lines), end + context_lines)
    return SourceBody(request, "\n".join(lines[first - 1 : last]), first, last, shift, "")


def _reanchor(lines: Sequence[str], name: str, recorded: int) -> int | str:
    """The 1-based line nearest `recorded` where `name` stands alone, or why there is none."""
    if not name:
        return "no name is recorded to re-anchor by"
    pattern = re.compile(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])")
    found = [
        number
        for number, line in enumerate(lines, start=1)
        if not line.lstrip().startswith(COMMENT_PREFIXES) and pattern.search(line)
    ]
    if not found:
        return f"no declaration of {name} remains"
    nearest = min(abs(number - recorded) for number in found)
    closest = [number for number in found if abs(number - recorded) == nearest]
    if len(closest) > 1:
        return f"{name} now appears {len(closest)} times equally far from its recorded position"
    return closest[0]


def _read_source(repository: str, root: str, path: str) -> _SourceFile | str:
    """The file's lines and blob id, or why it was not read (nothing is opened on refusal)."""
    if not root:
        return f"no working tree is known for repository {repository}"
    if not path:
        return "no repository path is recorded"
    if os.path.isabs(path) or path.startswith("/") or "\0" in path:
        return f"{path!r} is not a repository-relative path"
    parts = path.split("/")
    if any(part in ("", ".", "..") for part in parts):
        return f"{path!r} is not a normalized repository-relative path"
    full = root
    final: os.stat_result | None = None
    try:
        # lstat each component so a symlink anywhere under the root is refused, never followed.
        for depth, part in enumerate(parts, start=1):
            full = os.path.join(full, part)
            final = os.lstat(full)
            if stat.S_ISLNK(final.st_mode):
                return f"{'/'.join(parts[:depth])} is a symbolic link; sources are never read through one"
        assert final is not None  # parts is non-empty
        if not stat.S_ISREG(final.st_mode):
            return f"{path} is not a regular file"
        real_root = os.path.realpath(root)
        if os.path.commonpath([real_root, os.path.realpath(full)]) != real_root:
            return f"{path!r} leaves the repository"
        data = _read_checked(full, final)
    except OSError as err:
        return f"cannot read {path}: {err.strerror or err}"
    if data is None:
        return f"{path} changed while it was being read"
    lines = data.decode("utf-8", errors="replace").split("\n")
    if lines[-1] == "":
        lines.pop()
    return _SourceFile(tuple(line.removesuffix("\r") for line in lines), str(pygit2.hash(data)))


def _read_checked(full: str, expected: os.stat_result) -> bytes | None:
    """The bytes of the file lstat-ed as `expected`, or None if another file now sits on the path."""
    descriptor = os.open(full, os.O_RDONLY | _NOFOLLOW | _NONBLOCK)
    with os.fdopen(descriptor, "rb") as handle:
        opened = os.fstat(handle.fileno())
        if (opened.st_dev, opened.st_ino) != (expected.st_dev, expected.st_ino) or not stat.S_ISREG(opened.st_mode):
            return None
        return handle.read()
