"""Every error kivgraph raises on purpose: one base, `KivgraphError`, and subclasses carrying data.

Messages are whole sentences that name the object and say what to do next. The CLI and the MCP
server are the only places that turn these into exit codes or error results.
"""

import os


class KivgraphError(Exception):
    """Base of every deliberate kivgraph error; `code` is the stable machine-readable name."""

    code = "KIVGRAPH_ERROR"


class InvalidArgumentError(KivgraphError):
    code = "INVALID_ARGUMENT"


class NotARepositoryError(KivgraphError):
    code = "NOT_A_REPOSITORY"

    def __init__(self, path: str) -> None:
        self.path = path
        resolved = os.path.abspath(path)
        if resolved == os.path.abspath(os.curdir):
            where = f"the current directory ({resolved})"
        else:
            where = path if os.path.isabs(path) else f"{path} ({resolved})"
        if not os.path.exists(resolved):
            super().__init__(f"{where} does not exist; pass the path of a git checkout.")
        else:
            super().__init__(
                f"{where} is not inside a git repository; run kivgraph in a git checkout, or pass the path of one."
            )


class EmptyRepositoryError(KivgraphError):
    code = "EMPTY_REPOSITORY"

    def __init__(self, path: str) -> None:
        self.path = path
        super().__init__(
            f"the repository at {path.rstrip('/') or path} has no commits yet; commit something first (only "
            "`kivgraph index --worktree --out FILE` reads files that are not committed)."
        )


class UnknownRevisionError(KivgraphError):
    code = "UNKNOWN_REVISION"

    def __init__(self, revision: str, repository: str) -> None:
        self.revision = revision
        self.repository = repository
        super().__init__(
            f"revision {revision!r} does not name a commit in {repository.rstrip('/') or repository}; check it with "
            f"`git rev-parse {revision}`."
        )


class GenerationNotFoundError(KivgraphError):
    code = "GENERATION_NOT_FOUND"

    def __init__(self, where: str, hint: str = "") -> None:
        self.where = where
        message = f"no kivgraph generation is stored for {where}"
        super().__init__(message + (f"; {hint}" if hint else "; run `kivgraph index` first."))


class CorruptGenerationError(KivgraphError):
    """A blob that cannot be trusted: it is reported, never loaded half-way."""

    code = "CORRUPT_GENERATION"

    def __init__(self, where: str, detail: str) -> None:
        self.where = where
        self.detail = detail
        super().__init__(
            f"the generation stored for {where} is corrupt: {detail}. Re-index that commit with "
            "`kivgraph index --commit <rev>` to replace it."
        )


class UnsupportedFormatError(KivgraphError):
    code = "UNSUPPORTED_FORMAT"

    def __init__(self, where: str, major: int, minor: int, supported: int) -> None:
        self.where = where
        self.major = major
        self.minor = minor
        super().__init__(
            f"the generation stored for {where} uses storage format {major}.{minor}, and this kivgraph reads "
            f"format {supported}.x only; upgrade kivgraph or re-index with this version."
        )


class NotesError(KivgraphError):
    """The notes ref could not be read or written."""

    code = "NOTES_ERROR"


class GitFailedError(KivgraphError):
    """git (libgit2 or the git command) could not do what was asked; the message says what to check."""

    code = "GIT_ERROR"


class PathOutsideRepositoryError(KivgraphError):
    code = "PATH_OUTSIDE_REPOSITORY"

    def __init__(self, path: str) -> None:
        self.path = path
        super().__init__(f"{path!r} leaves the repository; paths must be repository-relative and stay inside it.")


# -- query errors: the codes MCP tool results and `kivgraph query` start their text with --------


class SymbolNotFoundError(KivgraphError):
    code = "SYMBOL_NOT_FOUND"


class AmbiguousSymbolError(KivgraphError):
    code = "AMBIGUOUS_SYMBOL"


class RepositoryNotFoundError(KivgraphError):
    code = "REPOSITORY_NOT_FOUND"


class CursorInvalidError(KivgraphError):
    code = "CURSOR_INVALID"


class CursorSnapshotExpiredError(KivgraphError):
    code = "CURSOR_SNAPSHOT_EXPIRED"


class SnapshotUnavailableError(KivgraphError):
    code = "SNAPSHOT_UNAVAILABLE"


class IndexNotReadyError(KivgraphError):
    code = "INDEX_NOT_READY"


class PermissionRequiredError(KivgraphError):
    code = "PERMISSION_REQUIRED"


class PermissionDeniedError(KivgraphError):
    code = "PERMISSION_DENIED"


class IndexingFailedError(KivgraphError):
    code = "INDEXING_FAILED"
