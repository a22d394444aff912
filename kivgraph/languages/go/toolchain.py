"""What the go command says about a module, in the terms the exact layer needs: the go.work that
governs it rewritten for a copy of the tree, the module versions its go.mod requires, and from `go
list` the packages that did not load and the modules loaded from inside the tree. Pure text and
JSON: running go is `scip/run.py`'s."""

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from kivgraph.languages.go.modules import go_mod_token

NOT_BUILT_HERE = ("build constraints exclude all Go files", "no Go files in")
"""Package errors that say a directory has nothing to build on this platform: nothing was hidden."""


@dataclass(frozen=True, slots=True)
class Workspace:
    """A go.work with every directory it names made absolute."""

    go: str
    uses: tuple[Path, ...]
    replaces: tuple[tuple[str, str], ...]
    """(old `path [version]`, new `path version` or a directory), as go.work spells them (a
    directory quoted when it has to be)."""
    godebug: tuple[str, ...]


def read_workspace(edit_json: str, base: Path, place: Callable[[Path], Path]) -> Workspace:
    """`go work edit -json` of the go.work in `base`; `place` maps a directory it names (absolute,
    where the file lives) to where that directory is for the run (inside the copy, or the original)."""
    data = cast(dict[str, Any], json.loads(edit_json or "{}"))

    def local(path: str) -> Path:
        return place(Path(os.path.normpath(base / path)))

    uses = tuple(local(str(u.get("DiskPath", ""))) for u in cast(list[dict[str, Any]], data.get("Use") or []))
    replaces: list[tuple[str, str]] = []
    for r in cast(list[dict[str, Any]], data.get("Replace") or []):
        old, new = cast(dict[str, str], r.get("Old") or {}), cast(dict[str, str], r.get("New") or {})
        target = new.get("Path", "")
        replacement = f"{target} {new['Version']}" if new.get("Version") else go_mod_token(str(local(target)))
        replaces.append((" ".join(v for v in (old.get("Path", ""), old.get("Version", "")) if v), replacement))
    debug = [f"{d.get('Key', '')}={d.get('Value', '')}" for d in cast(list[dict[str, str]], data.get("Godebug") or [])]
    return Workspace(str(data.get("Go") or ""), uses, tuple(replaces), tuple(debug))


def read_requirements(edit_json: str) -> list[str]:
    """`go mod edit -json` of a go.mod → each module version it requires, as `path@version`, as
    the go command fetches it: a replacement by another module version in its place, one by a
    directory left out (nothing to fetch)."""
    data = cast(dict[str, Any], json.loads(edit_json or "{}"))
    replaced: dict[tuple[str, str], dict[str, str]] = {}
    for r in cast(list[dict[str, Any]], data.get("Replace") or []):
        old, new = cast(dict[str, str], r.get("Old") or {}), cast(dict[str, str], r.get("New") or {})
        replaced[(old.get("Path", ""), old.get("Version", ""))] = new
    wanted: list[str] = []
    for r in cast(list[dict[str, str]], data.get("Require") or []):
        path, version = r.get("Path", ""), r.get("Version", "")
        new = replaced.get((path, version), replaced.get((path, "")))
        if new is None:
            wanted.append(f"{path}@{version}")
        elif new.get("Version"):
            wanted.append(f"{new.get('Path', '')}@{new['Version']}")
    return [w for w in wanted if not w.startswith("@") and not w.endswith("@")]


def workspace_text(workspace: Workspace) -> str:
    lines = [f"go {workspace.go}"] if workspace.go else []
    lines += [f"godebug {d}" for d in workspace.godebug]
    lines += [f"use {json.dumps(str(u))}" for u in workspace.uses]
    lines += [f"replace {old} => {new}" for old, new in workspace.replaces]
    return "\n".join(lines) + "\n"


@dataclass(frozen=True, slots=True)
class PackageProblem:
    directory: str
    """Tree-relative directory of the package whose code holds the failing import ("" the root)."""
    import_path: str
    detail: str
    """`file:line: what go said`, on one line."""


@dataclass(frozen=True, slots=True)
class Listing:
    problems: tuple[PackageProblem, ...]
    local_modules: dict[str, str]
    """Module path → tree-relative directory, for every module the packages were loaded from that
    lies inside the tree (the module itself, a `replace` or go.work `use` of a sibling)."""


def json_stream(text: str) -> list[dict[str, Any]]:
    """`go list -json` output: one object after another."""
    decoder = json.JSONDecoder()
    found: list[dict[str, Any]] = []
    at = 0
    while True:
        while at < len(text) and text[at].isspace():
            at += 1
        if at >= len(text):
            return found
        value, at = decoder.raw_decode(text, at)
        if isinstance(value, dict):
            found.append(cast(dict[str, Any], value))


def read_listing(output: str, module: Path, tree: Path) -> Listing:
    """`go list -e -deps -test -json ./...` run in `module` (inside the copy `tree`): each import
    that did not load, charged to the package of the tree whose file names it — never a package
    that only depends on it, whose own imports loaded — and the modules loaded from the tree.

    A package of another module of the tree (a sibling reached through `replace`) is loaded in
    this module's build, by its go.sum: what failed there failed for this module, whose uses of
    the sibling it hides; the sibling's own run loads it by its own. So it is charged to this
    module's root — the run that found it, which a part of the tree (a shard, a reuse) that
    re-runs one module and not the other can tell apart."""
    # The go command names a directory as its working directory spells it, real or as given (the
    # copy holds no symbolic link). Strings alone, then: resolving each of the few hundred
    # packages of a listing took a second in a worker thread beside the parse, whose every
    # file-system call waited its turn for the interpreter.
    spellings = sorted({os.path.realpath(tree), os.path.abspath(tree)})

    def inside(path: str) -> str | None:
        """The tree-relative path of `path`, or None when it lies outside the tree."""
        path = os.path.normpath(path)
        for root in spellings:
            if path == root:
                return ""
            if path.startswith(root + os.sep):
                return path[len(root) + 1 :]
        return None

    packages = json_stream(output)
    named: dict[str, str] = {}
    """Tree-relative directory → the import path of its package."""
    local: dict[str, str] = {}
    for package in packages:
        where = inside(str(package["Dir"])) if package.get("Dir") else None
        if where is not None:
            named.setdefault(where.replace(os.sep, "/"), str(package.get("ImportPath", "")).partition(" ")[0])
        loaded_from = cast(dict[str, Any], package.get("Module") or {})
        replaced = cast(dict[str, Any], loaded_from.get("Replace") or {})
        module_dir = str(replaced.get("Dir") or loaded_from.get("Dir") or "")
        root = inside(module_dir) if module_dir else None
        if loaded_from.get("Path") and root is not None:
            local.setdefault(str(loaded_from["Path"]), root.replace(os.sep, "/"))
    listed = inside(str(module))
    listed = listed.replace(os.sep, "/") if listed is not None else None
    problems: dict[tuple[str, str], PackageProblem] = {}
    for package in packages:
        owner = inside(str(package["Dir"])) if package.get("Dir") else None
        if owner is None:
            continue  # outside the tree: its failures reach us as the errors of our own importers
        errors = [cast(dict[str, Any], package["Error"])] if package.get("Error") else []
        errors += cast(list[dict[str, Any]], package.get("DepsErrors") or [])
        for error in errors:
            message = str(error.get("Err", "")).strip()
            if not message or any(m in message for m in NOT_BUILT_HERE):
                continue
            file, line = _position(str(error.get("Pos") or ""))
            at = inside(os.path.join(module, file)) if file else None
            at = at.replace(os.sep, "/") if at is not None else None
            directory = at.rpartition("/")[0] if at is not None else owner.replace(os.sep, "/")
            if listed is not None and not _within(directory, listed):
                directory = listed
            site = f"{at}:{line}: " if at is not None and line else f"{at}: " if at is not None else ""
            problem = PackageProblem(directory, named.get(directory, ""), site + " ".join(message.split()))
            problems.setdefault((problem.directory, problem.detail), problem)
    return Listing(tuple(sorted(problems.values(), key=lambda p: (p.directory, p.detail))), local)


def _within(directory: str, root: str) -> bool:
    return not root or directory == root or directory.startswith(root + "/")


def _position(position: str) -> tuple[str, str]:
    """`cmd/main.go:5:2` → (`cmd/main.go`, `5`); a position without a line → (it, "")."""
    parts = position.split(":")
    numbers = 0
    while numbers < 2 and len(parts) - numbers > 1 and parts[-1 - numbers].isdigit():
        numbers += 1
    if not numbers:
        return position, ""
    return ":".join(parts[: len(parts) - numbers]), parts[len(parts) - numbers]
