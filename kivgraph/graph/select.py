"""Naming one symbol: `stable_key` xor repository + path + qualified_name (or a bare `name` on
find_references), with every validation rule and the narrowing hints of AMBIGUOUS / NOT_FOUND.
Also the spellings that address by path: `<module>` (a file's module symbol, every language) and
`<package>` (a Go package: the module symbols of its directory's files)."""

from collections.abc import Mapping
from typing import Any

from kivgraph.errors import AmbiguousSymbolError, InvalidArgumentError, RepositoryNotFoundError, SymbolNotFoundError
from kivgraph.graph.index import Graph
from kivgraph.model import SymbolKind

DECLARATION_KINDS = frozenset(k.value for k in SymbolKind) - {SymbolKind.ENUM_MEMBER.value}
"""What a bare `name` may resolve to: every declaration we model (modules included)."""
MAX_CANDIDATES = 500
MODULE = "<module>"
"""The qualified name of every file's module symbol, whatever the language: with its path, it names one."""
PACKAGE = "<package>"
"""A Go package, named by its directory: it has no symbol of its own, it is the module symbols of its
files (the non-test `.go` files directly in the directory, each of which an import of it reaches)."""


def clean_path(path: str) -> str:
    if path.startswith("/"):
        raise InvalidArgumentError("path must be repository-relative, not absolute")
    if ".." in path.split("/"):
        raise InvalidArgumentError("path must not contain a .. segment")
    return path.rstrip("/")


def check_repository(graph: Graph, repository: str) -> int:
    index = graph.repository_index.get(repository)
    if index is None:
        raise RepositoryNotFoundError(f'repository "{repository}" is not in the published graph')
    return index


def _where(graph: Graph, i: int) -> str:
    """A candidate as `repository:path:line`, the triple the next call narrows with."""
    return f"{graph.repository_name(i)}:{graph.path_of(i)}:{int(graph.start_line[i])}"


def resolve(graph: Graph, args: Mapping[str, Any], allow_name: bool = False) -> int:
    """The symbol id the selector names; INVALID_ARGUMENT / *_NOT_FOUND / AMBIGUOUS_SYMBOL otherwise."""
    found = _resolve(graph, args, allow_name)
    if isinstance(found, int):
        return found
    if len(found) == 1:
        return found[0]
    package = graph.package_of(found[0])
    named = f"the Go package {package.label}" if package is not None else "a Go package"
    files = ", ".join(graph.path_of(i) for i in found[:MAX_CANDIDATES])
    raise AmbiguousSymbolError(
        f'"{PACKAGE}" at {args.get("repository")} {args.get("path")} is {named}, which has no symbol of its own: it '
        f"is the module symbols of its {len(found)} files, and an import of it reaches each of them (find_references "
        f'on any one lists its importers). Name one with qualified_name "{MODULE}" and its path ({files}); '
        "get_symbol and get_file_outline take the whole package"
    )


def resolve_all(graph: Graph, args: Mapping[str, Any]) -> list[int]:
    """The symbols a selector names: the one `resolve` finds, or every file module of a `<package>`."""
    found = _resolve(graph, args, allow_name=False)
    return [found] if isinstance(found, int) else found


def _resolve(graph: Graph, args: Mapping[str, Any], allow_name: bool) -> int | list[int]:
    key: str | None = args.get("stable_key")
    qualified: str | None = args.get("qualified_name")
    repository: str | None = args.get("repository")
    path: str | None = args.get("path")
    name: str | None = args.get("name") if allow_name else None
    for field, value in (("stable_key", key), ("qualified_name", qualified), ("repository", repository),
                         ("path", path), ("name", name)):  # fmt: skip
        if value is not None and (value != value.strip() or not value):
            raise InvalidArgumentError(f"{field} must be a non-empty value without surrounding whitespace")
    if name is not None:
        if key is not None or qualified is not None:
            raise InvalidArgumentError(
                "name identifies a declaration on its own; pass stable_key or qualified_name instead, not both"
            )
        return _by_name(graph, name, repository, path, repo_filter=args.get("repo"))
    if key is None and qualified is None:
        either = "one of stable_key, qualified_name or name" if allow_name else "one of stable_key or qualified_name"
        raise InvalidArgumentError(f"{either} is required")
    if key is not None and qualified is not None:
        raise InvalidArgumentError("pass either stable_key or qualified_name, not both")
    if key is not None:
        if repository is not None or path is not None:
            raise InvalidArgumentError(
                "repository and path narrow a qualified_name; a stable_key already names one symbol"
            )
        found = graph.find_key(key)
        if found is None:
            raise SymbolNotFoundError(f'symbol "{key}" was not found')
        return found
    assert qualified is not None
    if path is not None and repository is None:
        raise InvalidArgumentError("path is repository-relative, so it requires repository")
    if qualified == PACKAGE:
        return package_modules(graph, repository, path)
    if qualified == MODULE:
        return _file_module(graph, repository, path)
    path = clean_path(path) if path is not None else None
    candidates = _narrow(graph, graph.by_qualified_spelling(qualified), repository, path)
    if not candidates:
        where = f" under {repository}" + (f" {path}" if path else "") if repository else ""
        hint = "; call it without repository and path to search the whole graph" if repository else ""
        raise SymbolNotFoundError(f'qualified name "{qualified}" was not found{where}{hint}')
    if len(candidates) == 1:
        return candidates[0]
    if repository is not None and path is not None:
        keys = ", ".join(graph.key(i) for i in candidates[:MAX_CANDIDATES])
        raise AmbiguousSymbolError(
            f'qualified name "{qualified}" names {len(candidates)} symbols in {repository} {path}, '
            f"so only a stable_key separates them: {keys}"
        )
    listed = ", ".join(_where(graph, i) for i in candidates[:MAX_CANDIDATES])
    raise AmbiguousSymbolError(
        f'qualified name "{qualified}" names {len(candidates)} symbols; narrow with repository and path: {listed}'
    )


def package_modules(graph: Graph, repository: str | None, path: str | None) -> list[int]:
    """The module symbols of the Go package `<package>` names by repository and directory, in path order."""
    if repository is None or path is None:
        raise InvalidArgumentError(f'qualified_name "{PACKAGE}" names a Go package by its directory, so it needs '
                                   "repository and path (the directory, or . for the root)")  # fmt: skip
    r = check_repository(graph, repository)
    directory = "" if path.rstrip("/") == "." else clean_path(path)
    if (r, directory) in graph.file_ids:
        parent = directory.rpartition("/")[0] or "."
        raise SymbolNotFoundError(f'"{directory}" is a file of {repository}: "{PACKAGE}" names a Go package by its '
                                  f'directory ({parent}); the file itself is "{MODULE}" with this path')  # fmt: skip
    files = graph.files_by_directory.get((r, directory), [])
    go = [f for f in files if graph.files[f].language == "go" and not graph.files[f].path.endswith("_test.go")]
    modules = [graph.file_modules[f] for f in go if f in graph.file_modules]
    if not modules:
        held = f'holds no Go file: name one of its files with "{MODULE}"' if files else "holds no indexed file"
        raise SymbolNotFoundError(f'"{PACKAGE}" names a Go package, the non-test .go files directly in one '
                                  f'directory; "{directory or "."}" in {repository} {held}')  # fmt: skip
    return modules


def _file_module(graph: Graph, repository: str | None, path: str | None) -> int:
    """`<module>` with the path of a file: that file's module symbol."""
    if repository is None or path is None:
        raise InvalidArgumentError(f'qualified_name "{MODULE}" names the module symbol of one file, so it needs '
                                   "repository and path (that file)")  # fmt: skip
    r = check_repository(graph, repository)
    path = clean_path(path)
    f = graph.file_ids.get((r, path))
    if f is None:
        if any(info.repository == r and info.path.startswith(path + "/") for info in graph.files):
            inside = graph.files_by_directory.get((r, path), [])[:MAX_CANDIDATES]
            listed = ", ".join(graph.files[i].path for i in inside)
            raise AmbiguousSymbolError(
                f'"{path}" is a directory of {repository}, and "{MODULE}" names the module symbol of one file: '
                "repeat with the path of the file you mean" + (f" ({listed})" if listed else "")
                + f'; a Go package is "{PACKAGE}" with its directory'
            )  # fmt: skip
        raise SymbolNotFoundError(f'repository "{repository}" has no indexed file "{path}"')
    module = graph.file_modules.get(f)
    if module is None:
        raise SymbolNotFoundError(f'"{path}" in {repository} has no module symbol: the file was not parsed '
                                  f"({graph.files[f].status})")  # fmt: skip
    return module


def _narrow(graph: Graph, found: list[int], repository: str | None, path: str | None) -> list[int]:
    if repository is not None:
        r = check_repository(graph, repository)
        found = [i for i in found if int(graph.repository[i]) == r]
    if path:
        found = [i for i in found if graph.path_of(i) == path or graph.path_of(i).startswith(path + "/")]
    return found


def _by_name(graph: Graph, name: str, repository: str | None, path: str | None, repo_filter: object) -> int:
    if path is not None and repository is None:
        extra = "; repo only filters which repositories the answer may come from" if repo_filter else ""
        raise InvalidArgumentError(f"path is repository-relative, so it requires repository{extra}")
    path = clean_path(path) if path is not None else None
    found = _narrow(graph, graph.by_name.get(name, []), repository, path)
    declarations = [i for i in found if graph.kind_of(i) in DECLARATION_KINDS]
    # A file's module symbol is named after the file (`main` for main.go): it answers a bare name
    # only when no declaration in the code carries it.
    code = [i for i in declarations if graph.kind_of(i) != SymbolKind.MODULE.value]
    declarations = code or declarations
    if not declarations:
        if found:
            raise SymbolNotFoundError(f'name "{name}" only names enum members here; pass the qualified_name '
                                      "(Enum.Member) with its repository and path")  # fmt: skip
        narrowed = " under the given repository and path; call it without them to search the whole graph"
        raise SymbolNotFoundError(f'name "{name}" was not found' + (narrowed if repository else ""))
    if len(declarations) == 1:
        return declarations[0]
    listed = ", ".join(_where(graph, i) for i in declarations[:MAX_CANDIDATES])
    raise AmbiguousSymbolError(
        f'name "{name}" declares {len(declarations)} symbols; repeat with the repository and path of the one '
        f"you mean: {listed}"
    )
