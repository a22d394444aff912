"""Language adapters: the common Protocol every language implements, and the registry that finds them.

An adapter parses one file into `FileSyntax` (syntax layer), names the packages its manifests
declare, and resolves a module specifier to files of the tree. Cross-file name resolution is
shared (`languages/resolve.py`); adapters only state their language's rules as data.
"""

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from importlib import import_module
from typing import Protocol

from kivgraph.languages.syntax import FileSyntax
from kivgraph.model import Language, Package


def path_prefixes(path: str) -> Iterator[str]:
    """`a/b/c`, `a/b`, `a`: the path and each directory above it (a Go import path's possible
    modules; a file's directories)."""
    while path:
        yield path
        path = path.rpartition("/")[0]


class RepoLayout:
    """What an adapter may know of the tree being indexed: its paths and, lazily, file bytes."""

    def __init__(self, paths: Iterable[str], read: Callable[[str], bytes | None]) -> None:
        self.paths: frozenset[str] = frozenset(paths)
        self._read = read
        self._cache: dict[str, bytes | None] = {}
        dirs: set[str] = set()
        for path in self.paths:
            parent = path.rpartition("/")[0]
            while parent not in dirs:
                dirs.add(parent)
                if not parent:
                    break
                parent = parent.rpartition("/")[0]
        self.dirs: frozenset[str] = frozenset(dirs)
        self.whole: RepoLayout | None = None
        """The whole tree's layout (its paths alone) when this is a part of it: what a part must
        name as the whole tree would (two Python packages of one name) is judged on it."""

    def read(self, path: str) -> bytes | None:
        """The bytes of a file in the tree (None if absent or unreadable); cached."""
        if path not in self._cache:
            self._cache[path] = self._read(path) if path in self.paths else None
        return self._cache[path]

    def read_text(self, path: str) -> str | None:
        data = self.read(path)
        return None if data is None else data.decode("utf-8", errors="replace")

    def files_in(self, directory: str) -> list[str]:
        """Files directly inside `directory` ("" is the root), sorted."""
        prefix = f"{directory}/" if directory else ""
        return sorted(p for p in self.paths if p.startswith(prefix) and "/" not in p[len(prefix) :])

    def nearest(self, path: str, filename: str) -> str | None:
        """The closest `filename` in `path`'s directory or above it (a manifest lookup)."""
        directory = path.rpartition("/")[0]
        while True:
            candidate = f"{directory}/{filename}" if directory else filename
            if candidate in self.paths:
                return candidate
            if not directory:
                return None
            directory = directory.rpartition("/")[0]


@dataclass(frozen=True, slots=True)
class ModuleTarget:
    """Where a module specifier leads: files of this tree, an external package, or nowhere (why)."""

    files: tuple[str, ...] = ()
    external: str = ""
    reason: str = ""


class LanguageAdapter(Protocol):
    language: Language
    extensions: tuple[str, ...]
    separator: str
    """Joins qualified names: "." or "::"."""
    package_scope: bool
    """Top-level names of every file of the same package are in scope (Go)."""
    implicit_member_scope: bool
    """Unqualified names inside a class body reach its members (Dart)."""
    imports_visible_as_members: bool
    """A module's imported names can be reached as its members (Python `pkg.name` via __init__)."""
    self_names: frozenset[str]
    """Names that denote the enclosing type's instance or type (`self`, `this`, `Self`)."""
    static_self_names: frozenset[str]
    """Those of `self_names` that can only ever be the enclosing class's instance (Dart's `this`;
    not Python's `self`, a parameter, nor JavaScript's `this`, rebound by the caller)."""
    builtins: frozenset[str]
    """Names that resolve to the language itself and never to the repository."""

    def parse(self, path: str, source: bytes) -> FileSyntax: ...

    def packages(self, layout: RepoLayout, files: list[str]) -> dict[str, Package]:
        """The package each of `files` belongs to (files of no package are left out)."""
        ...

    def resolve_module(self, spec: str, from_file: str, layout: RepoLayout) -> ModuleTarget: ...


ADAPTER_MODULES: dict[Language, tuple[str, str]] = {
    Language.PYTHON: ("kivgraph.languages.python.adapter", "PythonAdapter"),
    Language.GO: ("kivgraph.languages.go.adapter", "GoAdapter"),
    Language.TYPESCRIPT: ("kivgraph.languages.typescript.adapter", "TypeScriptAdapter"),
    Language.JAVASCRIPT: ("kivgraph.languages.typescript.adapter", "JavaScriptAdapter"),
    Language.RUST: ("kivgraph.languages.rust.adapter", "RustAdapter"),
    Language.DART: ("kivgraph.languages.dart.adapter", "DartAdapter"),
}


@cache
def adapter(language: Language) -> LanguageAdapter:
    module_name, class_name = ADAPTER_MODULES[language]
    cls = getattr(import_module(module_name), class_name)
    instance: LanguageAdapter = cls()
    return instance


EXTENSIONS: dict[Language, tuple[str, ...]] = {
    Language.PYTHON: (".py", ".pyi"),
    Language.GO: (".go",),
    Language.TYPESCRIPT: (".ts", ".tsx", ".mts", ".cts"),
    Language.JAVASCRIPT: (".js", ".jsx", ".mjs", ".cjs"),
    Language.RUST: (".rs",),
    Language.DART: (".dart",),
}
"""Which files each language owns; known without importing any grammar. Adapters agree (tested)."""
EXTENSION_LANGUAGE = {ext: lang for lang, exts in EXTENSIONS.items() for ext in exts}


def language_of(path: str) -> Language | None:
    name = path.rpartition("/")[2]
    dot = name.rfind(".")
    if dot <= 0:
        return None
    if name.endswith(".d.ts"):
        return Language.TYPESCRIPT
    return EXTENSION_LANGUAGE.get(name[dot:])


__all__ = [
    "ADAPTER_MODULES",
    "LanguageAdapter",
    "ModuleTarget",
    "RepoLayout",
    "EXTENSIONS",
    "adapter",
    "language_of",
]
