"""Symbol bodies for `get_source`: safe reads from working trees, freshness, re-anchoring, the text answer.

Reads only files the generation recorded as indexed source, as regular files under a repository root,
never under `.git`, never through a symlink, and never more than the byte limits below; re-anchoring
moves a served window, it never creates graph facts. No graph loading and no git beyond hashing bytes.
"""

import os
import re
import stat
from collections.abc import Sequence
from dataclasses import dataclass

from kivgraph.model import FileStatus
from kivgraph.store.git import blob_id

SOURCE_BUDGET_BYTES = 262_144
"""Code served in one answer; the first body past it is left out with every request after it."""
FILE_LIMIT_BYTES = 2 * 1024 * 1024
"""The largest file read: the indexer's own limit, so a larger file cannot be what was indexed."""
READ_BUDGET_BYTES = 8 * 1024 * 1024
"""File bytes read for one answer; the first file past it is left out with every request after it."""
SOURCE_STATUSES = frozenset({FileStatus.INDEXED, FileStatus.PARSE_ERRORS, FileStatus.INVALID_UTF8})
"""File statuses of files that were parsed as source; a skipped file is never served."""

# Lines that open with these are comments in every indexed language (Python's `#` included), so a
# name mentioned there is never taken for its declaration. A Rust `#[attr] fn f` one-liner is lost.
COMMENT_PREFIXES = ("//", "/*", "*", "#")

# Code points HFS+ ignores when it compares names, so `.g\u200cit` opens `.git` there (git's is_hfs_dotgit).
_HFS_IGNORED: dict[int, None] = dict.fromkeys([0x200C, 0x200D, 0x200E, 0x200F, *range(0x202A, 0x202F),
                                               *range(0x206A, 0x2070), 0xFEFF])  # fmt: skip

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
    status: str = ""  # the file table's status of `path`: only parsed source files are served


@dataclass(frozen=True, slots=True)
class SourceBody:
    """What was served for one request: lines, or the reason nothing was."""

    request: SourceRequest
    text: str | None  # the lines served, without a final newline (None when refused)
    start_line: int  # lines actually served, after re-anchoring and context
    end_line: int
    shift: int | None  # None: the file matched its digest; else the signed shift after re-anchoring
    reason: str  # why it was refused ("" when served)
    left_out: bool = False  # not attempted: the answer reached a ceiling first; ask for it again


@dataclass(frozen=True, slots=True)
class _SourceFile:
    lines: tuple[str, ...]
    digest: str
    size: int


def read_bodies(
    requests: Sequence[SourceRequest],
    context_lines: int = 0,
    budget: int = SOURCE_BUDGET_BYTES,
    read_budget: int = READ_BUDGET_BYTES,
) -> tuple[list[SourceBody], int]:
    """A body for every request, in order, and how many were left out at a ceiling.

    Two ceilings bound one answer: `budget` bytes of code served and `read_budget` bytes of files
    read. The first request that would pass either is left out with every request after it; they
    stay in the answer, marked, so the client can ask for them again. Refusals cost nothing.
    """
    files: dict[tuple[str, str], _SourceFile | str] = {}
    bodies: list[SourceBody] = []
    used = read = 0
    for index, request in enumerate(requests):
        key = (request.root, request.path)
        source = files.get(key)
        if source is None:
            source = _read_source(request, read_budget - read)
            if source is None:
                return _left_out(
                    bodies, requests[index:], f"the answer reached its {read_budget} byte ceiling of files read"
                )
            if isinstance(source, _SourceFile):
                read += source.size
            files[key] = source
        body = _body(request, source, context_lines)
        if body.text is not None:
            size = len(body.text.encode("utf-8"))
            if used + size > budget:
                return _left_out(bodies, requests[index:], f"the answer reached its {budget} byte ceiling of code")
            used += size
        bodies.append(body)
    return bodies, 0


def _left_out(bodies: list[SourceBody], rest: Sequence[SourceRequest], why: str) -> tuple[list[SourceBody], int]:
    reason = f"left out: {why}; ask for it in another call"
    bodies += [SourceBody(r, None, r.start_line, r.end_line, None, reason, left_out=True) for r in rest]
    return bodies, len(rest)


def render_bodies(
    snapshot_id: int | str | None,
    bodies: Sequence[SourceBody],
    context_lines: int,
    trimmed: int,
    detailed: bool = False,
) -> str:
    """The text answer (contract §4.3): a header line, then each body or refusal in order."""
    answered = len(bodies) - trimmed
    header = f"snapshot {'none' if snapshot_id is None else snapshot_id}  {answered} bodies  context {context_lines}"
    if trimmed:
        header += f"  truncated: {trimmed} left out at a byte ceiling; call get_source again with those marked left out"
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


def _read_source(request: SourceRequest, allowance: int) -> _SourceFile | str | None:
    """The file's lines and blob id, why it was not read, or None when reading it would take more
    than `allowance` bytes. Nothing is opened on refusal."""
    repository, root, path = request.repository, request.root, request.path
    if not root:
        return f"no working tree is known for repository {repository}"
    if not path:
        return "no repository path is recorded"
    if request.status not in SOURCE_STATUSES:
        return f"{path} is recorded as {request.status}, not as an indexed source file; it is never served"
    if os.path.isabs(path) or path.startswith("/") or "\0" in path:
        return f"{path!r} is not a repository-relative path"
    parts = path.split("/")
    if any(part in ("", ".", "..") for part in parts):
        return f"{path!r} is not a normalized repository-relative path"
    if any(_names_git_directory(part) for part in parts):
        return f"{path!r} lies in the repository's .git directory, which is never served"
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
        if final.st_size > FILE_LIMIT_BYTES:
            return _too_large(path)
        if final.st_size > allowance:
            return None
        real_root = os.path.realpath(root)
        if os.path.commonpath([real_root, os.path.realpath(full)]) != real_root:
            return f"{path!r} leaves the repository"
        data = _read_checked(full, final)
    except OSError as err:
        return f"cannot read {path}: {err.strerror or err}"
    if data is None:
        return f"{path} changed while it was being read"
    if len(data) > FILE_LIMIT_BYTES:
        return _too_large(path)
    lines = data.decode("utf-8", errors="replace").split("\n")
    if lines[-1] == "":
        lines.pop()
    return _SourceFile(tuple(line.removesuffix("\r") for line in lines), blob_id(data), len(data))


def _too_large(path: str) -> str:
    return f"{path} is larger than {FILE_LIMIT_BYTES} bytes, the limit of a served file (none that large is indexed)"


def _names_git_directory(part: str) -> bool:
    """Whether a path component opens `.git` on some filesystem: in any case (macOS, Windows), with
    code points HFS+ ignores, with the trailing dots and spaces NTFS drops, or as its short name."""
    return part.translate(_HFS_IGNORED).rstrip(". ").casefold() in (".git", "git~1")


def _read_checked(full: str, expected: os.stat_result) -> bytes | None:
    """The bytes of the file lstat-ed as `expected`, or None if another file now sits on the path.

    At most one byte past the limit is read, so a file that grew after the lstat is caught unread.
    """
    descriptor = os.open(full, os.O_RDONLY | _NOFOLLOW | _NONBLOCK)
    with os.fdopen(descriptor, "rb") as handle:
        opened = os.fstat(handle.fileno())
        if (opened.st_dev, opened.st_ino) != (expected.st_dev, expected.st_ino) or not stat.S_ISREG(opened.st_mode):
            return None
        return handle.read(FILE_LIMIT_BYTES + 1)
