"""Go modules and packages: import paths → directories of the tree, files → Go packages.

Reads only `go.mod` files through `RepoLayout` (the `module` line); never the Go toolchain, the
module cache or `vendor/`, so every import path outside the tree's modules is external. Also the
one reader of a go.mod's `replace` directories (bare or quoted) and its `go` line, for the plan and
the copies the type checkers run on, and the one spelling of a go.mod or go.work token.
"""

import json
import re
import weakref
from dataclasses import dataclass

from kivgraph.languages import ModuleTarget, RepoLayout
from kivgraph.model import Language, Package

MODULE_LINE = re.compile(r"^\s*module\s+(\"[^\"]+\"|`[^`]+`|\S+)", re.MULTILINE)
GO_LINE = re.compile(r"^\s*go\s+([0-9][^\s/]*)", re.MULTILINE)
UNDATED_GO_VERSION = "1.16"
"""The go version the go command assumes for a go.mod without a `go` line."""
_REPLACEMENT = re.compile(r'=>[ \t]*("(?:[^"\\\n]|\\.)*"|`[^`\n]*`|[^\s"`]+)[ \t]*(?://[^\n]*)?$', re.MULTILINE)
"""The right side of a `replace` directive that is a single token (a directory: a module
replacement is a path and a version), bare or quoted, up to a line comment."""


@dataclass(frozen=True, slots=True)
class LocalReplacement:
    """A directory a go.mod's `replace` points a module at: the go command loads it from there."""

    directory: str
    """As written, unquoted: `../lib`, `../lib dir`."""
    start: int
    end: int
    """Where its token (quotes and all) is in the go.mod text."""


def local_replacements(go_mod: str) -> list[LocalReplacement]:
    """The directories, relative to the module (`.`, `..`, `./…`, `../…`), that the go.mod text's
    `replace` directives name, in the line and the block form; quoted paths too (`=> "../a dir"`)."""
    found: list[LocalReplacement] = []
    for match in _REPLACEMENT.finditer(go_mod):
        token = match.group(1)
        directory = _unquoted(token)
        if directory in (".", "..") or directory.startswith(("./", "../")):
            found.append(LocalReplacement(directory, match.start(1), match.end(1)))
    return found


def go_version(go_mod: str) -> str:
    """The Go version a go.mod's `go` line states (`1.19`, `1.21.0`), else the one the go command
    assumes for it."""
    found = GO_LINE.search(go_mod)
    return found.group(1) if found else UNDATED_GO_VERSION


def dated(go_mod: str) -> str:
    """The go.mod text with the `go` line the go command assumes when it has none, which means the
    same to it (a command that may write go.mod writes the toolchain's version there instead)."""
    return go_mod if GO_LINE.search(go_mod) else f"{go_mod.rstrip()}\n\ngo {UNDATED_GO_VERSION}\n"


def go_mod_token(text: str) -> str:
    """`text` as one token of a go.mod or go.work: bare when it can be, else a quoted string."""
    return text if text and re.fullmatch(r'[^\s"`]+', text) and "//" not in text else json.dumps(text)


def _unquoted(token: str) -> str:
    if token.startswith("`"):
        return token[1:-1]
    if token.startswith('"'):
        try:
            value = json.loads(token)
        except ValueError:
            return token[1:-1]
        return value if isinstance(value, str) else token[1:-1]
    return token


@dataclass(frozen=True, slots=True)
class GoModule:
    path: str
    """The module path from `go.mod` ("" when the file names none)."""
    root: str
    """Repository-relative directory holding `go.mod`."""
    manifest: str


MODULES: "weakref.WeakKeyDictionary[RepoLayout, tuple[GoModule, ...]]" = weakref.WeakKeyDictionary()


def go_modules(layout: RepoLayout) -> tuple[GoModule, ...]:
    """Every module of the tree, longest module path first (a nested module wins its prefix)."""
    cached = MODULES.get(layout)
    if cached is not None:
        return cached
    found: list[GoModule] = []
    for manifest in sorted(path for path in layout.paths if path == "go.mod" or path.endswith("/go.mod")):
        match = MODULE_LINE.search(layout.read_text(manifest) or "")
        module_path = match.group(1).strip('"`') if match else ""
        found.append(GoModule(module_path, manifest.rpartition("/")[0], manifest))
    modules = tuple(sorted(found, key=lambda module: (-len(module.path), module.root)))
    MODULES[layout] = modules
    return modules


def homonym_roots(layout: RepoLayout) -> frozenset[str]:
    """The roots of the tree's modules whose module path another of its go.mod files declares too
    (a repository's examples, each `module example`): their packages share import paths, so what
    tells their declarations apart is the module's directory."""
    roots: dict[str, list[str]] = {}
    for module in go_modules(layout):
        roots.setdefault(module.path, []).append(module.root)
    return frozenset(root for shared in roots.values() if len(shared) > 1 for root in shared)


def module_of(path: str, layout: RepoLayout) -> GoModule | None:
    manifest = layout.nearest(path, "go.mod")
    if manifest is None:
        return None
    return next((module for module in go_modules(layout) if module.manifest == manifest), None)


def package_files(directory: str, layout: RepoLayout) -> tuple[str, ...]:
    """The `.go` files of a package directory, tests left out (they are not what an import reaches)."""
    return tuple(path for path in layout.files_in(directory) if path.endswith(".go") and not path.endswith("_test.go"))


def resolve_go_module(spec: str, from_file: str, layout: RepoLayout) -> ModuleTarget:
    for module in go_modules(layout):
        if not module.path or not (spec == module.path or spec.startswith(f"{module.path}/")):
            continue
        rest = spec[len(module.path) + 1 :]
        directory = f"{module.root}/{rest}" if module.root and rest else module.root or rest
        files = package_files(directory, layout)
        if files:
            return ModuleTarget(files=files)
        return ModuleTarget(reason="PACKAGE_NOT_FOUND")
    return ModuleTarget(external=spec)


def go_packages(layout: RepoLayout, files: list[str]) -> dict[str, Package]:
    """Each file's package: its directory's import path under the nearest `go.mod`."""
    packages: dict[str, Package] = {}
    for path in files:
        module = module_of(path, layout)
        if module is None or not module.path:
            continue
        directory = path.rpartition("/")[0]
        rest = directory[len(module.root) + 1 :] if module.root else directory
        import_path = f"{module.path}/{rest}" if rest else module.path
        packages[path] = Package(
            id=f"go:{import_path}",
            language=Language.GO,
            name=f"{module.path} {import_path}",
            root=directory,
            manifest=module.manifest,
        )
    return packages
