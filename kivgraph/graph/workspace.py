"""Workspaces: `kivgraph.toml` lists the repositories whose generations are linked into one graph,
by local path or by git URL (+ branch). A remote one's generation comes from its own notes — the
branch head from `git ls-remote`, the notes ref fetched into a small cache — never a full clone.

    [[repository]]
    path = "../billing"              # a local checkout: the generation matching its HEAD

    [[repository]]
    url = "https://git.example.com/shop/api.git"
    branch = "main"                  # default: the remote's default branch
    name = "api"                     # optional: the name answers use
"""

import hashlib
import os
import tomllib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import cast

from kivgraph.errors import KivgraphError
from kivgraph.graph.load import Freshness, LoadedRepository, load_repository
from kivgraph.model import is_derived
from kivgraph.store import NOTES_REF
from kivgraph.store.codec import decode_columns
from kivgraph.store.sync import remote_note

WORKSPACE_FILE = "kivgraph.toml"
KEYS = frozenset({"path", "url", "branch", "name"})


class WorkspaceError(KivgraphError):
    code = "WORKSPACE_INVALID"


@dataclass(frozen=True, slots=True)
class Member:
    """One repository of the workspace: a local `path`, or a remote `url` (+ `branch`)."""

    path: str = ""
    url: str = ""
    branch: str = ""
    name: str = ""

    @property
    def label(self) -> str:
        return self.name or self.path or self.url


def read_workspace(file: str) -> list[Member]:
    """The members a workspace file lists, validated; relative paths resolve beside the file."""
    try:
        with open(file, "rb") as handle:
            document = tomllib.load(handle)
    except OSError as err:
        raise WorkspaceError(f"cannot read the workspace {file}: {err.strerror}.") from err
    except tomllib.TOMLDecodeError as err:
        raise WorkspaceError(f"the workspace {file} is not valid TOML: {err}.") from err
    unknown = sorted(set(document) - {"repository"})
    if unknown:
        raise WorkspaceError(f"the workspace {file} has an unknown table {unknown[0]!r}; list [[repository]] entries.")
    entries: object = document.get("repository", [])
    if not isinstance(entries, list) or not entries:
        raise WorkspaceError(f"the workspace {file} lists no [[repository]].")
    base = Path(file).resolve().parent
    members: list[Member] = []
    for number, entry in enumerate(cast(list[object], entries), 1):
        where = f"repository #{number} of {file}"
        if not isinstance(entry, dict):
            raise WorkspaceError(f"{where} is not a table.")
        table = cast(dict[str, object], entry)
        extra = sorted(set(table) - KEYS)
        if extra:
            raise WorkspaceError(f"{where} has an unknown key {extra[0]!r}; use path, url, branch and name.")
        values: dict[str, str] = {}
        for key, value in table.items():
            if not isinstance(value, str) or not value.strip():
                raise WorkspaceError(f"{where}: {key} must be a non-empty string.")
            values[key] = value
        if ("path" in values) == ("url" in values):
            raise WorkspaceError(f"{where} needs exactly one of path (a local checkout) or url (a git remote).")
        if "branch" in values and "path" in values:
            raise WorkspaceError(f"{where}: branch goes with url; a local path is read at its HEAD.")
        if is_derived(values.get("name", "")):
            raise WorkspaceError(f"{where}: the name prefix rust: is reserved for the derived standard library.")
        path = str((base / values["path"]).resolve()) if "path" in values else ""
        members.append(Member(path, values.get("url", ""), values.get("branch", ""), values.get("name", "")))
    names = [m.name for m in members if m.name]
    if len(names) != len(set(names)):
        raise WorkspaceError(f"the workspace {file} gives two repositories the same name.")
    return members


def load_member(member: Member, cache: Path | None = None, ref: str = NOTES_REF) -> LoadedRepository:
    loaded = load_repository(member.path, ref) if member.path else load_remote(member.url, member.branch, cache, ref)
    return replace(loaded, name=member.name) if member.name else loaded


def load_members(members: list[Member]) -> list[LoadedRepository | KivgraphError]:
    """Every member's generation, or why it could not be read, in order; fetched side by side
    (remote members wait on the network, not on us)."""

    def one(member: Member) -> LoadedRepository | KivgraphError:
        try:
            return load_member(member)
        except KivgraphError as err:
            return err

    with ThreadPoolExecutor(max_workers=min(8, max(1, len(members)))) as pool:
        return list(pool.map(one, members))


def remotes_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "kivgraph" / "remotes"


def load_remote(url: str, branch: str = "", cache: Path | None = None, ref: str = NOTES_REF) -> LoadedRepository:
    """A remote repository's generation for the head of `branch`, from its own notes."""
    store_dir = (cache or remotes_cache()) / (hashlib.sha1(url.encode()).hexdigest()[:16] + ".git")
    found = remote_note(url, branch, store_dir, ref)
    columns = decode_columns(found.blob, found.location)
    moved = found.commit != found.head
    detail = "" if not moved else (
        f"indexed at commit {found.commit[:7]}, {found.branch_ref} is now at {found.head[:7]}, {found.behind} "
        f"commit{'s' if found.behind != 1 else ''} later"
    )  # fmt: skip
    branch_name = found.branch_ref.removeprefix("refs/heads/")
    state = Freshness(found.commit, found.head, branch_name, moved, detail, found.behind)
    return LoadedRepository(columns.header.repository, "", found.location, columns, len(found.blob), state)
