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
import subprocess
import tomllib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import cast

import pygit2

from kivgraph.derived import is_derived
from kivgraph.errors import GenerationNotFoundError, InvalidArgumentError, KivgraphError
from kivgraph.graph.load import Freshness, LoadedRepository, load_repository
from kivgraph.store import NOTES_REF, note_location
from kivgraph.store.codec import decode_columns
from kivgraph.store.notes import NotesStore, nearest_noted_ancestor

WORKSPACE_FILE = "kivgraph.toml"
GIT_TIMEOUT = 300.0
HISTORY_DEPTH = 200
"""Commits of a remote branch fetched (only when its head has no note) to find the nearest indexed one."""
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
    if not (store_dir / "HEAD").exists():
        store_dir.mkdir(parents=True, exist_ok=True)
        pygit2.init_repository(str(store_dir), bare=True)
    head, branch_ref = _remote_head(url, branch)
    fetched = _git(store_dir, "fetch", "--no-tags", "--quiet", url, f"+{ref}:{ref}")
    if fetched.returncode != 0:
        if "couldn't find remote ref" in fetched.stderr:
            raise GenerationNotFoundError(f"{url} ({branch_ref})", "the repository publishes no generations "
                                          f"({ref}); index it there and push the notes.")  # fmt: skip
        raise WorkspaceError(f"cannot fetch {ref} from {url}: {_first_line(fetched.stderr)}")
    repo = pygit2.Repository(str(store_dir))
    notes = NotesStore(repo, ref)
    blob = notes.read(head)
    commit, behind = head, 0
    if blob is None:
        local_ref = f"refs/kivgraph/heads/{hashlib.sha1(branch_ref.encode()).hexdigest()[:8]}"
        history = _git(store_dir, "fetch", "--no-tags", "--quiet", f"--depth={HISTORY_DEPTH}", url,
                       f"+{branch_ref}:{local_ref}")  # fmt: skip
        if history.returncode != 0:
            raise WorkspaceError(f"cannot fetch the history of {branch_ref} from {url}: "
                                 f"{_first_line(history.stderr)}")  # fmt: skip
        noted = {n.commit for n in notes.entries()}
        tip = repo.get(head)
        nearest = nearest_noted_ancestor(repo, tip.peel(pygit2.Commit), noted) if noted and tip is not None else None
        if nearest is None:
            raise GenerationNotFoundError(f"{url} ({branch_ref} at {head[:12]})", "neither the branch head nor "
                                          f"its last {HISTORY_DEPTH} commits are indexed.")  # fmt: skip
        commit, behind = nearest
        blob = notes.read(commit)
        assert blob is not None
    location = f"{url} {note_location(commit, ref)}"
    columns = decode_columns(blob, location)
    detail = "" if commit == head else (
        f"indexed at commit {commit[:7]}, {branch_ref} is now at {head[:7]}, {behind} commit"
        f"{'s' if behind != 1 else ''} later"
    )  # fmt: skip
    state = Freshness(commit, head, branch_ref.removeprefix("refs/heads/"), commit != head, detail, behind)
    return LoadedRepository(columns.header.repository, "", location, columns, len(blob), state)


def _remote_head(url: str, branch: str) -> tuple[str, str]:
    """(commit, full ref) of the branch on the remote; without one, its default branch (HEAD), else
    its only branch, else `main` or `master`."""
    done = _git(None, "ls-remote", "--symref", url, *([f"refs/heads/{branch}"] if branch else []))
    if done.returncode != 0:
        raise WorkspaceError(f"cannot reach {url}: {_first_line(done.stderr)}")
    heads: dict[str, str] = {}
    default = ""
    for line in done.stdout.splitlines():
        if line.startswith("ref: ") and line.endswith("\tHEAD"):
            default = line.split()[1]
        elif "\t" in line:
            sha, _, name = line.partition("\t")
            heads[name] = sha
    if branch:
        wanted = f"refs/heads/{branch}"
        if wanted not in heads:
            raise WorkspaceError(f"{url} has no branch {branch!r}.")
        return heads[wanted], wanted
    branches = {name: sha for name, sha in heads.items() if name.startswith("refs/heads/")}
    for name in (default, *(list(branches) if len(branches) == 1 else []), "refs/heads/main", "refs/heads/master"):
        if name in branches:
            return branches[name], name
    raise WorkspaceError(f'{url} has no default branch; name one with branch = "…".')


def _git(cwd: Path | None, *args: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}
    try:
        return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=GIT_TIMEOUT,
                              env=environment, check=False)  # fmt: skip
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(["git", *args], 1, "", f"git {args[0]} timed out after {GIT_TIMEOUT:g}s")
    except OSError as err:
        raise InvalidArgumentError(f"cannot run git: {err.strerror}.") from err


def _first_line(stderr: str) -> str:
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith(("fatal:", "error:"))]
    return (errors or lines or ["no message"])[0]
